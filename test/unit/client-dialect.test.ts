// The client speaking a profile's deployment dialect: list parameters under its names, paging in
// its style, error members at its paths, and no endless --all when the page parameter is wrong.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, interpret } from '../../src/api/client.js';
import { paginate } from '../../src/api/paging.js';
import { listCards } from '../../src/api/cards.js';
import { listAllTransactions } from '../../src/api/transactions.js';
import { resolveDialect, type DialectOverrides } from '../../src/api/dialect.js';
import { CliError } from '../../src/core/errors.js';
import { envelope, json, startTestServer, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let clients: ApiClient[] = [];
beforeEach(async () => { server = await startTestServer(); });
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  await server.close();
});

function client(dialect: DialectOverrides): ApiClient {
  const c = new ApiClient({ baseUrl: server.url, getToken: async () => 'tok_secret_value_123', retries: 0, env: {}, dialect: resolveDialect(dialect) });
  clients.push(c);
  return c;
}

const SHORT: DialectOverrides = {
  params: { cards: { search: 'q', limit: 'pageSize', page: 'pageNumber' }, transactions: { merchantId: 'merchant', page: 'p', limit: 'size' } },
  paging: { style: 'short-page' },
};

describe('lists', () => {
  it('sends the dialect names', async () => {
    server.fallback((_q, res) => envelope(res, []));
    await listCards(client(SHORT), { search: 'ada', limit: 5, page: 2, cardId: 'c1' });
    expect(server.requests[0]!.url).toBe('/institutions/cards?q=ada&pageSize=5&pageNumber=2&cardId=c1');
  });

  it('short-page: reads until a page is shorter than the page size, whatever metadata the body has', async () => {
    server.enqueue(
      (_q, res) => envelope(res, [{ id: 1 }, { id: 2 }], { pagination: { page: 1, limit: 2, total: 2, pages: 1 } }),
      (_q, res) => envelope(res, [{ id: 3 }]),
    );
    const ids: unknown[] = [];
    for await (const page of listAllTransactions(client(SHORT), { merchantId: 'm', limit: 2 })) ids.push(...page.data.map((r) => r.id));
    expect(ids).toEqual([1, 2, 3]);
    expect(server.requests.map((r) => r.url)).toEqual(['/institutions/transactions?merchant=m&p=1&size=2', '/institutions/transactions?merchant=m&p=2&size=2']);
  });

  it('metadata at other paths: stops at the page count there', async () => {
    server.enqueue(
      (_q, res) => envelope(res, [{ id: 1 }], { meta: { totalPages: 2, count: 2 } }),
      (_q, res) => envelope(res, [{ id: 2 }], { meta: { totalPages: 2, count: 2 } }),
    );
    const c = client({ paging: { pages: 'meta.totalPages', total: 'meta.count' } });
    const pages = [];
    for await (const page of paginate(c, '/institutions/cards', {}, 1)) pages.push(page.pagination);
    expect(pages).toEqual([{ page: undefined, limit: undefined, pages: 2, total: 2 }, { page: undefined, limit: undefined, pages: 2, total: 2 }]);
    expect(server.requests).toHaveLength(2);
  });

  it('a page that starts with the previous page\'s first record stops --all with an error naming the page setting', async () => {
    server.fallback((_q, res) => envelope(res, [{ id: 'a' }, { id: 'b' }]));
    const seen: unknown[] = [];
    let error: unknown;
    try {
      for await (const page of paginate(client(SHORT), '/institutions/cards', {}, 2)) seen.push(...page.data);
    } catch (caught) {
      error = caught;
    }
    expect(seen).toHaveLength(2);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe('PAGING_MISMATCH');
    expect((error as CliError).message).toContain('params.cards.page');
    expect((error as CliError).hint).toContain('cardctl profile set params.cards.page');
  });
});

describe('errors', () => {
  const dialect = resolveDialect({ errors: { message: 'error.detail', code: 'error.kind', fields: 'error.fields' } });
  const req = { method: 'POST', path: '/institutions/cards' } as const;
  const body = { statusCode: 400, error: { detail: 'referenceCode is taken', kind: 'CONFLICT', fields: [{ field: 'referenceCode', message: 'is already used' }, { field: 'pan', message: 'is bad' }] } };

  it('reads message, code and field errors at the dialect paths', () => {
    let error: CliError | undefined;
    try { interpret(req, { status: 409, text: JSON.stringify(body), headers: {}, durationMs: 1 }, dialect); } catch (e) { error = e as CliError; }
    expect(error?.apiMessage).toBe('referenceCode is taken');
    expect(error?.code).toBe('CONFLICT');
    expect(error?.message).toBe('rejected (409): referenceCode is taken [referenceCode is already used; pan is bad]');
    expect(error?.details).toEqual(body.error.fields);
  });

  it('falls back to the default places when the dialect paths are absent (a gateway answering)', () => {
    let error: CliError | undefined;
    const text = JSON.stringify({ statusCode: 502, message: 'bad gateway', error: 'BAD_GATEWAY' });
    try { interpret({ method: 'GET', path: '/x' }, { status: 502, text, headers: {}, durationMs: 1 }, dialect); } catch (e) { error = e as CliError; }
    expect(error?.apiMessage).toBe('bad gateway');
    expect(error?.code).toBe('BAD_GATEWAY');
  });

  it('with the default dialect, a body in another shape says where the message was looked for', async () => {
    server.fallback((_q, res) => json(res, 404, body));
    const error = await client({}).request({ method: 'GET', path: '/x' }).catch((e: unknown) => e as CliError);
    expect(error.message).toBe('not found: HTTP 404, with no message at "message" of the error body (errors.message)');
  });
});
