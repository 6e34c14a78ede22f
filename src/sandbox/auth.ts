// Who is calling: bearer tokens for the institution endpoints, API keys for the import
// endpoint, loopback for the sandbox helpers. Each is a fastify onRequest hook, so a request
// is authenticated before its body is even parsed (401 before 400).
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { SandboxDeps } from './deps.js';
import { digestsEqual, hashSecret } from './ids.js';
import { forbidden, unauthorized } from './errors.js';
import type { CredentialKind } from './store/index.js';

export interface Principal {
  institutionId: string;
  userId: string | null;
  /** Set for tokens issued to an OAuth application by POST /oauth/token. */
  applicationId: string | null;
  scope: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The caller's principal; only valid behind requireBearer/requireApiKey. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing its authentication hook');
  return request.principal;
}

export function requireBearer(deps: SandboxDeps): onRequestHookHandler {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const header = request.headers.authorization;
    if (!header) {
      if (request.headers['x-api-key'] !== undefined) {
        throw unauthorized('this endpoint takes Authorization: Bearer <token>, not an x-api-key (API keys are for POST /util/cards/import)');
      }
      throw unauthorized('missing Authorization: Bearer <token> header');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized('the Authorization header must be "Bearer <token>"');
    request.principal = authenticate(deps, match[1]!, 'token');
  };
}

export function requireApiKey(deps: SandboxDeps): onRequestHookHandler {
  return async (request: FastifyRequest) => {
    if (request.headers.authorization !== undefined) {
      throw unauthorized('this endpoint takes an x-api-key header, not a bearer token');
    }
    const key = request.headers['x-api-key'];
    if (typeof key !== 'string' || key === '') throw unauthorized('missing x-api-key header');
    request.principal = authenticate(deps, key, 'apiKey');
  };
}

/** /sandbox/* is for the machine the sandbox runs on, unless it was bound elsewhere on purpose. */
export function requireLoopback(deps: SandboxDeps): onRequestHookHandler {
  return async (request: FastifyRequest) => {
    if (deps.settings.allowRemoteSandboxHelpers) return;
    if (!isLoopbackAddress(request.socket.remoteAddress)) {
      throw forbidden('sandbox helpers answer only loopback callers; start the sandbox with --host to expose them');
    }
  };
}

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

function authenticate(deps: SandboxDeps, secret: string, kind: CredentialKind): Principal {
  const digest = hashSecret(secret);
  const credential = deps.store.credentials.findByHash(digest);
  // The lookup is by digest; the compare is constant-time on top of it.
  if (!credential || !digestsEqual(credential.secretHash, digest)) {
    throw unauthorized(kind === 'token' ? 'the bearer token is not valid' : 'the API key is not valid');
  }
  if (credential.kind !== kind) {
    throw unauthorized(kind === 'token'
      ? 'an API key was sent as a bearer token; this endpoint needs an access token'
      : 'a bearer token was sent as an API key; this endpoint needs an API key');
  }
  if (credential.expiresAt !== null && credential.expiresAt <= deps.clock.now().getTime()) {
    throw unauthorized('the access token has expired; request a new one at POST /oauth/token');
  }
  return {
    institutionId: credential.institutionId,
    userId: credential.userId,
    applicationId: credential.applicationId,
    scope: credential.scope,
  };
}
