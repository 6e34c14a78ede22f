// POST /oauth/token: client credentials with a private_key_jwt client assertion (RFC 7523).
// Its own plugin so that form bodies are accepted here and nowhere else.
import type { FastifyInstance } from 'fastify';
import { TokenRequest, TokenResponse } from '../../api/schemas.js';
import type { SandboxDeps } from '../deps.js';
import { ApiError, unauthorized } from '../errors.js';
import { hashSecret, newSecret } from '../ids.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Assertions may live at most this long (seconds), plus a little clock skew. */
const MAX_ASSERTION_LIFETIME = 300;
const CLOCK_SKEW = 30;

export async function oauthTokenRoutes(app: FastifyInstance, deps: SandboxDeps): Promise<void> {
  const { store, clock } = deps;
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.post<{ Body: TokenRequest }>('/oauth/token', {
    schema: {
      summary: 'Get an access token (client credentials)', tags: ['oauth'], auth: 'none',
      description: 'grant_type=client_credentials with client_assertion_type jwt-bearer. The token acts for the application\'s institution and expires after the sandbox\'s --token-ttl.',
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: TokenRequest,
      response: { 200: TokenResponse },
    },
  }, async (request, reply) => {
    const body = request.body;
    if (body.grant_type !== 'client_credentials') {
      throw new ApiError(400, 'VALIDATION_ERROR', `grant_type "${body.grant_type}" is not supported; use client_credentials`, [{ field: 'grant_type', message: 'must be client_credentials' }]);
    }
    if (body.client_assertion_type !== ASSERTION_TYPE) {
      throw new ApiError(400, 'VALIDATION_ERROR', `client_assertion_type must be ${ASSERTION_TYPE}`, [{ field: 'client_assertion_type', message: `must be ${ASSERTION_TYPE}` }]);
    }
    const stored = store.oauthApplications.findByClientId(body.client_id);
    if (!stored || stored.application.isDeleted) throw unauthorized('unknown client_id');
    const { application } = stored;
    if (application.grantType !== 'client_credentials') {
      throw unauthorized(`application ${body.client_id} has grantType ${application.grantType}, not client_credentials`);
    }

    const { importX509, jwtVerify } = await import('jose');
    const key = await importX509(stored.certificate, 'RS256');
    const now = clock.now();
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const audiences = [`${deps.baseUrl()}/oauth/token`, `${request.protocol}://${request.host}/oauth/token`];
    let payload: { jti?: string; exp?: number };
    try {
      ({ payload } = await jwtVerify(body.client_assertion, key, {
        algorithms: ['RS256'],
        issuer: body.client_id,
        subject: body.client_id,
        audience: audiences,
        requiredClaims: ['exp', 'jti'],
        currentDate: now,
        clockTolerance: CLOCK_SKEW,
      }));
    } catch (error) {
      throw unauthorized(`client_assertion rejected: ${(error as Error).message}`);
    }
    if (payload.exp! > nowSeconds + MAX_ASSERTION_LIFETIME + CLOCK_SKEW) {
      throw unauthorized(`client_assertion expires too far ahead: exp must be at most ${MAX_ASSERTION_LIFETIME} s from now`);
    }
    const ttl = deps.settings.tokenTtlSeconds;
    const token = newSecret('sbx_oat');
    const scope = application.scopes.join(' ');
    store.transaction(() => {
      if (!store.oauthApplications.useAssertion(body.client_id, payload.jti!, payload.exp! * 1000, now.getTime())) {
        throw unauthorized('client_assertion was already used (jti replay); sign a new one for every request');
      }
      store.credentials.removeExpired(now.getTime());
      store.credentials.insert({
        secretHash: hashSecret(token),
        kind: 'token',
        institutionId: application.institution as string,
        userId: null,
        applicationId: application.id,
        scope,
        expiresAt: now.getTime() + ttl * 1000,
      });
    });
    return reply.header('cache-control', 'no-store').send({ access_token: token, token_type: 'Bearer' as const, expires_in: ttl, scope });
  });
}
