// Fuzzing the sandbox's routes: for every operation in /openapi.json, random bodies shaped by
// its request schema (right names, random values) and off-schema ones (any JSON, wrong types,
// not JSON at all), random path and query values. Every answer must be a 2xx or a 4xx in the
// error envelope, never a 5xx, and /sandbox/health must still answer afterwards.
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createCard, startTestSandbox, type Sandbox } from './helpers.js';

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
  const doc = (await call(sandbox, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, any>> };
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
        body: contentTypes.length ? content[contentTypes[0]!].schema : undefined,
        query: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
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
    const health = await call(sandbox, 'GET', '/sandbox/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
  }, 180_000);
});
