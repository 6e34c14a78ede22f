// The query parameters of every list route, read from /openapi.json: a value outside the bounds
// the schema declares is a 400 naming the parameter, and no rejected or failed list leaves
// anything behind (a prepared statement, a cached page) that breaks the next one, of this
// institution or another.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LIST_BOUNDS, type Card, type SandboxInstitutionCredentials } from '../../src/api/schemas.js';
import { call, createCard, startTestSandbox, type Sandbox, errorOf, fieldErrorsOf, type DataEnvelope, type ListDataEnvelope } from './helpers.js';

interface QueryParameter { name: string; schema: { type?: string; format?: string; maximum?: number; minimum?: number; maxLength?: number; anyOf?: unknown[] } }
interface ListRoute { path: string; parameters: QueryParameter[] }

let sandbox: Sandbox;
let otherToken = '';
let routes: ListRoute[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  await createCard(sandbox);
  otherToken = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Bystander Bank' } })).body.data.token;
  const doc = (await call(sandbox, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: Array<QueryParameter & { in: string }> }>> };
  routes = Object.entries(doc.paths)
    // A list route is one that pages: GET /sandbox/webhook-faults takes a query (programId) but is no list.
    .filter(([, methods]) => methods.get?.parameters?.some((p) => p.in === 'query' && p.name === 'page'))
    .map(([path, methods]) => ({ path, parameters: methods.get!.parameters!.filter((p) => p.in === 'query') }));
}, 30_000);

afterAll(async () => { await sandbox?.close(); });

/** Values each parameter's declared schema rejects, derived from that schema. */
function outOfBounds(parameter: QueryParameter): string[] {
  const { schema } = parameter;
  if (schema.type === 'integer') {
    return [
      String((schema.maximum ?? 0) + 1), '500000000000000000', String(2 ** 64), '1e400', '-1', '0', '1.5', 'abc', '١',
    ];
  }
  if (schema.type === 'string' && schema.format === 'date-time') return ['yesterday', '2026-13-45T99:00:00Z', `2026-01-01T00:00:00${'0'.repeat(schema.maxLength ?? 100)}Z`];
  if (schema.type === 'string' && schema.maxLength !== undefined) return ['x'.repeat(schema.maxLength + 1), 'é'.repeat(schema.maxLength + 1)];
  if (schema.type === 'boolean') return ['maybe', 'yes'];
  if (schema.anyOf) return ['bogus', 'ACTIVE'];
  return [];
}

async function ordinaryListsAnswer(path: string): Promise<void> {
  for (const token of [sandbox.token, otherToken]) {
    const response = await call(sandbox, 'GET', path, { token });
    expect(response.status, `${path} after a rejected query: ${response.text}`).toBe(200);
    // And again past any cache: a filtered page is assembled from the store.
    const fresh = await call(sandbox, 'GET', `${path}?limit=7&page=2`, { token });
    expect(fresh.status, fresh.text).toBe(200);
  }
}

describe('list query parameters', () => {
  test('every list route declares bounds for each of its query parameters', () => {
    expect(routes.map((r) => r.path).sort()).toEqual(['/institutions/cards', '/institutions/oauth/applications', '/institutions/transactions', '/sandbox/webhook-exchanges']);
    for (const route of routes) {
      for (const parameter of route.parameters) {
        expect(outOfBounds(parameter).length, `${route.path} ${parameter.name} is bounded`).toBeGreaterThan(0);
      }
      const page = route.parameters.find((p) => p.name === 'page')!;
      expect(page.schema.maximum).toBe(LIST_BOUNDS.maxPage);
      expect(route.parameters.find((p) => p.name === 'limit')!.schema.maximum).toBe(LIST_BOUNDS.maxLimit);
    }
  });

  test('a value outside the declared bounds is a 400 naming the parameter; lists of every institution still answer', async () => {
    for (const route of routes) {
      for (const parameter of route.parameters) {
        for (const value of outOfBounds(parameter)) {
          const query = new URLSearchParams({ [parameter.name]: value }).toString();
          const response = await call(sandbox, 'GET', `${route.path}?${query}`, { token: sandbox.token });
          const where = `${route.path}?${parameter.name}=${value.slice(0, 20)} → ${response.status} ${response.text.slice(0, 200)}`;
          expect(response.status, where).toBe(400);
          expect(errorOf(response).error, where).toBe('VALIDATION_ERROR');
          expect(fieldErrorsOf(response)[0].field, where).toBe(parameter.name);
          expect(errorOf(response).message.startsWith(`${parameter.name} `), where).toBe(true);
          expect(response.text, where).not.toMatch(/Sqlite|at \w+ \(|node_modules/);
        }
      }
      await ordinaryListsAnswer(route.path);
    }
  });

  test('the values at the bounds are accepted', async () => {
    for (const route of routes) {
      const response = await call<ListDataEnvelope<unknown>>(sandbox, 'GET', `${route.path}?page=${LIST_BOUNDS.maxPage}&limit=${LIST_BOUNDS.maxLimit}`, { token: sandbox.token });
      expect(response.status, response.text).toBe(200);
      expect(response.body.data).toEqual([]);
      expect(response.body.pagination).toMatchObject({ page: LIST_BOUNDS.maxPage, limit: LIST_BOUNDS.maxLimit });
    }
    const search = 'x'.repeat(LIST_BOUNDS.maxText);
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?search=${search}`, { token: sandbox.token })).status).toBe(200);
  });

  test('a 100 KB filter: the 400 naming the parameter and its bound, not a bare 431 from the HTTP server', async () => {
    const response = await call(sandbox, 'GET', `/institutions/cards?search=${'x'.repeat(100 * 1024)}`, { token: sandbox.token });
    expect(response.status).toBe(400);
    expect(fieldErrorsOf(response)[0].field).toBe('search');
    expect(response.text).toContain(String(LIST_BOUNDS.maxText));
  });

  test('the page from the report: rejected, and every institution\'s Get Cards answers afterwards', async () => {
    const poison = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?page=500000000000000000', { token: sandbox.token });
    expect(poison.status).toBe(400);
    expect(poison.body.message).toBe(`page must be at most ${LIST_BOUNDS.maxPage}`);
    const repeated = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?page=1&page=2', { token: sandbox.token });
    expect(repeated.status).toBe(400);
    expect(fieldErrorsOf(repeated)[0].field).toBe('page');
    await ordinaryListsAnswer('/institutions/cards');
    const mine = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?search=ada', { token: sandbox.token });
    expect(mine.body.data).toHaveLength(1);
  });
});
