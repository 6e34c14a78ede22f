// Who is calling: bearer tokens for the institution endpoints, API keys for the import
// endpoint (where a call may come from, for every route: ingress.ts); and what the caller may do (the scopes of
// scopes.ts). Each is a fastify onRequest hook, so a request is authenticated and authorized
// before its body is even parsed (401, then 403, before 400).
import type { FastifyReply, FastifyRequest, onRequestHookHandler, preSerializationHookHandler, RouteOptions } from 'fastify';
import { withoutUrlCredentials } from '../core/redact.js';
import type { SandboxDeps } from './deps.js';
import { digestsEqual, hashSecret } from './ids.js';
import { notPermitted, unauthenticated, type DomainError } from './errors.js';
import { WEBHOOK_SETTINGS_SCOPE, covers, requiredScope, scopesOfUser, userRefusal } from './scopes.js';
import type { CredentialKind } from './store/index.js';

export interface Principal {
  institutionId: string;
  userId: string | null;
  /** Set for tokens issued to an OAuth application by POST /oauth/token. */
  applicationId: string | null;
  /**
   * The caller holds a scope when every one of these lists grants it: the scope written on the
   * credential when it was issued, and what its user's roles or its application grant now.
   */
  scopeSets: string[][];
}

/** Whether the caller holds `scope` (READ, WRITE and * included: see scopes.ts). */
export function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopeSets.every((held) => covers(held, scope));
}

/**
 * preSerialization hook of every route: a caller who may not read the card programs' webhook
 * settings gets every URL field of the answer without its user info and query values (a
 * credential can hide in any of them) and every signature redacted (core/redact.ts).
 */
export const discloseToReader: preSerializationHookHandler<unknown> = (request, _reply, payload, done) => {
  const principal = request.principal;
  done(null, principal && !hasScope(principal, WEBHOOK_SETTINGS_SCOPE) ? withoutUrlCredentials(payload) : payload);
};

/** 403 FORBIDDEN naming the scope; `details.requiredScope` carries it for clients. */
export function missingScope(scope: string, message: string): DomainError {
  return notPermitted(message, { requiredScope: scope });
}

/**
 * No caller hands out what it does not hold: every scope of an application it creates or
 * changes, and every permission of a user's roles it sets, must be one of its own.
 */
export function assertCanGrant(principal: Principal, scopes: readonly string[], what: string): void {
  for (const scope of scopes) {
    if (!hasScope(principal, scope)) throw missingScope(scope, `this token lacks scope ${scope}, so it cannot ${what}`);
  }
}

/** Marks the hooks of requireBearer/requireApiKey, so a route that authenticates is known by its hooks. */
const AUTHENTICATES = Symbol('authenticates');

function authenticating(hook: onRequestHookHandler): onRequestHookHandler {
  return Object.assign(hook, { [AUTHENTICATES]: true });
}

/**
 * onRoute hook: a route that authenticates its caller gets the scope check of
 * OPERATION_SCOPES after its authentication hook. A route that authenticates without a row in
 * the table, or without saying so in `schema.auth` (what /openapi.json documents), is a
 * programming error and stops the server from starting.
 */
export function attachScopeCheck(route: RouteOptions): void {
  const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
  const auth = (route.schema as { auth?: string } | undefined)?.auth;
  const authenticates = existing.some((hook) => (hook as { [AUTHENTICATES]?: boolean })[AUTHENTICATES]);
  if (!authenticates && auth !== 'bearer' && auth !== 'apiKey') return;
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
  for (const method of methods) {
    if (!authenticates || (auth !== 'bearer' && auth !== 'apiKey')) {
      throw new Error(`${method} ${route.url}: schema.auth says ${auth ?? 'nothing'} but its hooks ${authenticates ? 'do' : 'do not'} authenticate`);
    }
    const scope = requiredScope(method, route.url);
    if (scope === undefined) throw new Error(`${method} ${route.url} authenticates its caller but has no scope in OPERATION_SCOPES (src/sandbox/scopes.ts)`);
    const operation = `${method} ${route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
    const check: onRequestHookHandler = async (request) => {
      if (!hasScope(principalOf(request), scope)) throw missingScope(scope, `this token lacks scope ${scope}, which ${operation} requires`);
    };
    route.onRequest = [...existing, check] as RouteOptions['onRequest'];
  }
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
  return authenticating(async (request: FastifyRequest, _reply: FastifyReply) => {
    const header = request.headers.authorization;
    if (!header) {
      if (request.headers['x-api-key'] !== undefined) {
        throw unauthenticated('this endpoint takes Authorization: Bearer <token>, not an x-api-key (API keys are for POST /util/cards/import)');
      }
      throw unauthenticated('missing Authorization: Bearer <token> header');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthenticated('the Authorization header must be "Bearer <token>"');
    request.principal = authenticate(deps, match[1]!, 'token');
  });
}

export function requireApiKey(deps: SandboxDeps): onRequestHookHandler {
  return authenticating(async (request: FastifyRequest) => {
    if (request.headers.authorization !== undefined) {
      throw unauthenticated('this endpoint takes an x-api-key header, not a bearer token');
    }
    const key = request.headers['x-api-key'];
    if (typeof key !== 'string' || key === '') throw unauthenticated('missing x-api-key header');
    request.principal = authenticate(deps, key, 'apiKey');
  });
}

function authenticate(deps: SandboxDeps, secret: string, kind: CredentialKind): Principal {
  const digest = hashSecret(secret);
  const credential = deps.store.credentials.findByHash(digest);
  // The lookup is by digest; the compare is constant-time on top of it.
  if (!credential || !digestsEqual(credential.secretHash, digest)) {
    throw unauthenticated(kind === 'token' ? 'the bearer token is not valid' : 'the API key is not valid');
  }
  if (credential.kind !== kind) {
    throw unauthenticated(kind === 'token'
      ? 'an API key was sent as a bearer token; this endpoint needs an access token'
      : 'a bearer token was sent as an API key; this endpoint needs an API key');
  }
  if (credential.expiresAt !== null && credential.expiresAt <= deps.clock.now().getTime()) {
    throw unauthenticated('the access token has expired; request a new one at POST /oauth/token');
  }
  const what = kind === 'token' ? 'token' : 'API key';
  // Who the credential acts for is read on every request: blocking a user, or changing an
  // application's scopes, takes effect on the next request, not at the next token.
  const scopeSets = [credential.scope.split(' ').filter(Boolean)];
  if (credential.applicationId !== null) {
    const stored = deps.store.oauthApplications.get(credential.institutionId, credential.applicationId);
    if (!stored || stored.application.isDeleted) throw unauthenticated(`the OAuth application of this ${what} no longer exists`);
    scopeSets.push(stored.application.scopes);
  }
  if (credential.userId !== null) {
    const user = deps.store.institutions.getUser(credential.institutionId, credential.userId);
    if (!user) throw unauthenticated(`the user of this ${what} no longer exists`);
    const refusal = userRefusal(user);
    if (refusal) throw unauthenticated(`the user of this ${what} ${refusal}`);
    scopeSets.push(scopesOfUser(user));
  }
  return {
    institutionId: credential.institutionId,
    userId: credential.userId,
    applicationId: credential.applicationId,
    scopeSets,
  };
}
