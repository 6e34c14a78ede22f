// PUT /institutions/users/{institutionUserId}/update: a user of the caller's institution; and
// POST /sandbox/users (a sandbox helper): a new user of the caller's institution.
import type { FastifyInstance } from 'fastify';
import {
  Envelope, InstitutionUser, SandboxUserCredentials, SandboxUserInput, UpdateUserBody, UserIdParams,
} from '../../api/schemas.js';
import { assertCanGrant, principalOf, requireBearer, requireLoopback } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { notFound } from '../errors.js';
import { scopesOfUser } from '../scopes.js';
import { addUser } from '../tenancy.js';
import { envelope } from './common.js';

export async function userRoutes(app: FastifyInstance, deps: SandboxDeps): Promise<void> {
  const { store, clock } = deps;
  const bearer = requireBearer(deps);
  app.put<{ Params: { institutionUserId: string }; Body: UpdateUserBody }>('/institutions/users/:institutionUserId/update', {
    onRequest: bearer,
    schema: {
      summary: 'Update Institution User', tags: ['users'], auth: 'bearer',
      description: 'Replaces the user\'s details, status, blocked flag and roles (with permissions). Answers the updated user. '
        + 'The caller must hold every permission the user has and every permission the new roles give (else 403 naming one). '
        + 'A blocked or inactive user\'s tokens and API keys stop working at their next request.',
      params: UserIdParams, body: UpdateUserBody, response: { 200: Envelope(InstitutionUser) },
    },
  }, async (request) => {
    const principal = principalOf(request);
    const { institutionId } = principal;
    const body = request.body;
    const user = store.transaction(() => {
      const current = store.institutions.getUser(institutionId, request.params.institutionUserId);
      if (!current) throw notFound(`institution user ${request.params.institutionUserId}`);
      assertCanGrant(principal, scopesOfUser(current), 'change a user who has it');
      assertCanGrant(principal, scopesOfUser(body), 'give it to a user');
      const next: InstitutionUser = {
        ...current,
        firstName: body.firstName,
        lastName: body.lastName,
        emailAddress: body.emailAddress,
        phoneNumber: body.phoneNumber,
        status: body.status,
        isBlocked: body.isBlocked,
        roles: body.roles.map((role) => ({ role: role.role, permissions: [...role.permissions] })),
        embossingName: body.embossingName ?? current.embossingName,
        startDate: body.startDate ?? current.startDate,
        expiryDate: body.expiryDate ?? current.expiryDate,
        printCard: body.printCard ?? current.printCard,
        updatedAt: clock.now().toISOString(),
      };
      store.institutions.updateUser(next);
      return next;
    });
    return envelope('Institution user updated successfully', user);
  });

  app.post<{ Body: SandboxUserInput }>('/sandbox/users', {
    onRequest: [requireLoopback(deps), bearer],
    // An empty POST is fine: every field is optional.
    preValidation: async (request) => { request.body ??= {}; },
    schema: {
      summary: 'Create a sandbox user', tags: ['sandbox'], auth: 'bearer',
      description: 'A new user of the caller\'s institution with its own bearer token and API key (shown only here). '
        + 'Its `roles` (default none) must not grant anything the caller lacks.',
      body: SandboxUserInput, response: { 201: Envelope(SandboxUserCredentials) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request);
    const roles = request.body.roles ?? [];
    assertCanGrant(principal, scopesOfUser({ roles }), 'give it to a user');
    const created = store.transaction(() => addUser(store, clock.now(), {
      institutionId: principal.institutionId, firstName: request.body.firstName, lastName: request.body.lastName, roles,
    }));
    return reply.code(201).send(envelope('User created', created));
  });
}
