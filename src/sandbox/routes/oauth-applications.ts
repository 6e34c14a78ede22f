// /institutions/oauth: list, create and update the institution's OAuth applications.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CreateOAuthBody, Envelope, ListEnvelope, ListOAuthQuery, OAuthApplication, OAuthApplicationParams, UpdateOAuthBody,
} from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { oauthApplicationService } from '../services/oauth-applications.js';
import { envelope, listEnvelope, pagination, paging } from './common.js';

const tags = ['oauth'];

export const oauthApplicationRoutes: FastifyPluginAsyncTypebox<SandboxDeps> = async (app, deps) => {
  const applications = oauthApplicationService(deps);
  const auth = requireBearer(deps);

  app.get('/institutions/oauth/applications', {
    onRequest: auth,
    schema: {
      summary: 'List OAuth Applications', tags, auth: 'bearer',
      description: 'Newest first; `search` matches name, description, client id and certificate subject. `institution` is expanded.',
      querystring: ListOAuthQuery, response: { 200: ListEnvelope(OAuthApplication) },
    },
  }, async (request) => {
    const { page, limit, offset } = paging(request.query);
    const listed = applications.list({ institutionId: principalOf(request).institutionId, search: request.query.search, limit, offset });
    return listEnvelope(deps.dialect, 'OAuth applications retrieved successfully', listed.applications, pagination(page, limit, listed.total));
  });

  app.post('/institutions/oauth/create', {
    onRequest: auth,
    schema: {
      summary: 'Create OAuth Application', tags, auth: 'bearer',
      description: '`publicKey` is the application\'s PEM certificate; its subject is recorded and its key verifies client assertions at POST /oauth/token. '
        + 'The generated client id is `institutionId`. `redirectUri` is required for authorization_code. The sandbox also returns the application in `data`. '
        + 'The caller must hold every scope it gives the application (else 403 naming one).',
      body: CreateOAuthBody, response: { 201: Envelope(OAuthApplication) },
    },
  }, async (request, reply) => reply.code(201).send(envelope('OAuth application created successfully',
    applications.create(principalOf(request), request.body))));

  app.put('/institutions/oauth/:institutionId', {
    onRequest: auth,
    schema: {
      summary: 'Update OAuth Application', tags, auth: 'bearer',
      description: 'The path parameter takes the application\'s `id` or its client id (`institutionId`). '
        + 'With `If-Match: "<updatedAt>"` (as read) the change applies only to that version: an application changed since is a 409 CONFLICT '
        + '(details.version: the current updatedAt), and nothing is written. The caller must hold every scope the '
        + 'application has and every scope it is given (else 403 naming one); its tokens have the new scopes from their next request.',
      params: OAuthApplicationParams, body: UpdateOAuthBody, response: { 200: Envelope(OAuthApplication) },
    },
  }, async (request) => envelope('OAuth application updated successfully',
    applications.update(principalOf(request), request.params.institutionId, request.body, request.headers['if-match'])));
};
