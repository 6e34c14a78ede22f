// Tenancy, exhaustively: every authenticated operation of /openapi.json is called by institution
// B with institution A's ids and a valid body. Anything addressed by id answers 404; lists and
// searches come back without A's records; no answer carries any of A's data. Then every
// operation with the credentials swapped (API key on bearer routes, bearer on the API-key
// route): 401. A route added without a case here fails the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createCard, createCardBody, encryptPin, startTestSandbox, type OpenApiPaths, type Sandbox, errorOf, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { makeCertificate } from './oauth-helpers.js';
import { auth, clearPan, simulate } from './switch-helpers.js';
import type { Card, Transaction, CardProgram, OAuthApplication, SandboxInstitutionCredentials } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';

let sandbox: Sandbox;
/** Institution B: its own token, key and program. */
let other: { institutionId: string; token: string; apiKey: string; cardProgramId: string; userId?: string };
const A: Record<string, string> = {};
/** Strings that belong to A and must never reach B. */
let secretsOfA: string[] = [];
let operations: Array<{ method: string; path: string; security: 'bearer' | 'apiKey' }> = [];

const customer = {
  firstName: 'Alpha', middleName: '', lastName: 'Owner', emailAddress: 'owner@alpha-bank.example', phoneNumber: '+15550100', dateOfBirth: '1980-01-01T00:00:00.000Z',
  address: { line1: '7 Alpha Road', line2: '', city: 'Alphaville', state: 'AL', country: 'NG', postalCode: '100001' },
};

beforeAll(async () => {
  sandbox = await startTestSandbox();
  const created = await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Bravo Bank' } });
  other = created.body.data;
  // A's records: a card (with a recognisable cardholder), a transaction, an OAuth application.
  const card = await createCard(sandbox, { customer, referenceCode: 'ALPHA-REF-0001', embossingName: 'ALPHA OWNER' });
  // RRNs are YDDDHH + the institution's own STAN, so B's first transaction of an hour has the
  // same RRN as A's first of that hour without learning anything from A: A's is dated apart.
  const tx = await simulate(sandbox, auth(card.id, { amount: 4242, transactionDate: '2028-02-03T04:05:06.000Z' }));
  expect(tx.status, tx.text).toBe(200);
  const app = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', {
    token: sandbox.token,
    body: { name: 'Alpha ledger', publicKey: makeCertificate().certificatePem, scopes: ['read:card'], grantType: 'client_credentials' },
  });
  expect(app.status, app.text).toBe(201);
  Object.assign(A, {
    cardId: card.id, pan: clearPan(sandbox, card.id), maskedPan: card.pan, txId: tx.body.data.transactionId, rrn: tx.body.data.rrn,
    appId: app.body.data.institutionId, userId: sandbox.userId, programId: sandbox.cardProgramId, institutionId: sandbox.institutionId,
  });
  // An exchange of A's (the transaction ran in stub mode: put in the log as the switch would).
  A.exchangeId = 'wx_alpha0000000000000000001';
  sandbox.deps.exchanges.add(sandbox.institutionId, {
    id: A.exchangeId, at: new Date().toISOString(), transactionId: A.txId!, originalId: null, cardId: A.cardId!, kind: 'authorization', mti: '0100',
    attempt: 1, replayOf: null, signatureScheme: 'cardctl', request: { method: 'POST', url: 'http://127.0.0.1:9/', headers: {}, body: { '2': A.maskedPan } },
    response: null, latencyMs: 0, verdict: 'no-answer', reason: 'unreachable', responseCode: null, faults: [],
  }, { '0': '0100', '2': A.pan! });
  secretsOfA = [A.exchangeId, A.cardId!, A.pan!, A.maskedPan!, A.txId!, A.rrn!, A.appId!, A.userId!, A.programId!, A.institutionId!, sandbox.token, sandbox.apiKey,
    'owner@alpha-bank.example', 'Alphaville', 'ALPHA OWNER', 'ALPHA-REF-0001', 'Alpha ledger'];
  const doc = (await call(sandbox, 'GET', '/openapi.json')).body as { paths: OpenApiPaths };
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const security = op.security?.[0] ?? {};
      if (security.bearerAuth) operations.push({ method: method.toUpperCase(), path, security: 'bearer' });
      else if (security.apiKey) operations.push({ method: method.toUpperCase(), path, security: 'apiKey' });
    }
  }
}, 30_000);

afterAll(async () => { await sandbox?.close(); });

type Expectation = 404 | 403 | 'own-data-only' | 'declined';
interface Case { path: string; body?: () => unknown; expect: Expectation }

const expiration = () => `${new Date().getUTCFullYear() + 2}01`;
/** Every authenticated operation, called by B against A's records. */
const CASES: Record<string, () => Case> = {
  'GET /institutions/cards': () => ({ path: `/institutions/cards?cardId=${A.cardId}`, expect: 'own-data-only' }),
  'POST /institutions/cards': () => ({ path: '/institutions/cards', body: () => createCardBody(sandbox, { cardProgram: A.programId }), expect: 404 }),
  'GET /institutions/cards/{cardId}/activate': () => ({ path: `/institutions/cards/${A.cardId}/activate`, expect: 404 }),
  'GET /institutions/cards/{cardId}/deactivate': () => ({ path: `/institutions/cards/${A.cardId}/deactivate`, expect: 404 }),
  'PUT /institutions/cards/{cardId}/customer': () => ({ path: `/institutions/cards/${A.cardId}/customer`, body: () => ({ ...customer, firstName: 'Mallory' }), expect: 404 }),
  'PUT /institutions/cards/{cardId}/renew': () => ({ path: `/institutions/cards/${A.cardId}/renew`, body: () => ({ expiration: expiration(), renewReason: 'RENEW' }), expect: 404 }),
  'PUT /institutions/cards/pin/{cardId}/change': () => ({ path: `/institutions/cards/pin/${A.cardId}/change`, body: () => ({ oldPIN: encryptPin(sandbox, '1234'), newPIN: encryptPin(sandbox, '9876') }), expect: 404 }),
  'PUT /institutions/cards/pin/{cardId}/reset': () => ({ path: `/institutions/cards/pin/${A.cardId}/reset`, body: () => ({ newPIN: encryptPin(sandbox, '9876') }), expect: 404 }),
  'POST /institutions/{switch}/simulate': () => ({ path: '/institutions/switch/simulate', body: () => auth(A.cardId!, { amount: 100 }), expect: 'declined' }),
  'GET /institutions/transactions': () => ({ path: '/institutions/transactions?limit=100', expect: 'own-data-only' }),
  'GET /institutions/transactions/{id}': () => ({ path: `/institutions/transactions/${A.txId}`, expect: 404 }),
  'GET /institutions/oauth/applications': () => ({ path: '/institutions/oauth/applications?limit=100', expect: 'own-data-only' }),
  'POST /institutions/oauth/create': () => ({ path: '/institutions/oauth/create', body: () => ({ name: 'Bravo app', publicKey: makeCertificate().certificatePem, scopes: ['read:card'], grantType: 'client_credentials' }), expect: 'own-data-only' }),
  'PUT /institutions/oauth/{institutionId}': () => ({ path: `/institutions/oauth/${A.appId}`, body: () => ({ name: 'Taken', description: 'x', websiteUrl: 'https://bravo.example', scopes: ['read:card'] }), expect: 404 }),
  'PUT /institutions/users/{institutionUserId}/update': () => ({ path: `/institutions/users/${A.userId}/update`, body: () => ({ firstName: 'M', lastName: 'B', emailAddress: 'm@b.co', phoneNumber: '+15550100', status: 'active', isBlocked: false, roles: [] }), expect: 404 }),
  'GET /sandbox/card-programs': () => ({ path: '/sandbox/card-programs', expect: 'own-data-only' }),
  'POST /sandbox/card-programs': () => ({ path: '/sandbox/card-programs', body: () => ({ name: 'Bravo program' }), expect: 'own-data-only' }),
  'POST /sandbox/users': () => ({ path: '/sandbox/users', body: () => ({ firstName: 'Bravo', roles: [{ role: 'ops', permissions: ['read:card'] }] }), expect: 'own-data-only' }),
  'PUT /sandbox/card-programs/{id}': () => ({ path: `/sandbox/card-programs/${A.programId}`, body: () => ({ name: 'Taken' }), expect: 404 }),
  'GET /sandbox/webhook-faults': () => ({ path: `/sandbox/webhook-faults?programId=${A.programId}`, expect: 404 }),
  'PUT /sandbox/webhook-faults': () => ({ path: '/sandbox/webhook-faults', body: () => ({ programId: A.programId, duplicate: 1 }), expect: 404 }),
  'POST /sandbox/switch/messages': () => ({ path: '/sandbox/switch/messages', body: () => ({ message: 'increment', originalTransactionId: A.txId, amount: 1 }), expect: 404 }),
  'POST /sandbox/transactions/{id}/repeat': () => ({ path: `/sandbox/transactions/${A.txId}/repeat`, body: () => ({}), expect: 404 }),
  'POST /sandbox/transactions/{id}/expire': () => ({ path: `/sandbox/transactions/${A.txId}/expire`, expect: 404 }),
  'GET /sandbox/transactions/{id}/lifecycle': () => ({ path: `/sandbox/transactions/${A.txId}/lifecycle`, expect: 404 }),
  'GET /sandbox/webhook-exchanges': () => ({ path: `/sandbox/webhook-exchanges?transactionId=${A.txId}&limit=100`, expect: 'own-data-only' }),
  'GET /sandbox/webhook-exchanges/{id}': () => ({ path: `/sandbox/webhook-exchanges/${A.exchangeId}`, expect: 404 }),
  'POST /sandbox/card-pool': () => ({ path: '/sandbox/card-pool', body: () => ({ cardIds: [A.cardId] }), expect: 404 }),
  'POST /sandbox/webhook-exchanges/{id}/replay': () => ({ path: `/sandbox/webhook-exchanges/${A.exchangeId}/replay`, body: () => ({}), expect: 404 }),
  'POST /util/cards/import': () => ({
    path: '/util/cards/import',
    body: () => ({
      realId: 'bravo-1', active: true, startDate: '2024-01-01', endDate: '2028-12-31', firstName: 'M', lastName: 'B', middleName: '', email: 'm@b.co',
      address1: '1 Road', address2: '', city: 'Lagos', state: 'Lagos', zip: '100001', country: 'NG', birthDate: '1990-01-31', phone: '+2348012345678',
      institutionId: A.institutionId, card: { expiration: '202812', serviceCode: '101', cardProduct: 'classic', embossingName: 'M B', defaultPIN: '1234', bin: '506099', cardState: 'active' },
      returnSecure: false,
    }),
    expect: 403,
  }),
};

describe('tenancy over every authenticated route', () => {
  it('the route table is covered: a case for every bearer and API-key operation', () => {
    expect(operations.length).toBeGreaterThanOrEqual(18);
    expect(operations.map((o) => `${o.method} ${o.path}`).filter((key) => !CASES[key])).toEqual([]);
  });

  it("institution B with A's ids: 404 (or its own data only), and nothing of A's in any answer", async () => {
    for (const op of operations) {
      const key = `${op.method} ${op.path}`;
      const c = CASES[key]!();
      const credentials = op.security === 'apiKey' ? { apiKey: other.apiKey } : { token: other.token };
      const body = c.body?.();
      const response = await call(sandbox, op.method, c.path, { ...credentials, body });
      // An id B sent may be echoed in the error ("card X not found"): only what B did not send is a leak.
      const sent = `${c.path} ${JSON.stringify(body ?? '')}`;
      const leaked = secretsOfA.filter((s) => response.text.includes(s) && !sent.includes(s));
      expect(leaked, `${key} leaked A's data: ${response.text.slice(0, 300)}`).toEqual([]);
      if (typeof c.expect === 'number') {
        expect(response.status, `${key}: ${response.text.slice(0, 200)}`).toBe(c.expect);
        expect(errorOf(response).error).toBe(c.expect === 404 ? 'NOT_FOUND' : 'FORBIDDEN');
      } else if (c.expect === 'declined') {
        // The switch answers every message; for another institution's card it is "no such card".
        expect(response.status, response.text).toBeLessThan(500);
        if (response.status === 200) expect(response.body).toMatchObject({ data: { responseCode: '14' } });
      } else {
        expect(response.status, `${key}: ${response.text.slice(0, 200)}`).toBeLessThan(300);
      }
    }
    // A's records are as they were.
    const mine = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${A.cardId}`, { token: sandbox.token });
    expect(mine.body.data[0]).toMatchObject({ status: 'active', customer: { firstName: 'Alpha' }, pinAttempts: 0 });
    const apps = await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', '/institutions/oauth/applications?limit=100', { token: sandbox.token });
    expect(apps.body.data.map((a: { name: string }) => a.name)).toContain('Alpha ledger');
    const programs = await call<DataEnvelope<CardProgram[]>>(sandbox, 'GET', '/sandbox/card-programs', { token: sandbox.token });
    expect(present(programs.body.data.find((p: { id: string }) => p.id === A.programId)).name).not.toBe('Taken');
    const txs = await call<ListDataEnvelope<Transaction>>(sandbox, 'GET', '/institutions/transactions?limit=100', { token: sandbox.token });
    expect(txs.body.data.filter((t: { id: string }) => t.id === A.txId)).toHaveLength(1);
  });

  it('A sees none of B\'s records either (searches included)', async () => {
    const bravoCard = await createCard(sandbox, { cardProgram: other.cardProgramId, referenceCode: 'BRAVO-REF-0001', defaultPIN: encryptPin(sandbox, '1234') }, other.token);
    for (const path of [`/institutions/cards?cardId=${bravoCard.id}`, '/institutions/cards?search=BRAVO-REF', `/institutions/cards/${bravoCard.id}/activate`]) {
      const response = await call(sandbox, 'GET', path, { token: sandbox.token });
      if (!path.includes(bravoCard.id)) expect(response.text).not.toContain(bravoCard.id);
      expect(response.text).not.toContain('BRAVO-REF-0001');
      expect(response.text).not.toContain(bravoCard.pan);
      if (response.status === 200) expect(response.body).toHaveProperty('data', []);
      else expect(response.status).toBe(404);
    }
  });

  it('credentials swapped: the API key on every bearer route and the token on the API-key route are 401, with valid bodies', async () => {
    for (const op of operations) {
      const c = CASES[`${op.method} ${op.path}`]!();
      const path = c.path; // A's own ids: only the credential type is wrong
      const swapped = op.security === 'bearer'
        ? [{ apiKey: sandbox.apiKey }, { token: sandbox.apiKey }]
        : [{ token: sandbox.token }, { apiKey: sandbox.token }];
      for (const credentials of swapped) {
        const body = op.security === 'apiKey' ? { ...(c.body!() as object), institutionId: sandbox.institutionId } : c.body?.();
        const response = await call(sandbox, op.method, path, { ...credentials, body });
        expect(response.status, `${op.method} ${op.path} ${Object.keys(credentials)[0]}`).toBe(401);
        expect(errorOf(response).error).toBe('UNAUTHORIZED');
        expect(secretsOfA.filter((s) => s !== A.cardId && s !== A.appId && s !== A.userId && s !== A.programId && s !== A.txId && response.text.includes(s))).toEqual([]);
      }
    }
  });
});
