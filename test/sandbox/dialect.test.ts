// A sandbox speaking another deployment dialect (startSandbox({ dialect }), as `sandbox serve
// --dialect FILE`): renamed list parameters, paging metadata elsewhere or none, a smaller page
// size limit, error bodies with their members elsewhere. /openapi.json documents the default
// dialect, so these calls skip the check against it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_DIALECT, LIST_NAMES, LIST_PATHS, type DialectOverrides } from '../../src/api/dialect.js';
import { ListCardsQuery, ListOAuthQuery, ListTransactionsQuery } from '../../src/api/schemas.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, createCard, type Sandbox } from './helpers.js';
import { present } from '../helpers/json.js';

const SHORT_PAGE: DialectOverrides = {
  params: {
    cards: { search: 'q', cardId: 'card_id', page: 'pageNumber', limit: 'pageSize' },
    transactions: { merchantId: 'merchant', terminalId: 'terminal', cardStatus: 'card_status', transactionStatus: 'status', page: 'p', limit: 'size' },
    oauth: { search: 'filter', page: 'page[number]', limit: 'page[size]' },
  },
  paging: { style: 'short-page' },
  maxPageSize: 50,
  errors: { message: 'error.detail', code: 'error.kind', fields: 'error.fields' },
};
const META: DialectOverrides = { paging: { pages: 'meta.pageCount', total: 'meta.count' }, errors: { code: 'code' } };

/**
 * An answer of a sandbox speaking a dialect: its members move with the dialect, so each is
 * optional here and a test asserts the ones it reads.
 */
interface DialectAnswer {
  statusCode?: number;
  message?: string;
  data?: Array<{ id: string }>;
  pagination?: unknown;
  meta?: { pageCount: number; count: number };
  error?: { detail: string; kind: string; fields?: Array<{ field: string; message: string }> };
}
const get = (sandbox: Sandbox, path: string) => call<DialectAnswer>(sandbox, 'GET', path, { token: sandbox.token, skipOpenApiCheck: true });

test('the list query schemas have exactly the options of the default dialect', () => {
  const schemas = { cards: ListCardsQuery, transactions: ListTransactionsQuery, oauth: ListOAuthQuery };
  for (const list of LIST_NAMES) {
    expect(Object.keys(schemas[list].properties).sort()).toEqual(Object.keys(DEFAULT_DIALECT.params[list]).sort());
    expect(Object.values(DEFAULT_DIALECT.params[list])).toEqual(Object.keys(DEFAULT_DIALECT.params[list]));
  }
});

describe('short-page dialect', () => {
  let sandbox: Sandbox;
  const ids: string[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, memory: true, dialect: SHORT_PAGE });
    for (let i = 0; i < 3; i++) ids.push((await createCard(sandbox, { referenceCode: `DIALECT-${i}` })).id);
  }, 30_000);
  afterAll(async () => { await sandbox?.close(); });

  test('lists take their parameters under the dialect names and carry no paging metadata', async () => {
    const one = await get(sandbox, `${LIST_PATHS.cards}?pageSize=2&pageNumber=2`);
    expect(one.status).toBe(200);
    expect(one.body.data).toHaveLength(1);
    expect(Object.keys(one.body)).toEqual(['statusCode', 'message', 'data']);
    const found = await get(sandbox, `${LIST_PATHS.cards}?q=DIALECT-1`);
    expect(present(found.body.data).map((c: { id: string }) => c.id)).toEqual([ids[1]]);
    expect(present((await get(sandbox, `${LIST_PATHS.cards}?card_id=${ids[0]}`)).body.data).map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    const apps = await get(sandbox, `${LIST_PATHS.oauth}?${encodeURIComponent('page[size]')}=1`);
    expect(apps.status).toBe(200);
    expect(present(apps.body.data).length).toBeLessThanOrEqual(1);
    const txs = await get(sandbox, `${LIST_PATHS.transactions}?size=5&status=completed&merchant=M1`);
    expect(txs.status).toBe(200);
    expect(Object.keys(txs.body)).toEqual(['statusCode', 'message', 'data']);
  });

  test('the default names are ignored, as by a deployment that does not know them', async () => {
    const listed = await get(sandbox, `${LIST_PATHS.cards}?limit=1&search=DIALECT-1&page=9`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(3);
  });

  test('a 400 names the dialect parameter; a page size above maxPageSize is refused', async () => {
    const bad = await get(sandbox, `${LIST_PATHS.cards}?pageSize=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({ detail: 'pageSize must be an integer', kind: 'VALIDATION_ERROR', fields: [{ field: 'pageSize', message: 'must be an integer' }] });
    expect(bad.body.message).toBeUndefined();
    const over = await get(sandbox, `${LIST_PATHS.transactions}?size=51`);
    expect(over.status).toBe(400);
    expect(present(over.body.error).detail).toBe('size must be at most 50');
    expect((await get(sandbox, `${LIST_PATHS.transactions}?size=50`)).status).toBe(200);
    const badStatus = await get(sandbox, `${LIST_PATHS.transactions}?card_status=bogus`);
    expect(present(badStatus.body.error).fields).toEqual([{ field: 'card_status', message: 'is not one of the allowed values' }]);
  });

  test('every error body has its members at the dialect paths', async () => {
    const missing = await call(sandbox, 'GET', '/institutions/transactions/nope', { token: sandbox.token, skipOpenApiCheck: true });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ statusCode: 404, error: { detail: expect.stringMatching(/not found/), kind: 'NOT_FOUND' } });
    const route = await get(sandbox, '/no/such/route');
    expect(present(route.body.error).kind).toBe('NOT_FOUND');
    const unauthorized = await call<DialectAnswer>(sandbox, 'GET', LIST_PATHS.cards, { token: 'wrong', skipOpenApiCheck: true });
    expect(unauthorized.status).toBe(401);
    expect(present(unauthorized.body.error).kind).toBe('UNAUTHORIZED');
  });

  test('a dialect the sandbox cannot serve is refused at start', async () => {
    await expect(startSandbox({ port: 0, memory: true, dialect: { maxPageSize: 500 } })).rejects.toThrow(/maxPageSize 500/);
  });
});

describe('metadata at other paths', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, memory: true, dialect: META });
    for (let i = 0; i < 3; i++) await createCard(sandbox);
  }, 30_000);
  afterAll(async () => { await sandbox?.close(); });

  test('the page count and total are at the dialect paths, on every list', async () => {
    const cards = await get(sandbox, `${LIST_PATHS.cards}?limit=2`);
    expect(cards.body.meta).toEqual({ pageCount: 2, count: 3 });
    expect(cards.body.pagination).toBeUndefined();
    const txs = await get(sandbox, `${LIST_PATHS.transactions}?limit=2`);
    expect(txs.body.meta).toEqual({ pageCount: 0, count: 0 });
    expect(JSON.parse(txs.text)).toEqual(txs.body);
    expect(present((await get(sandbox, LIST_PATHS.oauth)).body.meta).count).toBeGreaterThanOrEqual(0);
  });

  test('an error keeps message and errors, and has its code at the dialect path', async () => {
    const over = await get(sandbox, `${LIST_PATHS.cards}?limit=101`);
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ statusCode: 400, message: 'limit must be at most 100', code: 'VALIDATION_ERROR', errors: [{ field: 'limit', message: 'must be at most 100' }] });
  });
});
