// PUT /institutions/users/{institutionUserId}/update: a user of the caller's institution; and
// POST /sandbox/users (a sandbox helper): a new user of the caller's institution.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  Envelope, InstitutionUser, SandboxUserCredentials, SandboxUserInput, UpdateUserBody, UserIdParams,
} from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { userService } from '../services/users.js';
import { envelope } from './common.js';

export const userRoutes: FastifyPluginAsyncTypebox<SandboxDeps> = async (app, deps) => {
  const users = userService(deps);
  const bearer = requireBearer(deps);
  app.put('/institutions/users/:institutionUserId/update', {
    onRequest: bearer,
    schema: {
      summary: 'Update Institution User', tags: ['users'], auth: 'bearer',
      description: 'Replaces the user\'s details, status, blocked flag and roles (with permissions). Answers the updated user. '
        + 'The caller must hold every permission the user has and every permission the new roles give (else 403 naming one). '
        + 'A blocked or inactive user\'s tokens and API keys stop working at their next request.',
      params: UserIdParams, body: UpdateUserBody, response: { 200: Envelope(InstitutionUser) },
    },
  }, async (request) => envelope('Institution user updated successfully',
    users.update(principalOf(request), request.params.institutionUserId, request.body)));

  app.post('/sandbox/users', {
    onRequest: bearer,
    // An empty POST is fine: every field is optional.
    preValidation: async (request) => { request.body ??= {}; },
    schema: {
      summary: 'Create a sandbox user', tags: ['sandbox'], auth: 'bearer',
      description: 'A new user of the caller\'s institution with its own bearer token and API key (shown only here). '
        + 'Its `roles` (default none) must not grant anything the caller lacks.',
      body: SandboxUserInput, response: { 201: Envelope(SandboxUserCredentials) },
    },
  }, async (request, reply) => reply.code(201).send(envelope('User created', users.create(principalOf(request), request.body))));
};
