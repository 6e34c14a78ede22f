// POST /oauth/token: client credentials with a private_key_jwt client assertion (RFC 7523).
// Its own plugin so that form bodies are accepted here and nowhere else.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TokenRequest, TokenResponse } from '../../api/schemas.js';
import type { SandboxDeps } from '../deps.js';
import { oauthApplicationService } from '../services/oauth-applications.js';

export const oauthTokenRoutes: FastifyPluginAsyncTypebox<SandboxDeps> = async (app, deps) => {
  const applications = oauthApplicationService(deps);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.post('/oauth/token', {
    schema: {
      summary: 'Get an access token (client credentials)', tags: ['oauth'], auth: 'none',
      description: 'grant_type=client_credentials with client_assertion_type jwt-bearer. The token acts for the application\'s institution and expires after the sandbox\'s --token-ttl.',
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: TokenRequest,
      response: { 200: TokenResponse },
    },
  }, async (request, reply) => {
    const audiences = [`${deps.baseUrl()}/oauth/token`, `${request.protocol}://${request.host}/oauth/token`];
    const token = await applications.issueToken(request.body, audiences);
    return reply.header('cache-control', 'no-store').send(token);
  });
};
