// The API client's safety hooks: --dry-run stops mutations before they are sent, and the audit
// journal sees exactly one exchange per logical mutating request, whatever the retries.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, type ClientOptions, type Exchange } from '../../src/api/client.js';
import { DryRunStop, formatDryRun, type DryRunRequest } from '../../src/api/dry-run.js';
import { commandLine, journalRecorder } from '../../src/audit/record.js';
import { Journal } from '../../src/audit/journal.js';
import { main } from '../../src/app/cli.js';
import { CREATE_FLAGS } from '../../src/commands/cards/create.js';
import { GLOBAL_FLAGS } from '../../src/core/global-flags.js';
import { envelope, json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { tempDir } from '../helpers/cli.js';
import { testContext, testIO } from '../helpers/context.js';
import type { Json } from '../helpers/json.js';

let server: TestServer;
const clients: ApiClient[] = [];
const dirs: Array<{ path: string; remove(): void }> = [];

beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
  dirs.splice(0).forEach((d) => d.remove());
});

function client(options: Partial<ClientOptions> = {}): ApiClient {
  const c = new ApiClient({ baseUrl: server.url, getToken: async () => 'tok_secret', retries: 2, timeoutMs: 5_000, sleep: async () => {}, env: {}, ...options });
  clients.push(c);
  return c;
}

describe('--dry-run in the client', () => {
  it('shows a mutation with secrets redacted and sends nothing; GETs still go out', async () => {
    const shown: DryRunRequest[] = [];
    const c = client({ onDryRun: (r) => shown.push(r) });
    server.enqueue((_req, res) => envelope(res, { id: 'c1' }));
    await c.request({ method: 'GET', path: '/institutions/cards/c1' });
    const attempt = c.request({ method: 'PUT', path: '/institutions/cards/pin/c1/reset', body: { newPIN: { encryptedData: 'abc' }, pan: '5060990000000123' } });
    await expect(attempt).rejects.toBeInstanceOf(DryRunStop);
    await expect(c.request({ method: 'GET', path: '/institutions/cards/c1/deactivate' })).rejects.toBeInstanceOf(DryRunStop);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /institutions/cards/c1']);
    expect(shown[0]).toEqual({ dryRun: true, method: 'PUT', url: `${server.url}/institutions/cards/pin/c1/reset`, body: { newPIN: '[REDACTED]', pan: '506099******0123' } });
    expect(formatDryRun(shown[0]!, false)).toMatch(/^dry run, nothing sent: PUT http/);
    expect(JSON.parse(formatDryRun(shown[0]!, true))).toMatchObject({ dryRun: true, method: 'PUT' });
  });

  it('the entry point turns the stop into exit 0 with the request on stdout', async () => {
    const dir = tempDir(); dirs.push(dir);
    const io = testIO();
    const code = await main(['cards', 'activate', 'c1', '--dry-run', '-o', 'json'], {
      io, env: { CARDCTL_CONFIG_DIR: dir.path, CARDCTL_DATA_DIR: dir.path, CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: 'tok_secret' }, signal: new AbortController().signal,
    });
    expect(code).toBe(0);
    expect(JSON.parse(io.stdoutText())).toEqual({ dryRun: true, method: 'GET', url: `${server.url}/institutions/cards/c1/activate` });
    expect(server.requests).toHaveLength(0);
    expect(new Journal({ CARDCTL_DATA_DIR: dir.path }).files()).toEqual([]);
  });
});

describe('onExchange (the audit journal hook)', () => {
  it('is called twice per logical mutating request, its intent before it is sent and its outcome after the retries; never for reads', async () => {
    const seen: Exchange[] = [];
    const c = client({ onExchange: (x) => seen.push(x) });
    server.enqueue(
      (_req, res) => envelope(res, []),
      (_req, res) => json(res, 503, { statusCode: 503, message: 'busy' }),
      (_req, res) => json(res, 200, { statusCode: 200, message: 'Customer updated', data: { id: 'c1' } }),
    );
    await c.request({ method: 'GET', path: '/institutions/cards' });
    await c.request({ method: 'PUT', path: '/institutions/cards/c1/customer', body: {}, idempotent: true });
    expect(server.requests).toHaveLength(3);
    expect(seen).toEqual([
      expect.objectContaining({ method: 'PUT', path: '/institutions/cards/c1/customer', phase: 'intent', status: null, message: 'sending' }),
      expect.objectContaining({ method: 'PUT', path: '/institutions/cards/c1/customer', phase: 'outcome', status: 200, message: 'Customer updated', data: { id: 'c1' } }),
    ]);
  });

  it('records failures: the status of an API error, null when no answer came', async () => {
    const seen: Exchange[] = [];
    const c = client({ onExchange: (x) => seen.push(x) });
    server.enqueue((_req, res) => json(res, 404, { statusCode: 404, message: 'Card not found', error: 'NOT_FOUND' }));
    await expect(c.request({ method: 'GET', path: '/institutions/cards/x/activate' })).rejects.toMatchObject({ exitCode: 4 });
    server.enqueue((_req, res) => void res.destroy());
    await expect(c.request({ method: 'POST', path: '/institutions/cards', body: {} })).rejects.toMatchObject({ exitCode: 6 });
    expect(seen.filter((x) => x.phase === 'outcome').map((x) => [x.status, x.message])).toEqual([[404, 'not found: Card not found'], [null, expect.stringContaining('connection')]]);
    expect(seen.map((x) => x.phase)).toEqual(['intent', 'outcome', 'intent', 'outcome']);
  });
});

describe('journal recorder', () => {
  const createFlags = [GLOBAL_FLAGS, CREATE_FLAGS];
  it('removes secret flag values and masks PANs in the command line', () => {
    expect(commandLine(['cards', 'create', '--pan', '5060990000000123', '--token=abc', '--first-name', 'Ada Obi'], createFlags))
      .toBe('cardctl cards create --pan 506099******0123 --token=[REDACTED] --first-name "Ada Obi"');
  });

  it.each([
    ['a card number given inline', ['--pan=5060990000000123'], '--pan=506099******0123'],
    ['a declared value that starts with a dash', ['--reference', '-ref-1', 'c1'], '--reference -ref-1 c1'],
    ['declared values, short flags holding or taking theirs, grouped switches', ['-ojson', '-p', 'prod', '-yq', 'c1', '--no-pin'], '-ojson -p prod -yq c1 --no-pin'],
    ['the value of a flag nothing declares', ['--api-key', 's3cr3t', 'c1'], '--api-key [REDACTED] c1'],
    ['a lone flag nothing declares', ['--wat', '--yes'], '--wat --yes'],
    ['words after --', ['--', '--token', 'x y'], '-- --token "x y"'],
    ['a password in the user info of --base-url', ['--base-url', 'http://u:secretpw@127.0.0.1:4010'], '--base-url http://[REDACTED]@127.0.0.1:4010'],
    ['the user info of a URL given inline', ['--base-url=https://ops:p@ss@api.example.com/v1'], '--base-url=https://[REDACTED]@api.example.com/v1'],
    ['a secret field of JSON at any depth', ['--from-file', '{"webHookConfig":{"url":"http://h","secret":"whsec_x1"},"pin":"1234"}'],
      '--from-file "{\\"webHookConfig\\":{\\"url\\":\\"http://h\\",\\"secret\\":\\"[REDACTED]\\"},\\"pin\\":\\"[REDACTED]\\"}"'],
    ['secret name=value pairs in an argument', ['c1', 'webHookConfig.secret=whsec_x1', 'clientSecret=abc', 'name=Ada'], 'c1 webHookConfig.secret=[REDACTED] clientSecret=[REDACTED] name=Ada'],
  ])('shows %s as it should', (_what, argv, shown) => {
    expect(commandLine(['cards', 'create', ...argv], createFlags)).toBe(`cardctl cards create ${shown}`);
  });

  it('writes one redacted line per exchange with the reason the call carried, and only warns once when it cannot write', async () => {
    const dir = tempDir(); dirs.push(dir);
    const env = { CARDCTL_JOURNAL_DIR: `${dir.path}/journal` };
    const facts = { profile: 'default', env: 'unknown', baseUrl: 'https://api.example.com', argv: ['cards', 'deactivate', 'c1', '--yes'], flags: [GLOBAL_FLAGS], now: () => new Date(), secrets: () => [] };
    const record = journalRecorder(() => new Journal(env), facts, () => {});
    record({ method: 'GET', path: '/institutions/cards/c1/deactivate', status: 200, message: 'ok', data: { id: 'c1', pan: '5060990000000123' }, durationMs: 12, reason: ' reported stolen ' });
    const [entry] = [...new Journal(env).read()];
    expect(entry).toMatchObject({ profile: 'default', env: 'unknown', baseUrl: 'https://api.example.com', command: 'cardctl cards deactivate c1 --yes', status: 200, ids: ['c1'], reason: 'reported stolen', durationMs: 12 });
    expect(JSON.stringify(entry)).not.toContain('5060990000000123');
    record({ method: 'POST', path: '/institutions/x?access_token=tok_q_secret&limit=5', status: 200, message: 'ok', durationMs: 1 });
    expect([...new Journal(env).read()][1]!.path).toBe('/institutions/x?access_token=[REDACTED]&limit=5');

    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${dir.path}/blocked`, '');
    const warnings: string[] = [];
    const failing = journalRecorder(() => new Journal({ CARDCTL_JOURNAL_DIR: `${dir.path}/blocked` }), { ...facts, argv: [] }, (line) => warnings.push(line));
    const exchange: Exchange = { method: 'POST', path: '/institutions/cards', status: 201, message: '', durationMs: 1 };
    expect(() => { failing(exchange); failing(exchange); }).not.toThrow();
    expect(warnings.join('\n').match(/could not write the audit journal/g)).toHaveLength(1);
  });

  it('marks the lines of a run made for an MCP tool call: via, client, and the reason of the call when the request has none', () => {
    const dir = tempDir(); dirs.push(dir);
    const env = { CARDCTL_JOURNAL_DIR: `${dir.path}/journal` };
    const origin = { via: 'mcp' as const, client: 'claude-desktop/0.9', reason: 'asked by the cardholder' };
    const facts = { profile: 'sandbox', env: 'sandbox', baseUrl: 'http://127.0.0.1:1', argv: ['oauth', 'create'], flags: [GLOBAL_FLAGS], origin, now: () => new Date(), secrets: () => [] };
    const record = journalRecorder(() => new Journal(env), facts, () => {});
    record({ method: 'POST', path: '/institutions/oauth/create', status: 201, message: 'ok', durationMs: 3 });
    record({ method: 'GET', path: '/institutions/cards/c1/deactivate', status: 200, message: 'ok', durationMs: 3, reason: 'reported stolen' });
    const entries = [...new Journal(env).read()];
    expect(entries[0]).toMatchObject({ via: 'mcp', client: 'claude-desktop/0.9', reason: 'asked by the cardholder' });
    expect(entries[1]).toMatchObject({ via: 'mcp', client: 'claude-desktop/0.9', reason: 'reported stolen' });
  });

  it("the context's client records the profile, its env and base URL, and the reason of the calls that give one", async () => {
    const dir = tempDir(); dirs.push(dir);
    const ctx = testContext({ env: { CARDCTL_JOURNAL_DIR: `${dir.path}/journal`, CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: 'tok_secret' } });
    server.enqueue((_req, res) => envelope(res, { id: 'c1' }));
    server.enqueue((_req, res) => envelope(res, { id: 'c2' }));
    const api = await ctx.client();
    clients.push(api);
    await api.withReason('reported stolen').request({ method: 'GET', path: '/institutions/cards/c1/deactivate' });
    await api.request({ method: 'GET', path: '/institutions/cards/c2/deactivate' });
    const entries = [...new Journal({ CARDCTL_JOURNAL_DIR: `${dir.path}/journal` }).read()];
    expect(entries).toMatchObject([
      { profile: 'default', env: 'unknown', baseUrl: server.url, ids: ['c1'], reason: 'reported stolen', phase: 'intent' },
      { profile: 'default', env: 'unknown', baseUrl: server.url, ids: ['c1'], reason: 'reported stolen' },
      { profile: 'default', env: 'unknown', baseUrl: server.url, ids: ['c2'], phase: 'intent' },
      { profile: 'default', env: 'unknown', baseUrl: server.url, ids: ['c2'] },
    ]);
    expect(entries[1]).not.toHaveProperty('phase');
    expect(entries[3]).not.toHaveProperty('reason');

    const broken = testContext({ env: { CARDCTL_JOURNAL_DIR: `${dir.path}/journal/journal.ndjson/x`, CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: 'tok_secret' } });
    server.enqueue((_req, res) => envelope(res, { id: 'c3' }));
    server.enqueue((_req, res) => envelope(res, { id: 'c3' }));
    const failing = await broken.client();
    clients.push(failing);
    await failing.request({ method: 'GET', path: '/institutions/cards/c3/deactivate' });
    await failing.request({ method: 'GET', path: '/institutions/cards/c3/deactivate' });
    expect(broken.io.stderrText().match(/could not write the audit journal/g)).toHaveLength(1);
  });
});

describe('card numbers in responses', () => {
  it('are masked in data and raw, whatever the server sends; phone and account numbers stay', async () => {
    const c = client();
    server.enqueue((_req, res) => json(res, 200, { statusCode: 200, message: 'ok', data: {
      id: 'c1', pan: '5060990000000123', phone: '2348012345678', account: { number: '4111111111111111x' },
      tx: [{ '2': '4111111111111111', '35': '4111111111111111=29121010000' }],
    } }));
    const response = await c.request<Json>({ method: 'GET', path: '/institutions/cards/c1' });
    expect(response.data).toMatchObject({ pan: '506099******0123', phone: '2348012345678', tx: [{ '2': '411111******1111', '35': '411111******1111=2912' }] });
    expect(response.raw).not.toMatch(/5060990000000123|4111111111111111[^x]/);
    expect(response.raw).toContain('2348012345678');
  });
});
