// The foundation end to end: the built bin/cardctl.js against a local HTTP server that speaks
// the API's envelope, with a throwaway config directory. Run `npm run build` first.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardctl, tempDir, isolatedDirs } from '../helpers/cli.js';
import { envelope, json, startForwardProxy, startTestServer, type TestServer } from '../helpers/http-server.js';

const TOKEN = 'tok_e2e_5f4e3d2c1b0a99887766';
const CARDS = [
  { id: 'card_2', status: 'active', embossingName: 'ADA OBI', pan: '539983******0008', createdAt: '2026-11-22T10:00:00.000Z' },
  { id: 'card_1', status: 'suspended', embossingName: 'BAYO ADE', pan: '539983******0016', createdAt: '2026-11-21T10:00:00.000Z' },
];

let server: TestServer;
let config: { path: string; remove(): void };
const run = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) => cardctl(args, { configDir: config.path, ...options });

beforeAll(async () => {
  config = tempDir('cardctl-e2e-');
  server = await startTestServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      json(res, 401, { statusCode: 401, message: 'invalid or expired token', error: 'UNAUTHORIZED' });
      return;
    }
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/institutions/cards') {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      envelope(res, CARDS.slice(0, limit), { pagination: { page: 1, limit, total: CARDS.length, pages: 1 } });
      return;
    }
    json(res, 404, { statusCode: 404, message: 'route not found', error: 'NOT_FOUND' });
  });
});
afterAll(async () => {
  await server.close();
  config.remove();
});

describe('cardctl foundation (built binary)', () => {
  it('--version and --help', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const version = await run(['--version']);
    expect(version.exitCode).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = await run(['--help']);
    expect(help.exitCode).toBe(0);
    for (const group of ['cards', 'tx', 'simulate', 'webhook', 'import', 'oauth', 'users', 'login', 'logout', 'auth', 'profile', 'sandbox', 'demo', 'api', 'completion']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${group}\\b`, 'm'));
    }
    const bad = await run(['--frobnicate']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^error: unknown option '--frobnicate'/);
  });

  it('secrets are never taken from argv', async () => {
    const result = await run(['login', '--base-url', server.url, '--token', TOKEN]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("unknown option '--token'");
  });

  it('login --token-stdin stores the profile in a 0600 file inside a 0700 directory', async () => {
    const login = await run(['login', '--base-url', server.url, '--token-stdin'], { input: `${TOKEN}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).not.toContain(TOKEN);
    const file = join(config.path, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(config.path).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ currentProfile: 'default', profiles: { default: { baseUrl: server.url, token: TOKEN } } });
  });

  it('profile list -o json', async () => {
    const result = await run(['profile', 'list', '-o', 'json']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([{ name: 'default', current: true, baseUrl: server.url, env: null, loggedIn: true }]);
    expect(result.stdout).not.toContain(TOKEN);
  });

  it('auth status checks the token with one request and masks it', async () => {
    const before = server.requests.length;
    const result = await run(['auth', 'status', '-o', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const status = JSON.parse(result.stdout);
    expect(status).toMatchObject({ profile: 'default', baseUrl: server.url, tokenStatus: 'valid', token: 'tok_…7766' });
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    expect(server.requests.slice(before).map((r) => r.url)).toEqual(['/institutions/cards?limit=1']);
  });

  it('auth status with a rejected token: invalid, exit 3', async () => {
    const result = await run(['auth', 'status'], { env: { CARDCTL_TOKEN: 'tok_revoked_000000000' } });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toMatch(/^tokenStatus\tinvalid$/m);
    expect(result.stderr).toMatch(/^error: unauthorized/m);
    expect(result.stderr).toMatch(/^hint: .*cardctl login/m);
  });

  it('api GET /institutions/cards: json, piped table, ndjson, quiet', async () => {
    const asJson = await run(['api', 'GET', '/institutions/cards', '-o', 'json']);
    expect(asJson.exitCode, asJson.stderr).toBe(0);
    expect(JSON.parse(asJson.stdout)).toEqual(CARDS);
    const piped = await run(['api', 'GET', '/institutions/cards?limit=1']);
    expect(piped.stdout).toBe('card_2\tactive\tADA OBI\t539983******0008\t2026-11-22T10:00:00.000Z\n');
    const ndjson = await run(['api', 'GET', '/institutions/cards', '-o', 'ndjson', '--fields', 'id,status']);
    expect(ndjson.stdout).toBe('{"id":"card_2","status":"active"}\n{"id":"card_1","status":"suspended"}\n');
    expect((await run(['api', 'GET', '/institutions/cards', '-q'])).stdout).toBe('card_2\ncard_1\n');
  });

  it('-v logs method, URL, status and time on stderr only; exits promptly despite keep-alive', async () => {
    const started = Date.now();
    const result = await run(['api', 'GET', '/institutions/cards', '-o', 'json', '-v']);
    expect(result.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.stderr).toMatch(new RegExp(`GET ${server.url}/institutions/cards → 200 \\(\\d+ ms\\)`));
    expect(() => JSON.parse(result.stdout)).not.toThrow();
  });

  it('errors: 404 → exit 4; plain http to a remote host → exit 2; nothing listening → exit 6', async () => {
    const notFound = await run(['api', 'GET', '/nope', '--json']);
    expect(notFound.exitCode).toBe(4);
    expect(JSON.parse(notFound.stderr.split('\n').find((l) => l.startsWith('{'))!).error.exitCode).toBe(4);
    const http = await run(['api', 'GET', '/x', '--base-url', 'http://api.example.com']);
    expect(http.exitCode).toBe(2);
    const refused = await run(['api', 'GET', '/x', '--base-url', 'http://127.0.0.1:9', '--no-retry']);
    expect(refused.exitCode).toBe(6);
  });

  it('logout --yes keeps the profile without its token', async () => {
    expect((await run(['logout'])).exitCode).toBe(2);
    expect((await run(['logout', '--yes'])).exitCode).toBe(0);
    const file = JSON.parse(readFileSync(join(config.path, 'config.json'), 'utf8'));
    expect(file.profiles.default).toEqual({ baseUrl: server.url });
    expect((await run(['auth', 'status'])).exitCode).toBe(3);
  });

  it('trusts a private CA given in NODE_EXTRA_CA_CERTS (undici uses the Node trust store)', async () => {
    const { default: forge } = await import('node-forge');
    const { createServer } = await import('node:https');
    const { writeFileSync } = await import('node:fs');
    const keys = forge.pki.rsa.generateKeyPair(2048);
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = '01';
    cert.validity.notBefore = new Date(Date.now() - 60_000);
    cert.validity.notAfter = new Date(Date.now() + 86_400_000);
    const subject = [{ name: 'commonName', value: 'localhost' }];
    cert.setSubject(subject);
    cert.setIssuer(subject);
    cert.setExtensions([
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ]);
    cert.sign(keys.privateKey, forge.md.sha256.create());
    const certPem = forge.pki.certificateToPem(cert);
    const caFile = join(config.path, 'private-ca.pem');
    writeFileSync(caFile, certPem);
    const tls = createServer({ key: forge.pki.privateKeyToPem(keys.privateKey), cert: certPem }, (_req, res) => envelope(res, [{ id: 'tls' }]));
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const baseUrl = `https://127.0.0.1:${(tls.address() as { port: number }).port}`;
    try {
      const env = { CARDCTL_BASE_URL: baseUrl, CARDCTL_TOKEN: TOKEN };
      const untrusted = await run(['api', 'GET', '/institutions/cards', '--no-retry'], { env });
      expect(untrusted.exitCode).toBe(6);
      expect(untrusted.stderr).toMatch(/TLS/);
      expect(untrusted.stderr).toMatch(/NODE_EXTRA_CA_CERTS/);
      const trusted = await run(['api', 'GET', '/institutions/cards', '-q'], { env: { ...env, NODE_EXTRA_CA_CERTS: caFile } });
      expect(trusted.exitCode, trusted.stderr).toBe(0);
      expect(trusted.stdout).toBe('tls\n');
    } finally {
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
    }
  });
});

describe('through a proxy from the environment', () => {
  it('HTTP_PROXY: each command goes through it, over undici', async () => {
    // A forward proxy as undici uses one: a CONNECT tunnel to the API.
    const proxy = await startForwardProxy();
    try {
      const env = { CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: TOKEN, HTTP_PROXY: proxy.url };
      const list = await run(['cards', 'list', '--limit', '1', '-o', 'json'], { env });
      expect(list.exitCode, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ id: 'card_2' })]);
      const api = await run(['api', 'GET', '/institutions/cards', '-q'], { env });
      expect([api.exitCode, api.stdout]).toEqual([0, 'card_2\ncard_1\n']);
      expect(proxy.seen).toEqual([`CONNECT ${new URL(server.url).host}`, `CONNECT ${new URL(server.url).host}`]);
    } finally {
      await proxy.close();
    }
  });
});

describe('Ctrl-C', () => {
  it('while login waits for the token on stdin: exit 130 at once, no config written', async () => {
    const { execa } = await import('execa');
    const { BIN, cleanEnv, isolatedDirs } = await import('../helpers/cli.js');
    const { existsSync } = await import('node:fs');
    const dir = tempDir('cardctl-e2e-int-');
    try {
      const child = execa('node', [BIN, 'login', '--base-url', 'https://api.example.com', '--token-stdin'], {
        env: cleanEnv({ ...isolatedDirs(dir.path) }),
        extendEnv: false,
        reject: false,
        stdin: 'pipe',
      });
      await new Promise((resolve) => setTimeout(resolve, 700));
      const started = Date.now();
      child.kill('SIGINT');
      const result = await child;
      expect(result.exitCode).toBe(130);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(result.stderr).toMatch(/^error: interrupted/m);
      expect(existsSync(join(dir.path, 'config.json'))).toBe(false);
    } finally {
      dir.remove();
    }
  });
});
