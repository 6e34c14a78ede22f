// Authorization, derived from the tables of src/sandbox/scopes.ts: every operation with a token
// holding exactly its scope (allowed) and with one holding every other scope (403 naming it),
// for user roles and for OAuth applications; the scope words; blocked, inactive and role-less
// users; a deleted or narrowed application; no caller granting what it lacks; /openapi.json and
// docs/authorization.md against the table.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import Fastify from 'fastify';
import { attachScopeCheck, requireBearer } from '../../src/sandbox/auth.js';
import { covers, grants, OPERATION_SCOPES, SCOPE_BUNDLES } from '../../src/sandbox/scopes.js';
import { validImportRow } from '../helpers/import-row.js';
import { call, createCard, createCardBody, encryptPin, startTestSandbox, type OpenApiPaths, type Sandbox, fieldErrorsOf, type DataEnvelope, type ListDataEnvelope, errorOf } from './helpers.js';
import { clientAssertion, makeCertificate, type TestCertificate } from './oauth-helpers.js';
import { auth, simulate } from './switch-helpers.js';
import type { Card, Transaction, SimulateEnvelope, InstitutionUser, OAuthApplication, TokenResponse, SandboxUserCredentials } from '../../src/api/schemas.js';

let sandbox: Sandbox;
let certificate: TestCertificate;
let txId: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  certificate = makeCertificate('authorization-test');
  const card = await createCard(sandbox);
  const tx = await simulate(sandbox, auth(card.id));
  expect(tx.status, tx.text).toBe(200);
  txId = tx.body.data.transactionId;
}, 30_000);
afterAll(async () => { await sandbox?.close(); });

/** The table's operations in /openapi.json's form (`{param}`). */
const TABLE = Object.fromEntries(Object.entries(OPERATION_SCOPES).map(([key, scope]) => [key.replace(/:([A-Za-z0-9_]+)/g, '{$1}'), scope]));
const ALL_SCOPES = [...new Set(Object.values(OPERATION_SCOPES))];

/** Every scope of the table but `scope`, and the scope word that does not grant it. */
function allBut(scope: string): string[] {
  return [...ALL_SCOPES.filter((s) => s !== scope), scope.startsWith('read:') ? 'WRITE' : 'READ'];
}

let userCounter = 0;
/** A user of the sandbox's institution whose one role has these permissions: its token and API key. */
async function userWith(permissions: string[]): Promise<{ userId: string; token: string; apiKey: string }> {
  const roles = [{ role: `role-${++userCounter}`, permissions }];
  const response = await call<DataEnvelope<SandboxUserCredentials>>(sandbox, 'POST', '/sandbox/users', { token: sandbox.token, body: { roles } });
  expect(response.status, response.text).toBe(201);
  return response.body.data;
}

/** An OAuth application with these scopes (made by the seeded admin) and a token for it. */
async function applicationWith(scopes: string[]): Promise<{ id: string; clientId: string; token: string }> {
  const created = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', {
    token: sandbox.token,
    body: { name: `app ${scopes.join(' ')}`.slice(0, 100), publicKey: certificate.certificatePem, scopes, grantType: 'client_credentials' },
  });
  expect(created.status, created.text).toBe(201);
  const clientId = created.body.data.institutionId;
  return { id: created.body.data.id, clientId, token: await tokenFor(clientId) };
}

async function tokenFor(clientId: string): Promise<string> {
  const assertion = await clientAssertion({ clientId, audience: `${sandbox.baseUrl}/oauth/token`, privateKeyPem: certificate.privateKeyPem });
  const response = await call<TokenResponse>(sandbox, 'POST', '/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: clientId, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.access_token;
}

interface Request { path: string; body?: unknown }
const expiration = () => `${new Date().getUTCFullYear() + 2}01`;
let realIds = 0;
/** A valid request for every operation of the table, made for a caller holding only `scope`. */
const REQUESTS: Record<string, (scope: string) => Promise<Request>> = {
  'POST /institutions/cards': async () => ({ path: '/institutions/cards', body: createCardBody(sandbox) }),
  'GET /institutions/cards': async () => ({ path: '/institutions/cards?limit=5' }),
  'PUT /institutions/cards/{cardId}/renew': async () => ({ path: `/institutions/cards/${(await createCard(sandbox)).id}/renew`, body: { expiration: expiration(), renewReason: 'RENEW' } }),
  'PUT /institutions/cards/{cardId}/customer': async () => ({ path: `/institutions/cards/${(await createCard(sandbox)).id}/customer`, body: createCardBody(sandbox).customer }),
  'GET /institutions/cards/{cardId}/activate': async () => ({ path: `/institutions/cards/${(await createCard(sandbox, { status: 'inactive' })).id}/activate` }),
  'GET /institutions/cards/{cardId}/deactivate': async () => ({ path: `/institutions/cards/${(await createCard(sandbox)).id}/deactivate` }),
  'PUT /institutions/cards/pin/{cardId}/change': async () => ({ path: `/institutions/cards/pin/${(await createCard(sandbox)).id}/change`, body: { oldPIN: encryptPin(sandbox, '1234'), newPIN: encryptPin(sandbox, '4321') } }),
  'PUT /institutions/cards/pin/{cardId}/reset': async () => ({ path: `/institutions/cards/pin/${(await createCard(sandbox)).id}/reset`, body: { newPIN: encryptPin(sandbox, '4321') } }),
  'POST /util/cards/import': async () => ({ path: '/util/cards/import', body: validImportRow({ realId: `AUTHZ-${++realIds}`, institutionId: sandbox.institutionId }) }),
  'GET /institutions/transactions': async () => ({ path: '/institutions/transactions?limit=5' }),
  'GET /institutions/transactions/{id}': async () => ({ path: `/institutions/transactions/${txId}` }),
  'POST /institutions/{switch}/simulate': async () => ({ path: '/institutions/switch/simulate', body: auth((await createCard(sandbox)).id) }),
  'GET /institutions/oauth/applications': async () => ({ path: '/institutions/oauth/applications?limit=5' }),
  // What the caller gives away must be its own: the new or changed application has the caller's one scope.
  'POST /institutions/oauth/create': async (scope) => ({ path: '/institutions/oauth/create', body: { name: 'made by a narrow token', publicKey: certificate.certificatePem, scopes: [scope], grantType: 'client_credentials' } }),
  'PUT /institutions/oauth/{institutionId}': async (scope) => {
    const target = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', { token: sandbox.token, body: { name: 'target', publicKey: certificate.certificatePem, scopes: [scope], grantType: 'client_credentials' } });
    return { path: `/institutions/oauth/${target.body.data.id}`, body: { name: 'renamed', description: 'by a narrow token', websiteUrl: 'https://example.com', scopes: [scope] } };
  },
  'PUT /institutions/users/{institutionUserId}/update': async () => ({
    path: `/institutions/users/${(await userWith([])).userId}/update`,
    body: { firstName: 'Ngozi', lastName: 'Eze', emailAddress: 'ngozi@example.com', phoneNumber: '+2348012345678', status: 'active', isBlocked: false, roles: [] },
  }),
  'POST /sandbox/users': async () => ({ path: '/sandbox/users', body: { firstName: 'New' } }),
  'GET /sandbox/card-programs': async () => ({ path: '/sandbox/card-programs' }),
  'POST /sandbox/card-programs': async () => ({ path: '/sandbox/card-programs', body: { name: 'made by a narrow token' } }),
  'PUT /sandbox/card-programs/{id}': async () => ({ path: `/sandbox/card-programs/${sandbox.cardProgramId}`, body: { name: 'renamed by a narrow token' } }),
  'GET /sandbox/webhook-faults': async () => ({ path: '/sandbox/webhook-faults' }),
  'PUT /sandbox/webhook-faults': async () => ({ path: '/sandbox/webhook-faults', body: { programId: sandbox.cardProgramId, inherit: true } }),
  'POST /sandbox/switch/messages': async () => ({ path: '/sandbox/switch/messages', body: { message: 'increment', originalTransactionId: await approvedAuthorization(), amount: 1 } }),
  'POST /sandbox/transactions/{id}/repeat': async () => ({ path: `/sandbox/transactions/${txId}/repeat`, body: {} }),
  'POST /sandbox/transactions/{id}/expire': async () => ({ path: `/sandbox/transactions/${await approvedAuthorization()}/expire` }),
  'GET /sandbox/transactions/{id}/lifecycle': async () => ({ path: `/sandbox/transactions/${txId}/lifecycle` }),
  'GET /sandbox/webhook-exchanges': async () => ({ path: '/sandbox/webhook-exchanges?limit=5' }),
  'GET /sandbox/webhook-exchanges/{id}': async () => ({ path: `/sandbox/webhook-exchanges/${recordedExchange()}` }),
  'POST /sandbox/webhook-exchanges/{id}/replay': async () => ({ path: `/sandbox/webhook-exchanges/${recordedExchange()}/replay`, body: {} }),
  'POST /sandbox/card-pool': async () => ({ path: '/sandbox/card-pool', body: { cardIds: [(await createCard(sandbox)).id] } }),
};

/** An exchange of the seeded transaction, put in the log directly (the seeded program has no webhook). */
function recordedExchange(): string {
  const id = `wx_authz${++realIds}`;
  sandbox.deps.exchanges.add(sandbox.institutionId, {
    id, at: new Date().toISOString(), transactionId: txId, originalId: null, cardId: null, kind: 'authorization', mti: '0100', attempt: 1,
    replayOf: null, signatureScheme: 'cardctl', request: { method: 'POST', url: 'http://127.0.0.1:9/', headers: {}, body: {} }, response: null,
    latencyMs: 0, verdict: 'no-answer', reason: 'unreachable', responseCode: null, faults: [],
  }, { '0': '0100' });
  return id;
}

/** A new approved authorization, made with the seeded (all-scopes) token. */
async function approvedAuthorization(): Promise<string> {
  const made = await call<SimulateEnvelope>(sandbox, 'POST', '/institutions/switch/simulate', { token: sandbox.token, body: auth((await createCard(sandbox)).id) });
  return made.body.data.transactionId;
}

function operationOf(key: string): { method: string; apiKey: boolean } {
  return { method: key.split(' ')[0]!, apiKey: key === 'POST /util/cards/import' };
}

describe('the tables', () => {
  test('every authenticated operation of /openapi.json has its scope from the table, and every table row is an operation', async () => {
    const doc = (await call(sandbox, 'GET', '/openapi.json')).body as { paths: OpenApiPaths };
    const documented: Record<string, string> = {};
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const security = op.security?.[0];
        if (!security || Object.keys(security).length === 0) continue;
        const [scopes] = Object.values(security);
        expect(scopes, `${method} ${path}`).toHaveLength(1);
        documented[`${method.toUpperCase()} ${path}`] = scopes![0]!;
      }
    }
    expect(documented).toEqual(TABLE);
    expect(Object.keys(REQUESTS).sort()).toEqual(Object.keys(TABLE).sort());
  });

  test('docs/authorization.md lists the same operations with the same scopes, and every scope word', () => {
    const doc = readFileSync(new URL('../../docs/authorization.md', import.meta.url), 'utf8');
    const rows: Record<string, string> = {};
    for (const match of doc.matchAll(/^\| `([A-Z]+ \/[^`]*)` \| [^|]+ \| `([^`]+)` \|$/gm)) rows[match[1]!] = match[2]!;
    expect(rows).toEqual(TABLE);
    for (const word of SCOPE_BUNDLES.keys()) expect(doc).toMatch(new RegExp(`^\\| \`${word.replace('*', '\\*')}\` \\|`, 'm'));
  });

  test('a route that authenticates without a scope in the table, or without saying so in schema.auth, stops the server from starting', () => {
    const app = Fastify();
    app.addHook('onRoute', attachScopeCheck);
    const handler = async () => ({});
    expect(() => app.get('/institutions/secrets', { onRequest: requireBearer(sandbox.deps), schema: { auth: 'bearer' } }, handler)).toThrow(/no scope in OPERATION_SCOPES/);
    expect(() => app.get('/institutions/cards', { onRequest: requireBearer(sandbox.deps), schema: { auth: 'none' } }, handler)).toThrow(/schema.auth says none/);
    expect(() => app.get('/institutions/cards', { onRequest: [requireBearer(sandbox.deps)] }, handler)).toThrow(/schema.auth says nothing/);
    expect(() => app.get('/institutions/transactions', { schema: { auth: 'bearer' } }, handler)).toThrow(/do not authenticate/);
    expect(() => app.get('/institutions/transactions', { onRequest: requireBearer(sandbox.deps), schema: { auth: 'bearer' } }, handler)).not.toThrow();
  });

  test.each([
    ['*', 'create:card', true], ['*', 'READ', true], ['*', 'WRITE', true], ['*', 'delete:anything', true],
    ['READ', 'read:card', true], ['READ', 'read:anything_new', true], ['READ', 'create:card', false], ['READ', 'WRITE', false], ['READ', '*', false],
    ['WRITE', 'create:card', true], ['WRITE', 'reset:pin', true], ['WRITE', 'read:card', false], ['WRITE', 'READ', false], ['WRITE', '*', false],
    ['read:card', 'read:card', true], ['read:card', 'READ', false], ['read:card', 'read:transaction', false], ['create:card', 'create:cards', false],
    ['read:card', '*', false],
  ])('%s grants %s: %s', (held, wanted, expected) => {
    expect(grants(held, wanted)).toBe(expected);
  });

  test('holding every read: scope one by one does not grant READ', () => {
    expect(covers(ALL_SCOPES.filter((s) => s.startsWith('read:')), 'READ')).toBe(false);
  });
});

describe('every operation × exactly its scope / every other scope', () => {
  for (const [key, scope] of Object.entries(TABLE)) {
    const { method, apiKey } = operationOf(key);
    const principals = apiKey ? ['user role'] : ['user role', 'OAuth application'];
    for (const kind of principals) {
      it(`${key} (${scope}) with a ${kind}`, async () => {
        const credentialFor = async (scopes: string[]) => {
          if (kind === 'OAuth application') return { token: (await applicationWith(scopes)).token };
          const user = await userWith(scopes);
          return apiKey ? { apiKey: user.apiKey } : { token: user.token };
        };
        expect(covers(allBut(scope), scope)).toBe(false);

        const allowed = await REQUESTS[key]!(scope);
        const ok = await call(sandbox, method, allowed.path, { ...(await credentialFor([scope])), body: allowed.body });
        expect(ok.status, `${key} with only ${scope}: ${ok.text.slice(0, 300)}`).toBeLessThan(300);

        const denied = await REQUESTS[key]!(scope);
        const refused = await call(sandbox, method, denied.path, { ...(await credentialFor(allBut(scope))), body: denied.body });
        expect(refused.status, `${key} without ${scope}: ${refused.text.slice(0, 300)}`).toBe(403);
        expect(refused.body).toEqual({
          statusCode: 403, error: 'FORBIDDEN', message: `this token lacks scope ${scope}, which ${key} requires`, details: { requiredScope: scope },
        });
      }, 30_000);
    }
  }

  test('a refused write changes nothing: the card stays active, no application is created', async () => {
    const card = await createCard(sandbox);
    const reader = await applicationWith(['READ']);
    expect((await call<DataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards/${card.id}/deactivate`, { token: reader.token })).status).toBe(403);
    const before = (await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', '/institutions/oauth/applications?limit=1', { token: sandbox.token })).body.pagination.total;
    const created = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', {
      token: reader.token, body: { name: 'escalate', publicKey: certificate.certificatePem, scopes: ['*'], grantType: 'client_credentials' },
    });
    expect(created.status).toBe(403);
    expect(errorOf(created).details).toEqual({ requiredScope: 'create:oauth' });
    expect((await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', '/institutions/oauth/applications?limit=1', { token: sandbox.token })).body.pagination.total).toBe(before);
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${card.id}`, { token: reader.token })).body.data[0].status).toBe('active');
  });

  test('the scope is checked before the body: an invalid body from a caller without the scope is a 403, not a 400', async () => {
    const reader = await userWith(['read:card']);
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: reader.token, body: { clearly: 'invalid' } });
    expect(response.status).toBe(403);
  });

  test('READ reads everything and writes nothing; WRITE writes and reads nothing', async () => {
    const reader = await applicationWith(['READ']);
    const writer = await applicationWith(['WRITE']);
    for (const path of ['/institutions/cards', '/institutions/transactions', '/institutions/oauth/applications', '/sandbox/card-programs']) {
      expect((await call(sandbox, 'GET', path, { token: reader.token })).status, path).toBe(200);
      expect((await call(sandbox, 'GET', path, { token: writer.token })).status, path).toBe(403);
    }
    expect((await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: reader.token, body: createCardBody(sandbox) })).status).toBe(403);
    expect((await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: writer.token, body: createCardBody(sandbox) })).status).toBe(201);
  });
});

describe('users: checked on every request', () => {
  const userBody = (changes: Record<string, unknown>) => ({
    firstName: 'Ada', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678', status: 'active', isBlocked: false,
    roles: [{ role: 'admin', permissions: ['*'] }], ...changes,
  });
  const update = (userId: string, changes: Record<string, unknown>, token = sandbox.token) => call<DataEnvelope<InstitutionUser>>(sandbox, 'PUT', `/institutions/users/${userId}/update`, { token, body: userBody(changes) });

  test('a blocked user\'s token and API key stop working at once, and work again when unblocked', async () => {
    const user = await userWith(['*']);
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: user.token })).status).toBe(200);
    expect((await update(user.userId, { isBlocked: true })).status).toBe(200);
    for (const [method, path, credentials, body] of [
      ['GET', '/institutions/cards', { token: user.token }, undefined],
      ['POST', '/institutions/oauth/create', { token: user.token }, { name: 'x', publicKey: certificate.certificatePem, scopes: ['*'], grantType: 'client_credentials' }],
      ['PUT', `/institutions/users/${user.userId}/update`, { token: user.token }, userBody({})],
      ['POST', '/util/cards/import', { apiKey: user.apiKey }, validImportRow({ realId: 'BLOCKED-1', institutionId: sandbox.institutionId })],
    ] as const) {
      const response = await call(sandbox, method, path, { ...credentials, body });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.body).toMatchObject({ error: 'UNAUTHORIZED', message: expect.stringMatching(/user of this (token|API key) is blocked/) });
    }
    expect((await update(user.userId, { isBlocked: false })).status).toBe(200);
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: user.token })).status).toBe(200);
  });

  test.each(['inactive', 'suspended', 'Active', 'pending'])('status "%s" is not active: 401', async (status) => {
    const user = await userWith(['*']);
    const changed = await update(user.userId, { status });
    expect(changed.status).toBe(200);
    const response = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: user.token });
    expect(response.status).toBe(401);
    expect(response.body.message).toMatch(/is not active/);
  });

  test('roles: [] holds no scope: every operation is a 403 naming its scope', async () => {
    const user = await userWith(['*']);
    expect((await update(user.userId, { roles: [] })).status).toBe(200);
    for (const [key, scope] of Object.entries(TABLE)) {
      const { method, apiKey } = operationOf(key);
      const request = await REQUESTS[key]!(scope);
      const response = await call(sandbox, method, request.path, { ...(apiKey ? { apiKey: user.apiKey } : { token: user.token }), body: request.body });
      expect(response.status, key).toBe(403);
      expect(errorOf(response).details).toEqual({ requiredScope: scope });
    }
  });

  test('a role name grants nothing by itself; permissions must have the scope form', async () => {
    const user = await userWith([]);
    expect((await update(user.userId, { roles: [{ role: 'admin', permissions: [] }] })).status).toBe(200);
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: user.token })).status).toBe(403);
    const bad = await update(user.userId, { roles: [{ role: 'admin', permissions: ['everything'] }] });
    expect(bad.status).toBe(400);
    expect(fieldErrorsOf(bad)[0].field).toMatch(/^roles\[0\]\.permissions/);
  });
});

describe('applications: checked on every request', () => {
  test('a scope removed from an application is gone from its tokens at the next request; one added needs a new token', async () => {
    const app = await applicationWith(['read:card', 'read:transaction']);
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: app.token })).status).toBe(200);
    const narrowed = await call<DataEnvelope<OAuthApplication>>(sandbox, 'PUT', `/institutions/oauth/${app.id}`, {
      token: sandbox.token, body: { name: 'narrowed', description: '', websiteUrl: 'https://example.com', scopes: ['read:transaction', 'create:card'] },
    });
    expect(narrowed.status, narrowed.text).toBe(200);
    const read = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: app.token });
    expect(read.status).toBe(403);
    expect(errorOf(read).details).toEqual({ requiredScope: 'read:card' });
    expect((await call<ListDataEnvelope<Transaction>>(sandbox, 'GET', '/institutions/transactions', { token: app.token })).status).toBe(200);
    // create:card was added after the token was issued: the old token lacks it, a new one has it.
    expect((await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: app.token, body: createCardBody(sandbox) })).status).toBe(403);
    expect((await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: await tokenFor(app.clientId), body: createCardBody(sandbox) })).status).toBe(201);
  });

  test('the tokens of a deleted application stop working, and it gets no new ones', async () => {
    const app = await applicationWith(['*']);
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: app.token })).status).toBe(200);
    const { store } = sandbox.deps;
    const stored = store.oauthApplications.get(sandbox.institutionId, app.id)!;
    store.transaction(() => store.oauthApplications.update({ ...stored.application, isDeleted: true }));
    const response = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: app.token });
    expect(response.status).toBe(401);
    expect(response.body.message).toMatch(/application of this token no longer exists/);
    const assertion = await clientAssertion({ clientId: app.clientId, audience: `${sandbox.baseUrl}/oauth/token`, privateKeyPem: certificate.privateKeyPem });
    const token = await call<TokenResponse>(sandbox, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: app.clientId, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion },
    });
    expect(token.status).toBe(401);
  });
});

describe('no caller grants what it lacks', () => {
  const appBody = (scopes: string[]) => ({ name: 'child', publicKey: certificate.certificatePem, scopes, grantType: 'client_credentials' });
  const updateBody = (scopes: string[]) => ({ name: 'changed', description: '', websiteUrl: 'https://example.com', scopes });

  test.each([
    [['create:oauth'], ['*'], '*'],
    [['create:oauth'], ['READ'], 'READ'],
    [['create:oauth', 'read:card'], ['read:card', 'create:card'], 'create:card'],
    [['create:oauth', 'WRITE'], ['WRITE', 'READ'], 'READ'],
    [['create:oauth', 'READ'], ['read:card', 'WRITE'], 'WRITE'],
  ])('an application with %j cannot create one with %j (403 naming %s)', async (held, asked, missing) => {
    const app = await applicationWith(held);
    const response = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', { token: app.token, body: appBody(asked) });
    expect(response.status, response.text).toBe(403);
    expect(response.body).toMatchObject({ error: 'FORBIDDEN', message: expect.stringContaining(`lacks scope ${missing}`), details: { requiredScope: missing } });
  });

  test('within its own scopes it can (WRITE covers create:card, READ covers read:card)', async () => {
    const app = await applicationWith(['create:oauth', 'READ', 'WRITE']);
    const response = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', { token: app.token, body: appBody(['read:card', 'create:card', 'READ']) });
    expect(response.status, response.text).toBe(201);
  });

  test('an application cannot raise its own scopes, nor change a wider application', async () => {
    const app = await applicationWith(['update:oauth', 'read:card']);
    for (const scopes of [['*'], ['update:oauth', 'read:card', 'create:card'], ['WRITE']]) {
      const response = await call<DataEnvelope<OAuthApplication>>(sandbox, 'PUT', `/institutions/oauth/${app.id}`, { token: app.token, body: updateBody(scopes) });
      expect(response.status, JSON.stringify(scopes)).toBe(403);
    }
    const wide = await applicationWith(['*']);
    const rename = await call<DataEnvelope<OAuthApplication>>(sandbox, 'PUT', `/institutions/oauth/${wide.clientId}`, { token: app.token, body: updateBody(['read:card']) });
    expect(rename.status).toBe(403);
    expect(errorOf(rename).details).toEqual({ requiredScope: '*' });
    const list = await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', `/institutions/oauth/applications?search=${wide.clientId}`, { token: sandbox.token });
    expect(list.body.data[0].scopes).toEqual(['*']);
    // Narrowing itself is allowed.
    expect((await call<DataEnvelope<OAuthApplication>>(sandbox, 'PUT', `/institutions/oauth/${app.id}`, { token: app.token, body: updateBody(['update:oauth']) })).status).toBe(200);
  });

  test('a user with update:user cannot give itself or anyone a permission it lacks, nor block or demote a wider user', async () => {
    const user = await userWith(['update:user', 'read:card']);
    const body = (roles: unknown[], changes: Record<string, unknown> = {}) => ({
      firstName: 'Ada', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678', status: 'active', isBlocked: false, roles, ...changes,
    });
    const self = await call<DataEnvelope<InstitutionUser>>(sandbox, 'PUT', `/institutions/users/${user.userId}/update`, { token: user.token, body: body([{ role: 'admin', permissions: ['*'] }]) });
    expect(self.status).toBe(403);
    expect(errorOf(self).details).toEqual({ requiredScope: '*' });
    const other = await userWith([]);
    const escalate = await call<DataEnvelope<InstitutionUser>>(sandbox, 'PUT', `/institutions/users/${other.userId}/update`, { token: user.token, body: body([{ role: 'ops', permissions: ['create:card'] }]) });
    expect(escalate.status).toBe(403);
    expect(errorOf(escalate).details).toEqual({ requiredScope: 'create:card' });
    const block = await call<DataEnvelope<InstitutionUser>>(sandbox, 'PUT', `/institutions/users/${sandbox.userId}/update`, { token: user.token, body: body([], { isBlocked: true }) });
    expect(block.status).toBe(403);
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: sandbox.token })).status).toBe(200);
    // Within its own scopes it can.
    const within = await call<DataEnvelope<InstitutionUser>>(sandbox, 'PUT', `/institutions/users/${other.userId}/update`, { token: user.token, body: body([{ role: 'reader', permissions: ['read:card'] }]) });
    expect(within.status, within.text).toBe(200);
  });

  test('POST /sandbox/users: roles within the caller\'s scopes only', async () => {
    const user = await userWith(['create:user', 'read:card']);
    const refused = await call<DataEnvelope<SandboxUserCredentials>>(sandbox, 'POST', '/sandbox/users', { token: user.token, body: { roles: [{ role: 'x', permissions: ['read:card', 'READ'] }] } });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).details).toEqual({ requiredScope: 'READ' });
    const made = await call<DataEnvelope<SandboxUserCredentials>>(sandbox, 'POST', '/sandbox/users', { token: user.token, body: { roles: [{ role: 'x', permissions: ['read:card'] }] } });
    expect(made.status).toBe(201);
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: made.body.data.token })).status).toBe(200);
    expect((await call<ListDataEnvelope<Transaction>>(sandbox, 'GET', '/institutions/transactions', { token: made.body.data.token })).status).toBe(403);
  });

  test('the seeded token holds *: every scope', async () => {
    for (const scope of [...ALL_SCOPES, 'READ', 'WRITE', '*']) {
      const response = await call<DataEnvelope<SandboxUserCredentials>>(sandbox, 'POST', '/sandbox/users', { token: sandbox.token, body: { roles: [{ role: 'x', permissions: [scope] }] } });
      expect(response.status, scope).toBe(201);
    }
  });
});
