// Authorization, as data: the scope each operation requires, what the scope words READ, WRITE
// and * stand for, and what a user's roles grant. Enforcement (auth.ts), the security of
// /openapi.json and docs/authorization.md (checked by test/sandbox/authorization.test.ts) all
// derive from these tables.
import type { InstitutionUser } from '../api/schemas.js';

/**
 * Every operation that authenticates its caller (bearer token or API key), as
 * `METHOD <fastify route>`, and the one scope it requires. A route with `schema.auth` bearer or
 * apiKey that is missing here stops the server from starting.
 */
export const OPERATION_SCOPES: Readonly<Record<string, string>> = {
  'POST /institutions/cards': 'create:card',
  'GET /institutions/cards': 'read:card',
  'PUT /institutions/cards/:cardId/renew': 'update:card',
  'PUT /institutions/cards/:cardId/customer': 'update:card',
  'GET /institutions/cards/:cardId/activate': 'update:card',
  'GET /institutions/cards/:cardId/deactivate': 'update:card',
  'PUT /institutions/cards/pin/:cardId/change': 'update:pin',
  'PUT /institutions/cards/pin/:cardId/reset': 'reset:pin',
  'POST /util/cards/import': 'import:card',
  'GET /institutions/transactions': 'read:transaction',
  'GET /institutions/transactions/:id': 'read:transaction',
  'POST /institutions/:switch/simulate': 'create:transaction',
  'GET /institutions/oauth/applications': 'read:oauth_application',
  'POST /institutions/oauth/create': 'create:oauth',
  'PUT /institutions/oauth/:institutionId': 'update:oauth',
  'PUT /institutions/users/:institutionUserId/update': 'update:user',
  'POST /sandbox/users': 'create:user',
  'GET /sandbox/card-programs': 'read:card_program',
  'POST /sandbox/card-programs': 'create:card_program',
  'PUT /sandbox/card-programs/:id': 'update:card_program',
  'GET /sandbox/webhook-faults': 'read:card_program',
  'PUT /sandbox/webhook-faults': 'update:card_program',
  'POST /sandbox/switch/messages': 'create:transaction',
  'POST /sandbox/transactions/:id/repeat': 'create:transaction',
  'POST /sandbox/transactions/:id/expire': 'create:transaction',
  'GET /sandbox/transactions/:id/lifecycle': 'read:transaction',
  'GET /sandbox/webhook-exchanges': 'read:transaction',
  'GET /sandbox/webhook-exchanges/:id': 'read:transaction',
  'POST /sandbox/webhook-exchanges/:id/replay': 'create:transaction',
  // Full card numbers, given only to a caller that may read the programs' webhook settings.
  'POST /sandbox/card-pool': 'read:card_program',
};

/** The scope that reads card programs, their webhook settings included (URL credentials, secrets). */
export const WEBHOOK_SETTINGS_SCOPE = OPERATION_SCOPES['GET /sandbox/card-programs']!;

/**
 * A replay sent anywhere but the program's own webhook (`to`) hands its clear message (card
 * number, track 2) to whoever listens there: it needs, besides the route's scope, the scope that
 * reads the program's webhook settings. It never carries the program's secret header.
 */
export const REPLAY_ELSEWHERE_SCOPE = 'read:card_program';

/**
 * Scope words that stand for many scopes, by the verb of the `verb:object` scope they grant.
 * A bundle itself is granted only by the same word or by `*` (WRITE does not grant READ).
 */
export const SCOPE_BUNDLES: ReadonlyMap<string, (verb: string) => boolean> = new Map([
  ['*', () => true],
  ['READ', (verb: string) => verb === 'read'],
  ['WRITE', (verb: string) => verb !== 'read'],
]);

/** The scope a route requires, by method and fastify route (`:param` form). */
export function requiredScope(method: string, url: string): string | undefined {
  return Object.hasOwn(OPERATION_SCOPES, `${method} ${url}`) ? OPERATION_SCOPES[`${method} ${url}`] : undefined;
}

/** Whether one scope the caller holds grants the scope `wanted`. */
export function grants(held: string, wanted: string): boolean {
  if (held === wanted || held === '*') return true;
  if (SCOPE_BUNDLES.has(wanted)) return false;
  const bundle = SCOPE_BUNDLES.get(held);
  const colon = wanted.indexOf(':');
  return bundle !== undefined && colon > 0 && bundle(wanted.slice(0, colon));
}

/** Whether a list of held scopes grants `wanted`. */
export function covers(held: readonly string[], wanted: string): boolean {
  return held.some((scope) => grants(scope, wanted));
}

/**
 * What a user's roles grant: each role grants exactly the scopes listed in its `permissions`
 * (the role's name is a label and grants nothing by itself); a user with no roles has no scope.
 */
export function scopesOfUser(user: Pick<InstitutionUser, 'roles'>): string[] {
  return user.roles.flatMap((role) => role.permissions);
}

/** Why a user's credentials do not work now, or undefined when they do. Checked on every request. */
export function userRefusal(user: Pick<InstitutionUser, 'isBlocked' | 'status'>): string | undefined {
  if (user.isBlocked) return 'is blocked';
  if (user.status !== 'active') return `is not active (status "${user.status}")`;
  return undefined;
}
