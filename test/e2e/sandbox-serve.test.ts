// `cardctl sandbox serve` as a process: the --json line, the banner and log on stderr,
// --profile, clean shutdown on SIGINT/SIGTERM, and usage errors.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, cardctl, cleanEnv, startSandboxProcess, tempDir, isolatedDirs } from '../helpers/cli.js';
import { call, type DataEnvelope, type ListDataEnvelope } from '../sandbox/helpers.js';
import type { Card, CardProgram, SandboxHealth } from '../../src/api/schemas.js';

const dirs: Array<{ remove(): void }> = [];
afterAll(() => dirs.forEach((dir) => dir.remove()));
function dir() {
  const made = tempDir('cardctl-serve-');
  dirs.push(made);
  return made.path;
}

describe('sandbox serve', () => {
  test('--json prints one JSON object first; the log has one line per request without query strings or secrets; SIGTERM exits 0', async () => {
    const sandbox = await startSandboxProcess([], { configDir: dir() });
    const info = sandbox.info;
    expect(Object.keys(info).sort()).toEqual(['apiKey', 'baseUrl', 'cardProgramId', 'inspectorUrl', 'institutionId', 'pinKeyFingerprint', 'token']);
    expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.inspectorUrl).toMatch(new RegExp(`^${info.baseUrl}/sandbox/inspector\\?token=insp_[A-Za-z0-9_-]{43}$`));
    const inspectorToken = new URL(info.inspectorUrl).searchParams.get('token')!;
    expect((await fetch(info.inspectorUrl)).status).toBe(200);
    expect(info.token.length).toBeGreaterThanOrEqual(22);
    expect(info.pinKeyFingerprint).toMatch(/^[0-9a-f]{64}$/);

    const health = await call<SandboxHealth>(info, 'GET', '/sandbox/health');
    expect(health.body).toMatchObject({ status: 'ok', storage: 'memory' });
    const list = await call<ListDataEnvelope<Card>>(info, 'GET', '/institutions/cards?search=secret-term&limit=5', { token: info.token });
    expect(list.status).toBe(200);
    expect((await call<ListDataEnvelope<Card>>(info, 'GET', '/institutions/cards', { token: 'nope' })).status).toBe(401);

    await sandbox.stop('SIGTERM');
    const result = await sandbox.process;
    expect(result.exitCode).toBe(0);
    const log = sandbox.log();
    expect(log).toMatch(/^GET \/sandbox\/health 200 \d+(\.\d+)?ms$/m);
    expect(log).toMatch(/^GET \/institutions\/cards 200 \d+(\.\d+)?ms$/m);
    expect(log).toMatch(/^GET \/institutions\/cards 401 /m);
    expect(log).not.toContain('secret-term');
    expect(log).not.toContain(info.token);
    expect(log).not.toContain(info.apiKey);
    expect(log).toMatch(/^GET \/sandbox\/inspector 200 /m);
    expect(log).not.toContain(inspectorToken);
  });

  test('SIGINT shuts down cleanly with exit 0', async () => {
    const sandbox = await startSandboxProcess(['--quiet-log'], { configDir: dir() });
    await call<SandboxHealth>(sandbox.info, 'GET', '/sandbox/health');
    await sandbox.stop('SIGINT');
    const result = await sandbox.process;
    expect(result.exitCode).toBe(0);
    expect(sandbox.log()).not.toMatch(/GET \/sandbox\/health/);
  });

  test('without --json: a banner on stderr with the base URL and a masked token, nothing on stdout', async () => {
    const config = dir();
    const child = execa('node', [BIN, 'sandbox', 'serve', '--port', '0', '--memory'], {
      env: cleanEnv({ CARDCTL_CONFIG_DIR: config, CARDCTL_DATA_DIR: config }), extendEnv: false, reject: false,
    });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner: ${stderr}`)), 20_000);
      child.stderr!.on('data', (chunk) => {
        stderr += chunk;
        if (stderr.includes('Ctrl-C')) { clearTimeout(timer); resolve(); }
      });
    });
    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('');
    expect(stderr).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(stderr).toMatch(/token\s+sbx_…/);
    expect(stderr).toMatch(/inspector\s+http:\/\/127\.0\.0\.1:\d+\/sandbox\/inspector\?token=insp_[A-Za-z0-9_-]{43}\n/);
    expect(stderr).not.toMatch(/sbx_tok_[A-Za-z0-9_-]{20,}/);
  });

  test('--profile stores the credentials and PIN key as that profile and makes it current; SIGTERM still exits 0', async () => {
    const config = dir();
    const sandbox = await startSandboxProcess(['--profile', 'local'], { configDir: config });
    const file = JSON.parse(readFileSync(join(config, 'config.json'), 'utf8'));
    expect(file.currentProfile).toBe('local');
    expect(file.profiles.local).toMatchObject({
      baseUrl: sandbox.info.baseUrl,
      token: sandbox.info.token,
      apiKey: sandbox.info.apiKey,
      pinKeyFingerprint: sandbox.info.pinKeyFingerprint,
      env: 'sandbox',
      pinKey: expect.stringContaining('BEGIN PUBLIC KEY'),
    });
    // Writing the profile must not cost the clean shutdown on SIGTERM.
    await sandbox.stop('SIGTERM');
    expect((await sandbox.process).exitCode).toBe(0);
  });

  test('a --webhook-url lands on the seeded program', async () => {
    const sandbox = await startSandboxProcess(['--webhook-url', 'http://127.0.0.1:9/hook'], { configDir: dir() });
    const programs = await call<DataEnvelope<CardProgram[]>>(sandbox.info, 'GET', '/sandbox/card-programs', { token: sandbox.info.token });
    expect(programs.body.data[0].webHookConfig.url).toBe('http://127.0.0.1:9/hook');
    await sandbox.stop();
  });

  test('--webhook-faults and its seed are what GET /sandbox/webhook-faults shows', async () => {
    const sandbox = await startSandboxProcess(['--webhook-faults', 'delay=10-20ms,deadline=2s,reply-lost=0.5', '--webhook-faults-seed', '9'], { configDir: dir() });
    const faults = await call(sandbox.info, 'GET', '/sandbox/webhook-faults', { token: sandbox.info.token });
    expect(faults.body).toEqual({ spec: 'delay=10-20ms,deadline=2000ms,reply-lost=0.5', seed: 9, programs: [] });
    await sandbox.stop();
  });

  test.each([
    [['--faults', 'rate=0.1,bogus=1'], /invalid --faults: unknown fault "bogus"/],
    [['--faults', 'rate=2'], /invalid --faults: invalid fault rate=2/],
    [['--faults', 'latency=9-1ms'], /invalid fault latency/],
    [['--faults', 'codes=200'], /invalid fault codes/],
    [['--faults-seed', 'x7'], /invalid --faults-seed/],
    [['--faults', 'reset=0.1', '--faults-hold', '0'], /invalid --faults-hold/],
    [['--webhook-faults', 'deadline=2s,bogus=1'], /invalid --webhook-faults: unknown webhook fault "bogus"/],
    [['--webhook-faults', 'deadline=1s,deadline=2s'], /invalid --webhook-faults: webhook fault "deadline" is given twice/],
    [['--webhook-faults', 'deadline=0.5ms'], /invalid --webhook-faults: deadline is finer than a millisecond/],
    [['--faults', 'reset=0.1', '--faults-hold', '0.5ms'], /invalid --faults-hold: .*finer than a millisecond/],
    [['--webhook-faults-seed', '-1'], /invalid --webhook-faults-seed/],
    [['--port', 'abc'], /invalid --port/],
    [['--port', '70000'], /invalid --port/],
    [['--memory', '--db', 'x.db'], /cannot be used together/],
    [['--token-ttl', '0'], /invalid --token-ttl/],
    [['--webhook-url', 'ftp://x'], /invalid --webhook-url/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const result = await cardctl(['sandbox', 'serve', '--port', '0', ...args], { configDir: dir(), timeout: 20_000 });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});

describe('an ephemeral profile', () => {
  test('--memory --port 0 --profile NAME marks the profile ephemeral; used after its sandbox stopped, the error says so and how to start one', async () => {
    const config = dir();
    const sandbox = await startSandboxProcess(['--profile', 'scratch'], { configDir: config });
    const stored = JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')).profiles.scratch;
    expect(stored).toMatchObject({ ephemeral: true, baseUrl: sandbox.info.baseUrl, env: 'sandbox' });
    expect((await cardctl(['cards', 'list', '-p', 'scratch', '-q'], { configDir: config })).exitCode).toBe(0);
    await sandbox.stop();
    const after = await cardctl(['cards', 'list', '-p', 'scratch'], { configDir: config });
    expect(after.exitCode).toBe(6);
    expect(after.stderr).toMatch(/^error: the sandbox of profile "scratch" has stopped \(http:\/\/127\.0\.0\.1:\d+ refused the connection\): it was in memory/);
    expect(after.stderr).toMatch(/\nhint: start one again with `cardctl sandbox serve --memory --profile scratch`/);
    // A profile kept on disk is not ephemeral: a refusal there is the plain one.
    const kept = await startSandboxProcess(['--profile', 'kept', '--db', join(config, 'kept.db')], { configDir: config });
    await kept.stop();
    expect(JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')).profiles.kept).not.toHaveProperty('ephemeral');
    expect((await cardctl(['cards', 'list', '-p', 'kept'], { configDir: config })).stderr).toMatch(/^error: connection refused/);
  }, 60_000);
});

describe('sandbox serve storage and binding', () => {
  test('without --db or --memory the database lives in the data directory and survives a restart', async () => {
    const config = dir();
    const env = cleanEnv({ CARDCTL_CONFIG_DIR: config, CARDCTL_DATA_DIR: config });
    const start = async () => {
      const child = execa('node', [BIN, 'sandbox', 'serve', '--port', '0', '-o', 'json', '--quiet-log'], { env, extendEnv: false, reject: false, buffer: false });
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout!.once('data', (chunk) => resolve(String(chunk).split('\n')[0]!));
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      return { child, info: JSON.parse(line) };
    };
    const first = await start();
    const health = await call<SandboxHealth>(first.info, 'GET', '/sandbox/health');
    expect(health.body.storage).toBe('file');
    expect(readFileSync(join(config, 'sandbox.db')).length).toBeGreaterThan(0);
    first.child.kill('SIGTERM');
    expect((await first.child).exitCode).toBe(0);
    const second = await start();
    expect(second.info.token).toBe(first.info.token);
    second.child.kill('SIGTERM');
    await second.child;
  });

  test('a non-loopback --host prints a warning naming what it opens', async () => {
    const child = execa('node', [BIN, 'sandbox', 'serve', '--port', '0', '--memory', '--host', '0.0.0.0', '--json'], {
      env: cleanEnv({ ...isolatedDirs(dir()) }), extendEnv: false, reject: false, buffer: false,
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const line = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk) => resolve(String(chunk).split('\n')[0]!)));
    const info = JSON.parse(line);
    expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await call<SandboxHealth>(info, 'GET', '/sandbox/health')).status).toBe(200);
    child.kill('SIGTERM');
    await child;
    expect(stderr).toMatch(/warning: binding to 0\.0\.0\.0 publishes the sandbox: other machines reach the API, and the \/sandbox helpers too \(new institutions with their tokens, the switch clock, faults, advice delivery, replays to any URL\); requests must name it as any address of this machine, localhost, 127\.0\.0\.1 or \[::1\] in their Host header; the inspector stays loopback only/);
  });
});
