// End to end: `simulate load --export artillery` through the built binary, and the script run by
// Artillery itself on this machine: against `webhook listen` holding the program's secret (green,
// every message's signature verified by the listener, the mix and the reversals as asked), and
// against a handler answering 503 (red through `ensure`). Artillery is installed into a cache
// folder outside the repository (about 35 s and 500 MB the first time, --ignore-scripts: no
// browser download) and reused; the test is skipped, saying why, when it cannot be installed.
// Telemetry is off and the processor only talks to 127.0.0.1.
import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardctl, startSandboxProcess, startWebhookListener, tempDir, type RunningSandbox, type WebhookListener } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/http-server.js';
import { call, createCardOverHttp } from '../sandbox/helpers.js';

/** The Artillery the test runs: 2.0.21, the last whose engines include Node 20 (later ones want Node 22). */
const ARTILLERY_VERSION = '2.0.21';
const SECRET = 'load-test-secret-of-the-program-0123456789';

/**
 * Outside the repository's files and the tests' fake HOME (removed after every run): node_modules'
 * cache folder, or CARDCTL_TEST_CACHE.
 */
function cacheFolder(): string {
  const base = process.env.CARDCTL_TEST_CACHE ?? fileURLToPath(new URL('../../node_modules/.cache/cardctl-test', import.meta.url));
  return join(base, `artillery-${ARTILLERY_VERSION}`);
}

async function installArtillery(): Promise<{ bin: string } | { skip: string }> {
  const folder = cacheFolder();
  const bin = join(folder, 'node_modules', '.bin', 'artillery');
  if (existsSync(bin)) return { bin };
  mkdirSync(folder, { recursive: true });
  const installed = await execa('npm', ['install', '--prefix', folder, `artillery@${ARTILLERY_VERSION}`, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel', 'error'], { reject: false, timeout: 600_000 });
  if (installed.exitCode !== 0 || !existsSync(bin)) return { skip: `Artillery ${ARTILLERY_VERSION} could not be installed into ${folder}: ${(installed.stderr || installed.stdout).split('\n').slice(-3).join(' ')}` };
  return { bin };
}

let artillery: { bin: string } | { skip: string };
let config: { path: string; remove(): void };
let sandbox: RunningSandbox;
let listener: WebhookListener;
let refusing: TestServer;
let env: Record<string, string>;
let cards: string[];

const program = () => `/sandbox/card-programs/${sandbox.info.cardProgramId}`;

beforeAll(async () => {
  artillery = await installArtillery();
  config = tempDir();
  listener = await startWebhookListener({ configDir: config.path, secret: SECRET, args: ['--respond', '00'] });
  refusing = await startTestServer((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end('{"error":"unavailable"}');
  });
  sandbox = await startSandboxProcess([], { configDir: config.path });
  env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
  const set = await call(sandbox.info, 'PUT', program(), { token: sandbox.info.token, body: { webHookConfig: { url: listener.url, secret: SECRET } } });
  expect(set.status, set.text).toBe(200);
  cards = [await createCardOverHttp(sandbox.info), await createCardOverHttp(sandbox.info)];
}, 700_000);

afterAll(async () => {
  await sandbox?.stop();
  await listener?.stop();
  await refusing?.close();
  config?.remove();
});

const exportLoad = (dir: string, extra: string[] = []) => cardctl(['simulate', 'load', '--rate', '10/s', '--duration', '3s', '--card', cards[0]!, '--card', cards[1]!,
  '--mix', 'authorization=60,financial=20,reversal=20', '--channel', 'pos', '--channel', 'web', '--max-p99', '1500ms', '--max-timeouts', '1%', '--min-approval', '95%',
  '--export', 'artillery', dir, ...extra], { configDir: config.path, env, timeout: 60_000 });

function runArtillery(bin: string, script: string, report: string) {
  return execa(bin, ['run', '--output', report, script], {
    env: { ...process.env, ARTILLERY_DISABLE_TELEMETRY: 'true', CARDCTL_WEBHOOK_SECRET: SECRET, NO_COLOR: '1' },
    reject: false, timeout: 180_000,
  });
}

/** Every file of the export, as text. */
function exported(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

describe('simulate load --export artillery', () => {
  it('writes the script without the secret (the cards 0600), and Artillery runs it green against webhook listen: every signature verified', async (context) => {
    if ('skip' in artillery) return context.skip(artillery.skip);
    const dir = join(config.path, 'green');
    const result = await exportLoad(dir);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Wrote an Artillery load script to ${dir}`);
    expect(result.stdout).toContain('artillery run-fargate --count N');
    const files = exported(dir);
    expect(Object.keys(files).sort()).toEqual(['README.md', 'cardctl-load.yml', 'cards.json', 'processor.cjs', 'traffic.json']);
    for (const [name, text] of Object.entries(files)) expect(text, name).not.toContain(SECRET);
    expect(statSync(join(dir, 'cards.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(files['cards.json']!).sandboxTestData).toMatch(/Test cards of a cardctl sandbox/);
    expect(files['processor.cjs']).not.toMatch(/require\("(?!node:)/);

    const before = listener.lines.length;
    const run = await runArtillery((artillery as { bin: string }).bin, join(dir, 'cardctl-load.yml'), join(config.path, 'green-report.json'));
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    const report = JSON.parse(readFileSync(join(config.path, 'green-report.json'), 'utf8')).aggregate.counters;
    // 30 arrivals: 18 authorizations, 6 financials, 6 reversals of approved ones (each runner reverses its own).
    expect(report['cardctl.requests'], JSON.stringify(report)).toBe(30);
    expect(report['cardctl.approved']).toBe(30);
    expect(report['cardctl.no_valid_answer']).toBe(0);
    const exchanges = listener.lines.slice(before).map((line) => JSON.parse(line));
    expect(exchanges).toHaveLength(30);
    expect(exchanges.every((exchange) => exchange.signature === 'valid')).toBe(true);
    const mtis = exchanges.reduce((counts: Record<string, number>, exchange) => ({ ...counts, [exchange.mti]: (counts[exchange.mti] ?? 0) + 1 }), {});
    expect(mtis).toEqual({ '0100': 18, '0200': 6, '0420': 6 });
  }, 300_000);

  it('shows no full card number, with --debug either, and -o json says what was written', async () => {
    const dir = join(config.path, 'debug');
    const result = await exportLoad(dir, ['--debug', '-o', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const pans = JSON.parse(readFileSync(join(dir, 'cards.json'), 'utf8')).cards.map((card: { pan: string }) => card.pan);
    expect(pans).toHaveLength(2);
    expect(result.stderr).toMatch(/POST http:\/\/127.0.0.1:\d+\/sandbox\/card-pool/);
    for (const pan of pans) expect(`${result.stdout}${result.stderr}`).not.toContain(pan);
    expect(JSON.parse(result.stdout)).toMatchObject({ directory: dir, files: ['cardctl-load.yml', 'processor.cjs', 'traffic.json', 'cards.json', 'README.md'],
      phases: [{ duration: 3, arrivalRate: 10 }], ensure: expect.arrayContaining([{ expression: 'cardctl.no_valid_answer / cardctl.requests <= 0', meaning: expect.any(String) }]) });
  });

  it('refuses what it cannot export, writing nothing: a program without a webhook URL, --concurrency', async () => {
    const dir = join(config.path, 'refused');
    await call(sandbox.info, 'PUT', program(), { token: sandbox.info.token, body: { webHookConfig: { url: '' } } });
    try {
      const result = await exportLoad(dir);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/card program \S+ has no webhook URL to send to/);
      expect(existsSync(dir)).toBe(false);
      expect(readdirSync(config.path).filter((name) => name.includes('.tmp'))).toEqual([]);
    } finally {
      await call(sandbox.info, 'PUT', program(), { token: sandbox.info.token, body: { webHookConfig: { url: listener.url } } });
    }
    const closed = await cardctl(['simulate', 'load', '--concurrency', '2', '--card', cards[0]!, '--export', 'artillery', dir], { configDir: config.path, env, timeout: 60_000 });
    expect(closed.exitCode).toBe(2);
    expect(closed.stderr).toMatch(/--export artillery needs --rate/);
  });

  it('against a handler answering 503 (after a ramp): every reply an error, the run red through ensure', async (context) => {
    if ('skip' in artillery) return context.skip(artillery.skip);
    const dir = join(config.path, 'red');
    const result = await exportLoad(dir, ['--url', `${refusing.url}/card-auth`, '--ramp', '2s']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(readFileSync(join(dir, 'cardctl-load.yml'), 'utf8')).toMatch(/arrivalRate: 0\n\s+rampTo: 10\n/);
    const run = await runArtillery((artillery as { bin: string }).bin, join(dir, 'cardctl-load.yml'), join(config.path, 'red-report.json'));
    expect(run.exitCode, run.stdout).not.toBe(0);
    expect(run.stdout).toMatch(/fail: cardctl\.no_valid_answer \/ cardctl\.requests <= 0/);
    const report = JSON.parse(readFileSync(join(config.path, 'red-report.json'), 'utf8')).aggregate.counters;
    expect(report['cardctl.http_error']).toBeGreaterThan(0);
    expect(report['cardctl.approved']).toBe(0);
    expect(refusing.requests.every((request) => request.url === '/card-auth')).toBe(true);
  }, 300_000);
});
