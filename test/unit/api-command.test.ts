// `cardctl api`: prints whatever the endpoint answers (envelope or not, JSON or not; -o raw is
// the body as received), and on a production profile its writes need the same confirmation as
// every other write, before anything is sent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { ScriptedPrompter } from '../../src/core/prompter.js';
import { testIO } from '../helpers/context.js';
import { isolatedDirs, scratchDir } from '../helpers/dirs.js';
import { envelope, json, startTestServer, type TestServer } from '../helpers/http-server.js';

const OPENAPI = '{"openapi":"3.1.0","info":{"title":"sandbox","version":"1"},"paths":{"/x":{}}}';
const PIN_KEY = { publicKey: '-----BEGIN PUBLIC KEY-----\nMII\n-----END PUBLIC KEY-----\n', fingerprint: 'ab'.repeat(32), algorithm: 'RSA-OAEP-256' };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer((req, res) => {
    if (req.url === '/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(OPENAPI);
    } else if (req.url === '/sandbox/pin-key') json(res, 200, PIN_KEY);
    else if (req.url === '/text') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('plain text, no newline');
    } else if (req.url === '/empty') {
      res.writeHead(204);
      res.end();
    } else if (req.url === '/broken') json(res, 503, { statusCode: 503, message: 'down', error: 'INTERNAL' });
    else envelope(res, { id: 'card_1', pan: '5060990000000000004' });
  });
});
afterAll(() => server.close());

function config(env: 'sandbox' | 'production'): Record<string, string> {
  const dir = scratchDir();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentProfile: 'p', profiles: { p: { baseUrl: server.url, token: 'tok_api_123456', env } } }));
  return isolatedDirs(dir);
}

async function run(argv: string[], options: { env?: 'sandbox' | 'production'; tty?: boolean; answers?: string[] } = {}) {
  const before = server.requests.length;
  const io = testIO({ tty: options.tty });
  const prompter = options.answers ? new ScriptedPrompter(options.answers) : undefined;
  const code = await main([...argv, '--no-retry'], { io, env: { ...config(options.env ?? 'sandbox'), ...(options.tty ? {} : { CI: '1' }) }, prompter, signal: new AbortController().signal });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText(), sent: server.requests.slice(before), asked: prompter?.asked ?? [] };
}

describe('api prints whatever the endpoint answers', () => {
  it('GET /openapi.json -o raw: the body as received, with the final newline of all raw output (was exit 7 "not in the API\'s envelope")', async () => {
    const result = await run(['api', 'GET', '/openapi.json', '-o', 'raw']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${OPENAPI}\n`);
  });

  it('GET /openapi.json -o json and --jq: the whole document', async () => {
    const result = await run(['api', 'GET', '/openapi.json', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(OPENAPI));
    const jq = await run(['api', 'GET', '/openapi.json', '--jq', '.openapi']);
    expect(jq.stdout.trim()).toBe('3.1.0');
  });

  it('GET /sandbox/pin-key: the object as sent', async () => {
    const result = await run(['api', 'GET', '/sandbox/pin-key', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(PIN_KEY);
  });

  it('a text body: as received (plus the final newline) with -o raw and otherwise', async () => {
    expect((await run(['api', 'GET', '/text', '-o', 'raw'])).stdout).toBe('plain text, no newline\n');
    const plain = await run(['api', 'GET', '/text']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe('plain text, no newline\n');
  });

  it('an envelope is still unwrapped (card numbers masked), 204 is empty, errors keep their exit codes', async () => {
    const card = await run(['api', 'GET', '/institutions/cards/card_1', '-o', 'json']);
    expect(JSON.parse(card.stdout)).toEqual({ id: 'card_1', pan: '506099*********0004' });
    const raw = await run(['api', 'GET', '/institutions/cards/card_1', '-o', 'raw']);
    expect(raw.stdout).not.toContain('5060990000000000004');
    expect((await run(['api', 'DELETE', '/empty', '-o', 'raw'])).code).toBe(0);
    expect((await run(['api', 'GET', '/broken'])).code).toBe(7);
  });
});

describe('api writes on a production profile', () => {
  const writes: string[][] = [
    ['POST', '/institutions/cards', '--data', '{}'],
    ['PUT', '/institutions/cards/card_1/renew', '--data', '{}'],
    ['PATCH', '/institutions/users/u1', '--data', '{}'],
    ['DELETE', '/institutions/oauth/app_1'],
    ['GET', '/institutions/cards/card_1/deactivate'],
  ];

  it.each(writes)('%s %s without a terminal: refused, nothing sent; --yes alone refused; --yes --confirm-production sent', async (...call) => {
    const refused = await run(['api', ...call], { env: 'production' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/needs confirmation.*\nhint: pass --yes --confirm-production/);
    expect(refused.sent).toHaveLength(0);
    const yesAlone = await run(['api', ...call, '--yes'], { env: 'production' });
    expect(yesAlone.code).toBe(2);
    expect(yesAlone.stderr).toMatch(/with --yes alone/);
    expect(yesAlone.sent).toHaveLength(0);
    const confirmed = await run(['api', ...call, '--yes', '--confirm-production'], { env: 'production' });
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.sent).toHaveLength(1);
  });

  it('on a terminal the operator types the path; a wrong answer sends nothing', async () => {
    const wrong = await run(['api', 'POST', '/institutions/cards?x=1', '--data', '{}'], { env: 'production', tty: true, answers: ['/institutions/card'] });
    expect(wrong.code).toBe(2);
    expect(wrong.asked[0]).toMatch(/PRODUCTION .*send POST \/institutions\/cards, type the path/);
    expect(wrong.sent).toHaveLength(0);
    const right = await run(['api', 'POST', '/institutions/cards?x=1', '--data', '{}'], { env: 'production', tty: true, answers: ['/institutions/cards'] });
    expect(right.code, right.stderr).toBe(0);
    expect(right.sent).toHaveLength(1);
  });

  it('reads on production and writes on a sandbox ask nothing; --dry-run sends nothing and asks nothing', async () => {
    expect((await run(['api', 'GET', '/institutions/cards/card_1'], { env: 'production' })).code).toBe(0);
    const sandbox = await run(['api', 'POST', '/institutions/cards', '--data', '{}'], { env: 'sandbox' });
    expect(sandbox.code).toBe(0);
    expect(sandbox.sent).toHaveLength(1);
    const dry = await run(['api', 'POST', '/institutions/cards', '--data', '{}', '--dry-run'], { env: 'production' });
    expect(dry.code).toBe(0);
    expect(dry.sent).toHaveLength(0);
  });
});

describe('api -H', () => {
  it('sends the headers given, and the client keeps its own', async () => {
    const result = await run(['api', 'GET', '/institutions/cards/card_1', '-H', 'X-Request-Id: 42', '-H', 'x-trace:a b c', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.sent[0]!.headers['x-request-id']).toBe('42');
    expect(result.sent[0]!.headers['x-trace']).toBe('a b c');
    expect(result.sent[0]!.headers.authorization).toBe('Bearer tok_api_123456');
  });

  it.each([
    ['a line break in the value', 'X-Note: a\r\nX-Evil: 1', /the value contains a line break/],
    ['a control character', 'X-Note: a\u0000b', /a control character/],
    ['a non-ASCII character', 'X-Note: café', /a non-ASCII character/],
    ['no colon', 'X-Note', /give "Name: value"/],
    ['a bad name', 'X Note: 1', /give "Name: value"/],
    ['Authorization', 'Authorization: Bearer x', /-H Authorization is not allowed\nhint: credentials never come from argv/],
    ['x-api-key', 'x-api-key: k', /not allowed/],
    ['Cookie', 'Cookie: a=b', /not allowed/],
    ['Host', 'Host: evil.example.com', /not allowed/],
  ])('%s → exit 2, nothing sent', async (_name, header, message) => {
    const result = await run(['api', 'GET', '/institutions/cards/card_1', '-H', header]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.sent).toHaveLength(0);
  });
});
