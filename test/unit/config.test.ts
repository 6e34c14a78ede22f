import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { parsePinKey } from '../../src/config/pin-key.js';
import { tempDir } from '../helpers/cli.js';
import { ScriptedPrompter } from '../../src/core/prompter.js';
import { testContext } from '../helpers/context.js';
import { runCommand } from '../helpers/parse.js';
import { main } from '../../src/app/cli.js';
import { testIO } from '../helpers/context.js';

const mode = (path: string) => statSync(path).mode & 0o777;

let tmp: { path: string; remove(): void };
let dir: string;
beforeEach(() => {
  tmp = tempDir();
  dir = join(tmp.path, 'cfg');
});
afterEach(() => tmp.remove());

async function run(args: string[], options: { env?: Record<string, string>; stdin?: string; tty?: boolean } = {}) {
  const io = testIO({ stdin: options.stdin, tty: options.tty });
  const code = await main(args, { io, env: { CARDCTL_CONFIG_DIR: dir, CARDCTL_DATA_DIR: join(tmp.path, 'data'), ...options.env } });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('config file modes', () => {
  it('creates the file 0600 inside a 0700 directory', async () => {
    const store = new ConfigStore({ CARDCTL_CONFIG_DIR: dir });
    await store.setProfile('default', { baseUrl: 'https://api.example.com', token: 'secret-token-1234567890' });
    expect(mode(dir)).toBe(0o700);
    expect(mode(store.file)).toBe(0o600);
    expect(JSON.parse(readFileSync(store.file, 'utf8')).profiles.default.token).toBe('secret-token-1234567890');
  });

  it('tightens a directory and file that existed with looser modes', async () => {
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: { old: { baseUrl: 'https://old.example.com' } } }), { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(mode(file)).toBe(0o644);
    const store = new ConfigStore({ CARDCTL_CONFIG_DIR: dir });
    await store.setProfile('new', { baseUrl: 'https://new.example.com' });
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    // The existing profile survives the rewrite.
    expect(new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).profileNames()).toEqual(['new', 'old']);
  });

  it('a looser file or directory is tightened when it is read, before any write', async () => {
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: { old: { token: 'tok_old_123456789' } } }));
    chmodSync(file, 0o644);
    expect(new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).profileNames()).toEqual(['old']);
    expect(mode(file)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
  });

  it('every write through the CLI leaves 0600/0700, also after a later write', async () => {
    expect((await run(['login', '--base-url', 'https://api.example.com', '--token-stdin'], { stdin: 'tok_0123456789abcdef\n' })).code).toBe(0);
    chmodSync(join(dir, 'config.json'), 0o666);
    chmodSync(dir, 0o777);
    expect((await run(['profile', 'set', 'switch', 'acme'])).code).toBe(0);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
  });

  it('a change waits for the lock of another, and takes over one whose process has exited', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const lock = join(dir, 'config.json.lock');
    writeFileSync(lock, String(process.pid));
    const store = new ConfigStore({ CARDCTL_CONFIG_DIR: dir });
    let done = false;
    const change = store.setProfile('a', { baseUrl: 'https://a.example.com' }).then(() => { done = true; });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(done).toBe(false);
    rmSync(lock);
    await change;
    expect(existsSync(lock)).toBe(false);

    writeFileSync(lock, '999999999'); // no such process: left by a crash
    await store.setProfile('b', { baseUrl: 'https://b.example.com' });
    expect(new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).profileNames()).toEqual(['a', 'b']);
    expect(existsSync(lock)).toBe(false);
  });

  it('profiles and aliases named like members of Object.prototype are only what the file holds', async () => {
    const store = new ConfigStore({ CARDCTL_CONFIG_DIR: dir });
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(store.getProfile(name)).toBeUndefined();
    const toString: string = 'toString';
    await store.update((config) => {
      config.profiles[toString] = { baseUrl: 'https://t.example.com' };
      config.aliases = { constructor: 'cards list' };
    });
    const again = new ConfigStore({ CARDCTL_CONFIG_DIR: dir });
    expect(again.getProfile(toString)).toEqual({ baseUrl: 'https://t.example.com' });
    expect(again.getProfile('constructor')).toBeUndefined();
    expect(again.read().aliases?.constructor).toBe('cards list');
    expect(again.read().aliases?.toString).toBeUndefined();
  });

  it.each(['constructor', 'toString', '__proto__', 'prototype', 'hasOwnProperty', 'valueOf', 'colour'])('`profile set %s` is an unknown setting (exit 2), nothing written', async (key) => {
    const result = await run(['profile', 'set', key, 'x']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`unknown setting "${key}"`);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('an update starts from the file as it is now (another process may have written)', async () => {
    const first = new ConfigStore({ CARDCTL_CONFIG_DIR: dir });
    const second = new ConfigStore({ CARDCTL_CONFIG_DIR: dir });
    expect(first.profileNames()).toEqual([]);
    await second.setProfile('b', { baseUrl: 'https://b.example.com' });
    await first.setProfile('a', { baseUrl: 'https://a.example.com' });
    expect(new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).profileNames()).toEqual(['a', 'b']);
  });

  it('reports a config file that is not JSON as a usage error', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{not json');
    const result = await run(['profile', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/config file .* is not valid JSON/);
  });
});

describe('environment overrides', () => {
  beforeEach(async () => {
    const store = new ConfigStore({ CARDCTL_CONFIG_DIR: dir });
    await store.update((config) => {
      config.profiles.default = { baseUrl: 'https://default.example.com', token: 'tok-default-000000', apiKey: 'key-default-0000', output: 'csv' };
      config.profiles.staging = { baseUrl: 'https://staging.example.com', token: 'tok-staging-000000' };
      config.currentProfile = 'default';
    });
  });

  it('uses the current profile when nothing else is said', () => {
    const s = testContext({ configDir: dir }).settings();
    expect(s.profileName).toBe('default');
    expect(s.profileExplicit).toBe(false);
    expect(s.baseUrl).toBe('https://default.example.com');
    expect(s.token).toBe('tok-default-000000');
    expect(s.output).toBe('csv');
  });

  it('CARDCTL_PROFILE selects a profile; --profile beats it', () => {
    expect(testContext({ configDir: dir, env: { CARDCTL_PROFILE: 'staging' } }).settings().profileName).toBe('staging');
    const s = testContext({ configDir: dir, env: { CARDCTL_PROFILE: 'staging' }, globals: { profile: 'default' } }).settings();
    expect(s.profileName).toBe('default');
    expect(s.profileExplicit).toBe(true);
  });

  it('CARDCTL_BASE_URL, CARDCTL_TOKEN, CARDCTL_API_KEY, CARDCTL_OUTPUT override the profile; flags beat env', () => {
    const env = {
      CARDCTL_BASE_URL: 'https://env.example.com',
      CARDCTL_TOKEN: 'tok-env',
      CARDCTL_API_KEY: 'key-env',
      CARDCTL_OUTPUT: 'ndjson',
    };
    const s = testContext({ configDir: dir, env }).settings();
    expect([s.baseUrl, s.token, s.apiKey, s.output]).toEqual(['https://env.example.com', 'tok-env', 'key-env', 'ndjson']);
    const f = testContext({ configDir: dir, env, globals: { baseUrl: 'https://flag.example.com', output: 'json' } }).settings();
    expect([f.baseUrl, f.output]).toEqual(['https://flag.example.com', 'json']);
    expect(testContext({ configDir: dir, env, globals: { json: true } }).settings().output).toBe('json');
  });

  it('CARDCTL_DEBUG turns on verbose logging; --debug adds debug', () => {
    expect(testContext({ configDir: dir, env: { CARDCTL_DEBUG: '1' } }).settings().verbose).toBe(true);
    expect(testContext({ configDir: dir, env: { CARDCTL_DEBUG: '0' } }).settings().verbose).toBe(false);
    const d = testContext({ configDir: dir, globals: { debug: true } }).settings();
    expect([d.verbose, d.debug]).toEqual([true, true]);
  });

  it('an unknown CARDCTL_OUTPUT is a usage error (exit 2)', async () => {
    const result = await run(['profile', 'show'], { env: { CARDCTL_OUTPUT: 'yaml' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown output format "yaml"');
  });

  it('NO_COLOR, FORCE_COLOR, --no-color and CI', () => {
    expect(testContext({ configDir: dir, tty: true }).io.colorEnabled).toBe(true);
    expect(testContext({ configDir: dir, tty: true, env: { NO_COLOR: '1' } }).io.colorEnabled).toBe(false);
    expect(testContext({ configDir: dir, tty: true, globals: { color: false } }).io.colorEnabled).toBe(false);
    expect(testContext({ configDir: dir, tty: false, env: { FORCE_COLOR: '1' }, globals: { color: undefined } }).io.colorEnabled).toBe(true);
    expect(testContext({ configDir: dir, tty: true, env: { CI: 'true' } }).io.canPrompt).toBe(false);
    expect(testContext({ configDir: dir, tty: true, globals: { input: false } }).io.canPrompt).toBe(false);
    expect(testContext({ configDir: dir, tty: true }).io.canPrompt).toBe(true);
  });

  it('a profile with requireExplicitProfile refuses API commands unless named', async () => {
    await new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).update((config) => {
      config.profiles.default!.requireExplicitProfile = true;
    });
    const implicit = await run(['api', 'GET', '/institutions/cards']);
    expect(implicit.code).toBe(2);
    expect(implicit.stderr).toContain('must be named explicitly');
    const named = await run(['-p', 'default', 'api', 'GET', '/institutions/cards', '--no-retry'], { env: { CARDCTL_BASE_URL: 'http://127.0.0.1:9' } });
    expect(named.code).toBe(6); // got as far as the network (nothing listens on port 9)
    expect(named.stderr).not.toContain('must be named explicitly');
  });

  it('CARDCTL_CONFIG_DIR decides where the file lives', () => {
    expect(new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).file).toBe(join(dir, 'config.json'));
  });
});

describe('profiles through the CLI', () => {
  it('login, list, use, show, set, remove', async () => {
    expect((await run(['login', '--base-url', 'https://a.example.com/', '--token-stdin'], { stdin: 'tok_aaaaaaaaaaaaaaaa' })).code).toBe(0);
    expect((await run(['-p', 'b', 'login', '--base-url', 'https://b.example.com', '--token-stdin', '--no-use'], { stdin: 'tok_bbbbbbbbbbbbbbbb' })).code).toBe(0);
    let list = JSON.parse((await run(['profile', 'list', '-o', 'json'])).stdout);
    expect(list).toEqual([
      { name: 'b', current: false, baseUrl: 'https://b.example.com', env: null, loggedIn: true },
      { name: 'default', current: true, baseUrl: 'https://a.example.com', env: null, loggedIn: true },
    ]);

    expect((await run(['profile', 'use', 'b'])).code).toBe(0);
    list = JSON.parse((await run(['profile', 'list', '--json'])).stdout);
    expect(list.find((p: { current: boolean }) => p.current).name).toBe('b');
    expect(testContext({ configDir: dir }).settings().token).toBe('tok_bbbbbbbbbbbbbbbb');

    const unknown = await run(['profile', 'use', 'nope']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('no profile named "nope"');

    const shown = await run(['profile', 'show', 'default', '-o', 'json']);
    const view = JSON.parse(shown.stdout);
    expect(view.token).toBe('tok_…aaaa');
    expect(shown.stdout).not.toContain('tok_aaaaaaaaaaaaaaaa');

    expect((await run(['profile', 'set', 'output', 'json'])).code).toBe(0);
    expect((await run(['profile', 'set', 'requireReason', 'yes'])).code).toBe(0);
    const profile = new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).getProfile('b')!;
    expect(profile.output).toBe('json');
    expect(profile.requireReason).toBe(true);
    for (const bad of [['output', 'yaml'], ['token', 'x'], ['baseUrl', 'http://example.com'], ['switch', 'a/b'], ['requireReason', 'maybe']]) {
      const result = await run(['profile', 'set', ...bad]);
      expect(result.code, bad.join(' ')).toBe(2);
    }

    const refused = await run(['profile', 'remove', 'default']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect((await run(['profile', 'remove', 'default', '--yes'])).code).toBe(0);
    expect(new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).profileNames()).toEqual(['b']);
  });

  it('login: token and API key on two stdin lines, PIN key fingerprint, switch, env', async () => {
    const { generateKeyPairSync, createHash, createPublicKey } = await import('node:crypto');
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const pemFile = join(tmp.path, 'pin.pem');
    writeFileSync(pemFile, pem);
    const result = await run(
      ['-p', 'prod', 'login', '--base-url', 'https://api.example.com', '--token-stdin', '--api-key-stdin', '--pin-key', pemFile, '--switch', 'acme', '--env', 'production'],
      { stdin: 'tok_line_one_123456\r\nkey_line_two_654321\n' },
    );
    expect(result.code, result.stderr).toBe(0);
    const profile = new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).getProfile('prod')!;
    expect(profile.token).toBe('tok_line_one_123456');
    expect(profile.apiKey).toBe('key_line_two_654321');
    expect(profile.switch).toBe('acme');
    expect(profile.env).toBe('production');
    const expected = createHash('sha256').update(createPublicKey(pem).export({ type: 'spki', format: 'der' })).digest('hex');
    expect(profile.pinKeyFingerprint).toBe(expected);
    expect(profile.pinKeyFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect((await parsePinKey(profile.pinKey!)).fingerprint).toBe(expected);
    expect(result.stdout + result.stderr).not.toContain('tok_line_one_123456');
  });

  it('login without a TTY names the missing flag; bad inputs are usage errors', async () => {
    const noUrl = await run(['login', '--token-stdin'], { stdin: 'tok_x_1234567890' });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('--base-url');
    const noToken = await run(['login', '--base-url', 'https://api.example.com']);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('--token-stdin');
    const badName = await run(['-p', 'a/b', 'login', '--base-url', 'https://api.example.com', '--token-stdin'], { stdin: 'tok_x_1234567890' });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('invalid profile name');
    const empty = await run(['login', '--base-url', 'https://api.example.com', '--token-stdin'], { stdin: '\n' });
    expect(empty.code).toBe(2);
    const http = await run(['login', '--base-url', 'http://api.example.com', '--token-stdin'], { stdin: 'tok_1234567890' });
    expect(http.code).toBe(2);
    expect(http.stderr).toContain('refusing plain http://');
    writeFileSync(join(tmp.path, 'bad.pem'), 'not a key');
    const badKey = await run(['login', '--base-url', 'https://api.example.com', '--token-stdin', '--pin-key', join(tmp.path, 'bad.pem')], { stdin: 'tok_1234567890' });
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('--pin-key');
    const badSwitch = await run(['login', '--base-url', 'https://api.example.com', '--token-stdin', '--switch', 'a/b'], { stdin: 'tok_1234567890' });
    expect(badSwitch.code).toBe(2);
    expect(badSwitch.stderr).toContain('invalid --switch "a/b": expected one URL path segment');
    expect(new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).profileNames()).toEqual([]);
  });

  it('interactive login asks for the base URL and the token (hidden)', async () => {
    const prompter = new ScriptedPrompter(['https://tty.example.com', 'tok_typed_1234567890', '', '']);
    const ctx = testContext({ configDir: dir, tty: true, prompter });
    const { default: login } = await import('../../src/commands/login.js');
    await runCommand(login, ctx, []);
    expect(prompter.asked).toEqual(['API base URL', 'Access token (input hidden)', 'API key for `cardctl import` (optional, Enter to skip)', 'PIN public key file, PEM (optional, Enter to skip)']);
    const profile = new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).getProfile('default')!;
    expect(profile).toMatchObject({ baseUrl: 'https://tty.example.com', token: 'tok_typed_1234567890' });
    expect(profile.apiKey).toBeUndefined();
  });

  it('logout removes the secrets but keeps the settings; needs --yes without a TTY', async () => {
    await run(['login', '--base-url', 'https://api.example.com', '--token-stdin', '--api-key-stdin', '--switch', 'sw'], { stdin: 'tok_1234567890abc\nkey_1234567890abc\n' });
    const refused = await run(['logout']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect((await run(['logout', '--yes'])).code).toBe(0);
    const profile = new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).getProfile('default')!;
    expect(profile).toEqual({ baseUrl: 'https://api.example.com', switch: 'sw' });
    const ctx = testContext({ configDir: dir, tty: true, answers: [false] });
    const { default: logout } = await import('../../src/commands/logout.js');
    await ctx.config.setProfile('default', { baseUrl: 'https://api.example.com', token: 'tok_again_123456' });
    await expect(runCommand(logout, ctx, [])).rejects.toThrow(/cancelled/);
    expect(new ConfigStore({ CARDCTL_CONFIG_DIR: dir }).getProfile('default')!.token).toBe('tok_again_123456');
  });

  it('login with --client-id goes through loginWithClientCredentials', async () => {
    const result = await run(['login', '--base-url', 'https://api.example.com', '--client-id', 'app1', '--private-key', join(tmp.path, 'k.pem')]);
    // Only the routing to the client-credentials login is checked here (test/unit/client-credentials.test.ts
    // covers the login itself); k.pem does not exist, so the login fails before any request.
    expect([0, 1, 2, 3, 6]).toContain(result.code);
    if (result.code === 1) expect(result.stderr).toContain('login --client-id');
    const half = await run(['login', '--base-url', 'https://api.example.com', '--client-id', 'app1']);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--private-key');
  });
});
