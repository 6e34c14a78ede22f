// Fuzzing the sandbox's routes: for every operation in /openapi.json, random bodies shaped by
// its request schema (right names, random values) and off-schema ones (any JSON, wrong types,
// not JSON at all), random path and query values. Every answer must be a 2xx or a 4xx in the
// error envelope, never a 5xx, and /sandbox/health must still answer afterwards. The query
// parameters of every list route get their own run (huge, negative, fractional and non-ASCII
// numbers, any text, repeated and malformed parameters), after which ordinary lists of every
// institution must still answer.
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createCard, startTestSandbox, type OpenApiPaths, type Sandbox, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { makeCertificate } from './oauth-helpers.js';
import { auth, simulate } from './switch-helpers.js';
import type { Card, OAuthApplication, SandboxHealth, SandboxInstitutionCredentials } from '../../src/api/schemas.js';

const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; const?: unknown; anyOf?: Schema[]; oneOf?: Schema[]; format?: string; pattern?: string };
interface Operation { method: string; path: string; auth: 'bearer' | 'apiKey' | 'none'; body?: Schema; contentTypes: string[]; query: string[] }

/** Values that fit a schema's shape loosely: right keys, types mostly right, contents random. */
function shaped(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices?.length) return fc.oneof(...choices.map((s) => shaped(s, depth + 1)));
  if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), fc.string({ maxLength: 8 }));
  if (schema.const !== undefined) return fc.constant(schema.const);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const props = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, shaped(s, depth + 1)]));
      return fc.record(props, { requiredKeys: [] });
    }
    case 'array': return fc.array(shaped(schema.items, depth + 1), { maxLength: 3 });
    case 'integer': return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 53, 1e300));
    case 'number': return fc.oneof(fc.double(), fc.integer());
    case 'boolean': return fc.boolean();
    case 'string': return fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('', '2024-01-01T00:00:00.000Z', '202812', '4111111111111111', 'a'.repeat(5000), '\u0000', '../../etc/passwd', '{"$gt":""}'),
    );
    default: return fc.jsonValue({ maxDepth: 2 });
  }
}

let sandbox: Sandbox;
let operations: Operation[] = [];
let cardId = '';

beforeAll(async () => {
  sandbox = await startTestSandbox();
  cardId = (await createCard(sandbox)).id;
  // A record in every list, so that each list's page query runs (an empty list stops at its count).
  const transaction = await simulate(sandbox, auth(cardId));
  expect(transaction.status, transaction.text).toBe(200);
  const application = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', {
    token: sandbox.token,
    body: { name: 'Fuzzed list', publicKey: makeCertificate().certificatePem, scopes: ['read:card'], grantType: 'client_credentials' },
  });
  expect(application.status, application.text).toBe(201);
  const doc = (await call(sandbox, 'GET', '/openapi.json')).body as { paths: OpenApiPaths };
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const upper = method.toUpperCase();
      if (path === '/sandbox/faults') continue; // would switch fault injection on
      const security = JSON.stringify(op.security ?? []);
      const auth = security.includes('"apiKey"') ? 'apiKey' : security.includes('earer') ? 'bearer' : 'none';
      const content = op.requestBody?.content ?? {};
      const contentTypes = Object.keys(content);
      operations.push({
        method: upper, path, auth, contentTypes,
        body: contentTypes.length ? content[contentTypes[0]!]!.schema as Schema : undefined,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      });
    }
  }
}, 30_000);

afterAll(async () => { await sandbox?.close(); });

describe('sandbox routes under random input', () => {
  it('the route table is read from /openapi.json', () => {
    expect(operations.length).toBeGreaterThan(15);
    expect(operations.some((o) => o.auth === 'apiKey')).toBe(true);
  });

  it('every operation: never a 5xx, 4xx always in the error envelope; healthy afterwards', async () => {
    const pathValue = fc.oneof(fc.constant(() => cardId), fc.string({ maxLength: 30 }).map((s) => () => s), fc.constantFrom(() => 'switch', () => '%00', () => '..', () => 'a'.repeat(300)));
    const bodyFor = (op: Operation) => fc.oneof(
      { weight: 3, arbitrary: shaped(op.body).map((v) => ({ text: JSON.stringify(v) ?? 'null', type: 'application/json' })) },
      { weight: 1, arbitrary: fc.jsonValue().map((v) => ({ text: JSON.stringify(v), type: 'application/json' })) },
      { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((s) => ({ text: s, type: 'application/json' })) },
      { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((s) => ({ text: s, type: fc.sample(fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml'), { seed: s.length, numRuns: 1 })[0]! })) },
    );
    const failures: string[] = [];
    const perOperation = Math.max(10, Math.round(FUZZ_RUNS / 4));
    for (const op of operations) {
      await fc.assert(fc.asyncProperty(
        bodyFor(op), pathValue, fc.dictionary(fc.constantFrom(...op.query, 'page', 'limit', 'x'), fc.oneof(fc.string({ maxLength: 12 }), fc.integer().map(String)), { maxKeys: 3 }),
        async (body, param, query) => {
          const path = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(param()));
          const qs = new URLSearchParams(query).toString();
          const headers: Record<string, string> = {};
          if (op.auth === 'bearer') headers.authorization = `Bearer ${sandbox.token}`;
          if (op.auth === 'apiKey') headers['x-api-key'] = sandbox.apiKey;
          const sendBody = op.method !== 'GET' && op.method !== 'DELETE';
          if (sendBody) headers['content-type'] = op.contentTypes.includes('application/x-www-form-urlencoded') && body.type === 'application/json' ? 'application/x-www-form-urlencoded' : body.type;
          const response = await request(`${sandbox.baseUrl}${path}${qs ? `?${qs}` : ''}`, { method: op.method as 'GET', headers, body: sendBody ? body.text : undefined });
          const text = await response.body.text();
          const where = `${op.method} ${path}?${qs} ${sendBody ? body.text.slice(0, 200) : ''} → ${response.statusCode} ${text.slice(0, 200)}`;
          if (response.statusCode >= 500) failures.push(where);
          expect(response.statusCode, where).toBeLessThan(500);
          if (response.statusCode >= 400) {
            const parsed = JSON.parse(text);
            expect(parsed, where).toMatchObject({ statusCode: response.statusCode, message: expect.any(String), error: expect.any(String) });
          }
        },
      ), { seed: SEED, numRuns: perOperation });
    }
    expect(failures).toEqual([]);
    const health = await call<SandboxHealth>(sandbox, 'GET', '/sandbox/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
  }, 180_000);

  it('list query parameters of every list route: never a 5xx or a stack trace; ordinary lists answer afterwards', async () => {
    // A list route is one that pages: GET /sandbox/webhook-faults takes a query (programId) but is no list.
    const lists = operations.filter((op) => op.method === 'GET' && op.query.includes('page'));
    expect(lists.map((op) => op.path).sort()).toEqual(['/institutions/cards', '/institutions/oauth/applications', '/institutions/transactions', '/sandbox/webhook-exchanges']);
    const number = fc.oneof(
      fc.bigInt({ min: 2n ** 40n, max: 2n ** 80n }).map(String),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.integer().map(String),
      fc.double({ noNaN: false }).map(String),
      fc.constantFrom('0', '-0', '-1', '1.5', '1e3', '1e400', '9007199254740993', '500000000000000000', '18446744073709551616', '0x10', ' 1', '1 ', '+1', 'Infinity', 'NaN', '١٢', '１'),
    );
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.constantFrom('', '%', '\\', '_', '\u0000', "'; DROP TABLE cards; --", 'a'.repeat(300), 'é'.repeat(257), 'active', 'ACTIVE', 'completed'),
    );
    // Raw query text: encoded pairs (repeated names allowed) and, sometimes, bytes sent as they are.
    const query = (op: Operation) => fc.array(fc.tuple(fc.constantFrom(...op.query, 'page', 'limit', 'x', '__proto__', 'constructor'), fc.oneof({ weight: 2, arbitrary: number }, { weight: 1, arbitrary: text })), { maxLength: 5 })
      .chain((pairs) => fc.oneof(
        { weight: 4, arbitrary: fc.constant(pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')) },
        { weight: 1, arbitrary: fc.constant(pairs.map(([k, v]) => `${k}=${v.replace(/[#\s]/g, '')}`).join('&')) },
        { weight: 1, arbitrary: fc.constantFrom('page', 'page=', '&&', '==', 'limit=1&limit=2&limit=3', 'page[]=1', 'page[a]=1', '%zz=1', 'search=%E0%A4%A', 'cardId=%00') },
      ));
    const failures: string[] = [];
    const perRoute = Math.max(50, FUZZ_RUNS);
    for (const op of lists) {
      await fc.assert(fc.asyncProperty(query(op), async (qs) => {
        const response = await request(`${sandbox.baseUrl}${op.path}?${qs}`, { method: 'GET', headers: { authorization: `Bearer ${sandbox.token}` } });
        const body = await response.body.text();
        const where = `GET ${op.path}?${qs.slice(0, 200)} → ${response.statusCode} ${body.slice(0, 200)}`;
        if (response.statusCode >= 500) failures.push(where);
        expect(response.statusCode, where).toBeLessThan(500);
        expect(body, where).not.toMatch(/\bat .+:\d+:\d+|node_modules|Sqlite|SQLITE_/);
        if (response.statusCode >= 400) {
          expect(JSON.parse(body), where).toMatchObject({ statusCode: response.statusCode, message: expect.any(String), error: expect.any(String) });
        }
      }), { seed: SEED, numRuns: perRoute });
    }
    expect(failures).toEqual([]);
    // Nothing is left broken: every list answers, for this institution and another one, on
    // the first page and on a later one.
    const other = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'After Fuzz Bank' } })).body.data.token as string;
    for (const op of lists) {
      for (const token of [sandbox.token, other]) {
        for (const qs of ['', '?page=2&limit=3']) {
          const response = await call(sandbox, 'GET', `${op.path}${qs}`, { token });
          expect(response.status, `${op.path}${qs}: ${response.text}`).toBe(200);
        }
      }
    }
    const cards = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${cardId}`, { token: sandbox.token });
    expect(cards.body.data.map((c: { id: string }) => c.id)).toEqual([cardId]);
  }, 300_000);
});
