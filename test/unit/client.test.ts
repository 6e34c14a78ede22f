import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, interpret, retryAfterMs, type ClientOptions, type Exchange } from '../../src/api/client.js';
import { paginate, type ListPageResponse } from '../../src/api/paging.js';
import { AuthError } from '../../src/core/errors.js';
import { failure, ok, testClientOptions } from '../helpers/api-client.js';
import { envelope, json, startTestServer, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let clients: ApiClient[] = [];
let waits: number[] = [];

beforeEach(async () => {
  server = await startTestServer();
  waits = [];
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  await Promise.all(agents.map((agent) => agent.destroy()));
  agents = [];
  transport = 'node:http';
  await server.close();
});

const TRANSPORTS = ['node:http', 'undici'] as const;
/** The transport the client() of a test uses: undici through a dispatcher of its own, else the default. */
let transport: (typeof TRANSPORTS)[number] = 'node:http';
let agents: Agent[] = [];

function client(options: Partial<ClientOptions> = {}): ApiClient {
  if (transport === 'undici' && !options.dispatcher) {
    const agent = new Agent({ keepAliveTimeout: 10_000 });
    agents.push(agent);
    options = { dispatcher: agent, ...options };
  }
  const c = new ApiClient({ ...testClientOptions(server.url, waits), ...options });
  clients.push(c);
  return c;
}

const status = (code: number, body: unknown = { statusCode: code, message: `status ${code}`, error: 'X' }, headers: Record<string, string> = {}) =>
  (_req: unknown, res: Parameters<typeof json>[0]) => json(res, code, body, headers);

// Every request path below runs over both transports: Node's http (the default) and undici
// (behind a proxy, or with a dispatcher handed in).
describe.each(TRANSPORTS)('over %s', (name) => {
  beforeEach(() => { transport = name; });

  describe('requests', () => {
    it('joins base URL (with a path prefix) and path, keeps a query string, adds query parameters', async () => {
      server.fallback(ok([{ id: 'c1' }]));
      const c = client({ baseUrl: `${server.url}/v1/` });
      const response = await c.request({ method: 'GET', path: '/institutions/cards?search=ADA', query: { limit: 5, page: undefined } });
      expect(server.requests[0]!.url).toBe('/v1/institutions/cards?search=ADA&limit=5');
      expect(response.data).toEqual([{ id: 'c1' }]);
      expect(response.message).toBe('ok');
      expect(response.raw).toBe(JSON.stringify({ statusCode: 200, message: 'ok', data: [{ id: 'c1' }] }));
    });

    it('sends the bearer token, or x-api-key without a bearer header; JSON bodies', async () => {
      server.fallback(ok({}));
      await client().request({ method: 'POST', path: '/institutions/cards', body: { a: 1 } });
      await client().request({ method: 'POST', path: '/util/cards/import', auth: 'apiKey', body: { b: 2 } });
      const [bearer, apiKey] = server.requests;
      expect(bearer!.headers.authorization).toBe('Bearer tok_secret_value_123');
      expect(bearer!.headers['content-type']).toBe('application/json');
      expect(JSON.parse(bearer!.body)).toEqual({ a: 1 });
      expect(apiKey!.headers['x-api-key']).toBe('key_secret_value_456');
      expect(apiKey!.headers.authorization).toBeUndefined();
    });

    it('without credentials: exit 3 before anything is sent', async () => {
      expect((await failure(client({ getToken: async () => undefined }).request({ method: 'GET', path: '/x' }))).exitCode).toBe(3);
      expect((await failure(client({ apiKey: undefined }).request({ method: 'POST', path: '/x', auth: 'apiKey' }))).exitCode).toBe(3);
      expect(server.requests).toHaveLength(0);
    });

    it('reuses one keep-alive connection across calls', async () => {
      server.fallback(ok());
      const c = client();
      for (let i = 0; i < 6; i++) await c.request({ method: 'GET', path: '/institutions/cards' });
      const ports = new Set(server.requests.map((r) => r.remotePort));
      expect(server.requests).toHaveLength(6);
      // The pool may open a second socket while the first is being released, but sockets are reused.
      expect(ports.size).toBeLessThanOrEqual(2);
    });

    it('withReason: the same pool and settings, every mutation carrying the reason; the original client unchanged', async () => {
      server.fallback(ok());
      const exchanges: Exchange[] = [];
      const c = client({ onExchange: (exchange) => exchanges.push(exchange) });
      const reasoned = c.withReason('reported stolen');
      expect(await reasoned.dispatcher()).toBe(await c.dispatcher());
      await reasoned.request({ method: 'POST', path: '/institutions/cards', body: {} });
      await reasoned.request({ method: 'PUT', path: '/institutions/cards/c1/customer', body: {}, reason: 'its own' });
      await c.request({ method: 'POST', path: '/institutions/cards', body: {} });
      // Each call: its intent, then its outcome, both with the reason.
      expect(exchanges.map((e) => [e.phase, e.reason])).toEqual([
        ['intent', 'reported stolen'], ['outcome', 'reported stolen'], ['intent', 'its own'], ['outcome', 'its own'], ['intent', undefined], ['outcome', undefined],
      ]);
    });

    it('unwraps pagination beside data, and paginate() follows pages', async () => {
      server.enqueue(
        (_q, res) => envelope(res, [{ id: 1 }, { id: 2 }], { pagination: { page: 1, limit: 2, total: 3, pages: 2 } }),
        (_q, res) => envelope(res, [{ id: 3 }], { pagination: { page: 2, limit: 2, total: 3, pages: 2 } }),
      );
      const ids: unknown[] = [];
      for await (const page of paginate<{ id: number }>(client(), '/institutions/cards', {}, 2)) ids.push(...page.data.map((r) => r.id));
      expect(ids).toEqual([1, 2, 3]);
      expect(server.requests.map((r) => r.url)).toEqual(['/institutions/cards?page=1&limit=2', '/institutions/cards?page=2&limit=2']);
    });

    it('paginate() gives each page parsed, card numbers masked in its records, data and raw', async () => {
      const records = [{ id: 't1', cardData: { pan: '5060990000000000019' } }, { id: 't2', cardData: { pan: '506099******0027' } }];
      server.enqueue((_q, res) => envelope(res, records, { pagination: { page: 1, limit: 2, total: 2, pages: 1 } }));
      const pages: ListPageResponse<{ id: string; cardData: { pan: string } }>[] = [];
      for await (const page of paginate<{ id: string; cardData: { pan: string } }>(client(), '/institutions/transactions', {}, 2)) pages.push(page);
      const [page] = pages;
      expect(pages).toHaveLength(1);
      expect(page!.count).toBe(2);
      expect(page!.firstKey).toBe('t1');
      expect(page!.pagination).toEqual({ page: 1, limit: 2, total: 2, pages: 1 });
      expect(page!.message).toBe('ok');
      expect([...page!.records()].map((r) => r.cardData.pan)).toEqual(['506099*********0019', '506099******0027']);
      expect(page!.data.map((r) => r.cardData.pan)).toEqual(['506099*********0019', '506099******0027']);
      expect(page!.raw).not.toContain('5060990000000000019');
      expect(page!.raw).toContain('"506099*********0019"');
    });

    it('paginate() reads a large page in many chunks, and non-ASCII text', async () => {
      const big = Array.from({ length: 100 }, (_, i) => ({ id: `t${i}`, note: `Adé 🃏 ${'x'.repeat(5000)}` }));
      server.enqueue(
        (_q, res) => envelope(res, big, { pagination: { page: 1, limit: 100, total: 101, pages: 2 } }),
        (_q, res) => envelope(res, [{ id: 't100', note: 'Ọ̀bí' }], { pagination: { page: 2, limit: 100, total: 101, pages: 2 } }),
      );
      const read: unknown[] = [];
      for await (const page of paginate<{ id: string; note: string }>(client(), '/institutions/transactions', {}, 100)) read.push(...page.records());
      expect(read).toEqual([...big, { id: 't100', note: 'Ọ̀bí' }]);
    });

    it('paginate() fails as request() does on an error status, an error envelope, and a page that is not JSON', async () => {
      const firstPage = async () => {
        for await (const page of paginate(client(), '/institutions/transactions', {})) return page;
        return undefined;
      };
      server.enqueue(status(404));
      expect((await failure(firstPage())).exitCode).toBe(4);
      server.enqueue((_q, res) => envelope(res, [], { statusCode: 500, message: 'broken' }));
      expect((await failure(firstPage())).message).toMatch(/broken/);
      server.enqueue((_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"statusCode":200,"message":"ok","data":[{"id":"t1"},{"id":}]}');
      });
      expect((await failure(firstPage())).message).toMatch(/not JSON/);
    });

    it('paginate() takes a page whose data is not an array as having no records', async () => {
      server.enqueue((_q, res) => envelope(res, { id: 'one' }));
      const pages: ListPageResponse<unknown>[] = [];
      for await (const page of paginate(client(), '/institutions/transactions', {})) pages.push(page);
      expect(pages[0]!.count).toBe(0);
      expect([...pages[0]!.records()]).toEqual([]);
      expect(pages[0]!.data).toEqual({ id: 'one' });
    });
  });

  describe('401 and token renewal', () => {
    it('a static token that is rejected is not sent again (one request, exit 3)', async () => {
      server.fallback(status(401));
      const error = await failure(client().request({ method: 'GET', path: '/x' }));
      expect(error.exitCode).toBe(3);
      expect(server.requests).toHaveLength(1);
    });

    it('a renewable token (client credentials) is renewed once after a 401 and the request repeated', async () => {
      const asked: Array<boolean | undefined> = [];
      let current = 'tok_old';
      const getToken = async (force?: boolean) => {
        asked.push(force);
        if (force) current = 'tok_new';
        return current;
      };
      server.enqueue(status(401));
      server.fallback(ok(['after renewal']));
      const response = await client({ getToken }).request({ method: 'POST', path: '/x', body: {} });
      expect(response.data).toEqual(['after renewal']);
      expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer tok_old', 'Bearer tok_new']);
      expect(asked.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('retries', () => {
    it('retries a GET after 502/503/504 with jittered backoff, then succeeds', async () => {
      server.enqueue(status(503), status(502));
      server.fallback(ok(['done']));
      const response = await client().request({ method: 'GET', path: '/institutions/cards' });
      expect(response.data).toEqual(['done']);
      expect(server.requests).toHaveLength(3);
      // random() = 0.5: half of 250 ms × 2^attempt
      expect(waits).toEqual([125, 250]);
    });

    it('never retries a POST (exit 7 after one attempt)', async () => {
      server.fallback(status(503));
      const error = await failure(client().request({ method: 'POST', path: '/institutions/cards', body: {} }));
      expect(error.exitCode).toBe(7);
      expect(server.requests).toHaveLength(1);
      expect(waits).toEqual([]);
    });

    it('honours Retry-After on 429 for GET; a POST gets the 429 as exit 5', async () => {
      server.enqueue(status(429, { statusCode: 429, message: 'slow down', error: 'RATE_LIMITED' }, { 'retry-after': '2' }));
      server.enqueue(ok());
      await client().request({ method: 'GET', path: '/institutions/cards' });
      expect(waits).toEqual([2000]);
      server.enqueue(status(429, { statusCode: 429, message: 'slow down', error: 'RATE_LIMITED' }, { 'retry-after': '2' }));
      const error = await failure(client().request({ method: 'POST', path: '/institutions/cards', body: {} }));
      expect(error.exitCode).toBe(5);
      expect(error.code).toBe('RATE_LIMITED');
      expect(error.hint).toContain('2 s');
      expect(error).toMatchObject({ status: 429, retryAfterMs: 2000, apiMessage: 'slow down' });
      expect(waits).toEqual([2000]);
    });

    it('gives up after --retries and reports the last status (5xx → exit 7)', async () => {
      server.fallback(status(504));
      const error = await failure(client({ retries: 3 }).request({ method: 'GET', path: '/x' }));
      expect(error.exitCode).toBe(7);
      expect(server.requests).toHaveLength(4);
      expect(waits).toHaveLength(3);
      expect(waits.every((ms) => ms <= 5000)).toBe(true);
    });

    it('retries a GET after a connection reset; never a POST (exit 6)', async () => {
      server.enqueue((_q, res) => void res.socket?.destroy());
      server.enqueue(ok(['after reset']));
      expect((await client().request({ method: 'GET', path: '/x' })).data).toEqual(['after reset']);
      expect(server.requests).toHaveLength(2);
      server.enqueue((_q, res) => void res.socket?.destroy());
      const error = await failure(client().request({ method: 'POST', path: '/x', body: {} }));
      expect(error.exitCode).toBe(6);
      expect(server.requests).toHaveLength(3);
    });

    it('Ctrl-C during a backoff wait stops the retries', async () => {
      server.fallback(status(503));
      const controller = new AbortController();
      const c = client({ signal: controller.signal, sleep: async () => { controller.abort(); } });
      await expect(c.request({ method: 'GET', path: '/x' })).rejects.toThrow();
      expect(server.requests).toHaveLength(1);
    });

    it('an idempotent: true request may be retried', async () => {
      server.enqueue(status(503));
      server.fallback(ok());
      await client().request({ method: 'PUT', path: '/x', body: {}, idempotent: true });
      expect(server.requests).toHaveLength(2);
    });

    it('parses Retry-After as seconds or an HTTP date, capped', () => {
      expect(retryAfterMs('3')).toBe(3000);
      expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
      expect(retryAfterMs('9999')).toBe(60_000);
      expect(retryAfterMs('soon')).toBeUndefined();
    });
  });

  describe('failures and exit codes', () => {
    it.each([
      [401, 3, /cardctl login/],
      [403, 3, /permission/],
      [404, 4, undefined],
      [400, 5, undefined],
      [409, 5, undefined],
      [422, 5, undefined],
      [500, 7, /try again/],
    ])('HTTP %i → exit %i', async (code, exitCode, hint) => {
      server.fallback(status(code, { statusCode: code, message: 'embossingName is required', error: 'SOME_CODE', errors: [{ field: 'embossingName', message: 'is required' }] }));
      const error = await failure(client({ retries: 0 }).request({ method: 'GET', path: '/x' }));
      expect(error.exitCode).toBe(exitCode);
      expect(error.status).toBe(code);
      expect(error.code).toBe('SOME_CODE');
      expect(error.message).toContain('embossingName is required');
      if (hint) expect(error.hint).toMatch(hint);
    });

    it('a 403 naming its scope in details.requiredScope: exit 3, a hint naming the scope, the scope kept in details', async () => {
      server.fallback(status(403, { statusCode: 403, message: 'this token lacks scope create:card, which POST /institutions/cards requires', error: 'FORBIDDEN', details: { requiredScope: 'create:card' } }));
      const error = await failure(client({ retries: 0 }).request({ method: 'POST', path: '/institutions/cards', body: {} }));
      expect(error.exitCode).toBe(3);
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toContain('lacks scope create:card');
      expect(error.hint).toMatch(/^this token lacks scope create:card; use a profile whose application/);
      expect(error.details).toEqual({ requiredScope: 'create:card' });
      expect((error as AuthError).missingScope).toBe('create:card');
    });

    it('a 403 whose requiredScope is not a scope (or absent) gets the general hint, not the text it sent', async () => {
      for (const details of [{ requiredScope: 'x; run rm -rf /' }, { requiredScope: 42 }, undefined]) {
        server.fallback(status(403, { statusCode: 403, message: 'no', error: 'FORBIDDEN', ...(details ? { details } : {}) }));
        const error = await failure(client({ retries: 0 }).request({ method: 'GET', path: '/x' }));
        expect(error.exitCode).toBe(3);
        expect(error.hint).toMatch(/lack permission for this operation/);
        expect(error.hint).not.toContain('rm -rf');
        expect((error as AuthError).missingScope).toBeUndefined();
      }
    });

    it('a 400 names the fields in the message and keeps them as details', async () => {
      server.fallback(status(400, { statusCode: 400, message: 'invalid body', error: 'VALIDATION_ERROR', errors: [{ field: 'email', message: 'is invalid' }] }));
      const error = await failure(client().request({ method: 'POST', path: '/x', body: {} }));
      expect(error.message).toContain('email is invalid');
      expect(error.details).toEqual([{ field: 'email', message: 'is invalid' }]);
    });

    it('no answer within --timeout → exit 6 (TIMEOUT)', async () => {
      server.fallback(() => { /* never answers */ });
      const error = await failure(client({ timeoutMs: 200, retries: 0 }).request({ method: 'GET', path: '/slow' }));
      expect(error.exitCode).toBe(6);
      expect(error.code).toBe('TIMEOUT');
    });

    it('connection refused → exit 6 with a hint', async () => {
      const url = server.url;
      await server.close();
      server = await startTestServer();
      const error = await failure(client({ baseUrl: url, retries: 0 }).request({ method: 'GET', path: '/x' }));
      expect(error.exitCode).toBe(6);
      expect(error.code).toBe('ECONNREFUSED');
      expect(error.hint).toBeTruthy();
    });

    it('HTML from a proxy, empty and truncated bodies become clear errors', async () => {
      const html = '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>';
      server.enqueue((_q, res) => { res.writeHead(502, { 'content-type': 'text/html' }); res.end(html); });
      let error = await failure(client({ retries: 0 }).request({ method: 'GET', path: '/x' }));
      expect([error.exitCode, error.message]).toEqual([7, expect.stringContaining('HTML page ("502 Bad Gateway")')]);

      server.enqueue((_q, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(html); });
      error = await failure(client().request({ method: 'GET', path: '/x' }));
      expect(error.exitCode).toBe(7);
      expect(error.message).toMatch(/not JSON/);
      expect(error.hint).toMatch(/base URL/);

      server.enqueue((_q, res) => { res.writeHead(200); res.end(); });
      error = await failure(client().request({ method: 'GET', path: '/x' }));
      expect(error.message).toMatch(/empty body/);

      server.enqueue((_q, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"statusCode":200,"data":[{"id":'); });
      error = await failure(client().request({ method: 'GET', path: '/x' }));
      expect(error.exitCode).toBe(7);
      expect(error.message).toMatch(/truncated or invalid JSON/);

      server.enqueue((_q, res) => { res.writeHead(400); res.end(); });
      error = await failure(client().request({ method: 'POST', path: '/x', body: {} }));
      expect([error.exitCode, error.message]).toEqual([5, expect.stringContaining('empty body')]);

      server.enqueue((_q, res) => envelope(res, undefined, { data: undefined, statusCode: 'two hundred' }));
      error = await failure(client().request({ method: 'GET', path: '/x' }));
      expect(error.exitCode).toBe(7);

      server.enqueue((_q, res) => json(res, 200, [1, 2, 3]));
      error = await failure(client().request({ method: 'GET', path: '/x' }));
      expect(error.message).toMatch(/envelope/);
    });

    it('a body cut off mid-transfer (content-length not reached) → exit 6 after retries', async () => {
      server.fallback((_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"statusCode":200,');
        setTimeout(() => res.socket?.destroy(), 10);
      });
      const error = await failure(client({ retries: 1 }).request({ method: 'GET', path: '/x' }));
      expect(error.exitCode).toBe(6);
      expect(server.requests).toHaveLength(2);
    });

    it('a 200 whose envelope carries an error statusCode is that error', async () => {
      server.enqueue((_q, res) => json(res, 200, { statusCode: 404, message: 'card not found', error: 'NOT_FOUND' }));
      let error = await failure(client().request({ method: 'GET', path: '/x' }));
      expect([error.exitCode, error.status]).toEqual([4, 404]);
      server.enqueue((_q, res) => json(res, 200, { statusCode: 400, message: 'bad' }));
      error = await failure(client().request({ method: 'GET', path: '/x' }));
      expect(error.exitCode).toBe(5);
      server.enqueue((_q, res) => json(res, 200, { statusCode: 401, message: 'expired' }));
      error = await failure(client().request({ method: 'GET', path: '/x' }));
      expect(error.exitCode).toBe(3);
    });

    it('envelope: false returns the parsed body as is (token endpoint, simulator)', async () => {
      server.enqueue((_q, res) => json(res, 200, { access_token: 'x', token_type: 'Bearer' }));
      const response = await client().request({ method: 'POST', path: '/oauth/token', rawBody: 'grant_type=client_credentials', auth: 'none', envelope: false });
      expect(response.data).toEqual({ access_token: 'x', token_type: 'Bearer' });
      expect(server.requests[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    });

    it('204 No Content is a success without data', async () => {
      server.enqueue((_q, res) => { res.writeHead(204); res.end(); });
      const response = await client().request({ method: 'DELETE', path: '/x' });
      expect([response.status, response.data]).toEqual([204, undefined]);
    });

    it('interpret() alone: pure function over status/text', () => {
      expect(interpret({ method: 'GET', path: '/x' }, { status: 200, text: '{"statusCode":200,"data":5}', headers: {}, durationMs: 1 }).data).toBe(5);
      expect(() => interpret({ method: 'GET', path: '/x' }, { status: 503, text: '', headers: {}, durationMs: 1 })).toThrow(/503/);
    });
  });

  it('Ctrl-C while waiting for the answer: aborted at once, not retried (exit 6, ABORTED)', async () => {
    server.fallback(() => { /* never answers */ });
    const controller = new AbortController();
    const pending = client({ signal: controller.signal }).request({ method: 'GET', path: '/slow' });
    setTimeout(() => controller.abort(), 50);
    const error = await failure(pending);
    expect([error.exitCode, error.code]).toEqual([6, 'ABORTED']);
    expect(server.requests).toHaveLength(1);
  });
});
