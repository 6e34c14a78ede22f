// The ApiClient's transport: plain http only to loopback, proxies and NO_PROXY, its verbose log,
// an injected dispatcher, and pipelined() requests (each request path over both transports:
// client.test.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, parseBaseUrl, type ClientOptions, type Exchange, type HttpLogger } from '../../src/api/client.js';
import { CliError } from '../../src/core/errors.js';
import { failure, ok, testClientOptions } from '../helpers/api-client.js';
import { envelope, startForwardProxy, startTestServer, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let clients: ApiClient[] = [];

beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  await server.close();
});

function client(options: Partial<ClientOptions> = {}): ApiClient {
  const c = new ApiClient({ ...testClientOptions(server.url, []), ...options });
  clients.push(c);
  return c;
}

describe('transport security and configuration', () => {
  it('refuses plain http:// to a non-loopback host unless --insecure', () => {
    for (const url of ['http://api.example.com', 'http://10.0.0.5:8080', 'http://127.0.0.1.example.com', 'http://localhost.example.com', 'http://0.0.0.0:4010', 'http://[::ffff:127.0.0.1]:4010']) {
      let error: unknown;
      try { parseBaseUrl(url, false); } catch (e) { error = e; }
      expect(error, url).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(2);
      expect((error as CliError).message).toMatch(/unencrypted/);
    }
    expect(parseBaseUrl('http://api.example.com', true).hostname).toBe('api.example.com');
    for (const url of ['http://localhost:4010', 'http://127.0.0.1:1', 'http://[::1]:4010', 'https://api.example.com']) {
      expect(() => parseBaseUrl(url, false), url).not.toThrow();
    }
    expect(() => parseBaseUrl('ftp://x', false)).toThrow(/scheme/);
    expect(() => parseBaseUrl('not a url', false)).toThrow(/invalid base URL/);
    expect(() => new ApiClient({ baseUrl: 'http://api.example.com' })).toThrow(/refusing plain http/);
  });

  it('never sends credentials to a host given in the path', async () => {
    const error = await failure(client().request({ method: 'GET', path: 'https://evil.example.com/steal' }));
    expect(error.exitCode).toBe(2);
    const error2 = await failure(client().request({ method: 'GET', path: '//evil.example.com/steal' }));
    expect(error2.exitCode).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('goes through HTTP_PROXY, except for hosts in NO_PROXY', async () => {
    const proxy = await startForwardProxy((_req, res) => envelope(res, ['via proxy']));
    const { seen, url: proxyUrl } = proxy;
    try {
      server.fallback(ok(['direct']));
      const target = new URL(server.url);
      const viaProxy = client({ env: { HTTP_PROXY: proxyUrl }, retries: 0 });
      await viaProxy.request({ method: 'GET', path: '/institutions/cards' });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatch(new RegExp(`^(CONNECT ${target.host}|GET ${server.url}/institutions/cards)$`));

      const bypass = client({ env: { HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' } });
      expect((await bypass.request({ method: 'GET', path: '/x' })).data).toEqual(['direct']);
      expect(seen).toHaveLength(1);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      clients = [];
      await proxy.close();
    }
  });

  it('-v logs method, URL, status and time; nothing without -v', async () => {
    server.fallback(ok());
    const lines: string[] = [];
    const logger: HttpLogger = { verbose: (l) => void lines.push(l), debug: (l) => void lines.push(l), verboseEnabled: true, debugEnabled: false };
    await client({ logger }).request({ method: 'GET', path: '/institutions/cards', query: { limit: 1 } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^GET ${server.url}/institutions/cards\\?limit=1 → 200 \\(\\d+ ms\\)$`));
  });
});

describe('an injected dispatcher (undici MockAgent), as commands get it through the context', () => {
  it('ctx.client() sends through the test dispatcher with the profile settings', async () => {
    const { MockAgent } = await import('undici');
    const { testContext } = await import('../helpers/context.js');
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get('https://api.example.com')
      .intercept({ path: '/institutions/cards?limit=1', method: 'GET', headers: { authorization: 'Bearer tok_mock_123456' } })
      .reply(200, { statusCode: 200, message: 'ok', data: [{ id: 'm1' }] });
    const ctx = testContext({ env: { CARDCTL_CONFIG_DIR: '/nonexistent-cardctl-test', CARDCTL_BASE_URL: 'https://api.example.com', CARDCTL_TOKEN: 'tok_mock_123456' }, dispatcher: agent });
    const c = await ctx.client();
    expect(await ctx.client()).toBe(c); // built once per context
    expect((await c.request({ method: 'GET', path: '/institutions/cards', query: { limit: 1 } })).data).toEqual([{ id: 'm1' }]);
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
});
describe('pipelined(): many requests that are safe to repeat, in flight at once', () => {
  // The client it comes from travels as a plain one does: over Node's http (this file's only transport).
  // Every answer held until 8 requests have arrived: 8 in flight at once, however they travel.
  const answerEight = () => {
    const held: Array<() => void> = [];
    server.fallback((req, res) => new Promise<void>((resolve) => {
      held.push(() => {
        envelope(res, { id: req.url.split('/')[3], status: 'suspended' });
        resolve();
      });
      if (held.length === 8) held.splice(0).forEach((answer) => answer());
    }));
  };
  const eight = (c: ApiClient) => Promise.all(Array.from({ length: 8 }, (_, i) => c.request<{ id: string }>({ method: 'GET', path: `/institutions/cards/c${i}/deactivate` })));
  const connections = () => new Set(server.requests.splice(0).map((r) => r.remotePort)).size;

  it('sends them on one connection, where the plain client opens one for each; every answer goes to its own request', async () => {
    answerEight();
    const plain = client();
    const pipelined = plain.withReason('merchant breach').pipelined(8);
    expect((await eight(pipelined)).map((r) => r.data.id)).toEqual(Array.from({ length: 8 }, (_, i) => `c${i}`));
    expect(connections()).toBe(1);
    await eight(plain);
    expect(connections()).toBe(8);
  });

  it('opens a connection for each 8 in flight', async () => {
    answerEight();
    const pipelined = client().pipelined(16);
    await Promise.all([eight(pipelined), eight(pipelined)]);
    expect(connections()).toBe(2);
  });

  it('sends like the plain client once a connection was lost, the request that met it sent again', async () => {
    const pipelined = client().pipelined(8);
    server.enqueue((_req, res) => void res.socket?.destroy());
    server.fallback(ok({ id: 'c0' }));
    expect((await pipelined.request<{ id: string }>({ method: 'GET', path: '/institutions/cards/c0/deactivate' })).data.id).toBe('c0');
    expect(server.requests.splice(0)).toHaveLength(2);
    answerEight();
    await eight(pipelined);
    expect(connections()).toBe(8);
  });

  it('keeps the reason of the client it came from for the journal', async () => {
    server.fallback(ok({ id: 'c1' }));
    const exchanges: Exchange[] = [];
    await client({ onExchange: (e) => exchanges.push(e) }).withReason('merchant breach').pipelined(8).request({ method: 'GET', path: '/institutions/cards/c1/deactivate' });
    expect(exchanges.map((e) => [e.phase, e.reason])).toEqual([['intent', 'merchant breach'], ['outcome', 'merchant breach']]);
  });
});
