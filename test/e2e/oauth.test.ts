// keygen → oauth create → oauth list → login with client credentials → cards list, and the
// token renewing itself after it expires (sandbox --token-ttl 2).
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardctl, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { createCardOverHttp } from '../sandbox/helpers.js';

function readProfile(configDir: string, name: string): Record<string, string> {
  return JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles[name];
}

async function registerApp(sandbox: RunningSandbox, configDir: string, keys: string, name: string): Promise<string> {
  const env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
  const keygen = await cardctl(['oauth', 'keygen', '--out', keys, '--subject', name, '--json'], { configDir });
  expect(keygen.exitCode, keygen.stderr).toBe(0);
  const created = await cardctl(['oauth', 'create', '--name', name, '--public-key', join(keys, 'certificate.pem'),
    '--scope', 'read:card', '--scope', 'read:transaction', '--grant-type', 'client_credentials', '--json'], { configDir, env });
  expect(created.exitCode, created.stderr).toBe(0);
  return JSON.parse(created.stdout).institutionId;
}

describe('OAuth applications and client-credentials login', () => {
  let sandbox: RunningSandbox;
  const config = tempDir();
  const keys = tempDir();

  beforeAll(async () => {
    sandbox = await startSandboxProcess();
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
    config.remove();
    keys.remove();
  });

  it('keygen → create → list → login → cards list with the obtained token', async () => {
    const configDir = config.path;
    const keygen = await cardctl(['oauth', 'keygen', '--out', keys.path, '--subject', 'reconciler', '--days', '30', '--json'], { configDir });
    expect(keygen.exitCode, keygen.stderr).toBe(0);
    const printed = JSON.parse(keygen.stdout);
    const cert = new X509Certificate(readFileSync(join(keys.path, 'certificate.pem')));
    expect(printed.fingerprint).toBe(cert.fingerprint256);
    expect(cert.subject).toBe('CN=reconciler');
    expect(statSync(join(keys.path, 'private-key.pem')).mode & 0o777).toBe(0o600);

    const again = await cardctl(['oauth', 'keygen', '--out', keys.path], { configDir });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/--force/);

    const env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
    const created = await cardctl(['oauth', 'create', '--name', 'reconciler', '--public-key', join(keys.path, 'certificate.pem'),
      '--scope', 'read:card', '--scope', 'read:transaction', '--grant-type', 'client_credentials', '--description', 'nightly', '--json'], { configDir, env });
    expect(created.exitCode, created.stderr).toBe(0);
    const app = JSON.parse(created.stdout);
    expect(app).toMatchObject({ name: 'reconciler', grantType: 'client_credentials', scopes: ['read:card', 'read:transaction'], subject: 'CN=reconciler' });

    const list = await cardctl(['oauth', 'list', '--json'], { configDir, env });
    expect(list.exitCode, list.stderr).toBe(0);
    const apps = JSON.parse(list.stdout);
    expect(apps.map((a: { institutionId: string }) => a.institutionId)).toContain(app.institutionId);
    const table = await cardctl(['oauth', 'list'], { configDir, env });
    expect(table.stdout).toContain(app.institutionId);
    expect(table.stdout).toContain('client_credentials');

    const login = await cardctl(['login', '-p', 'cc', '--base-url', sandbox.info.baseUrl, '--client-id', app.institutionId,
      '--private-key', join(keys.path, 'private-key.pem')], { configDir });
    expect(login.exitCode, login.stderr).toBe(0);
    const profile = readProfile(configDir, 'cc');
    expect(profile).toMatchObject({ clientId: app.institutionId, privateKeyPath: join(keys.path, 'private-key.pem'), tokenUrl: `${sandbox.info.baseUrl}/oauth/token` });
    expect(profile.token).toBeTruthy();
    expect(JSON.stringify(profile)).not.toMatch(/PRIVATE KEY/);

    const cards = await cardctl(['-p', 'cc', 'cards', 'list', '--json'], { configDir });
    expect(cards.exitCode, cards.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(cards.stdout))).toBe(true);

    const updated = await cardctl(['oauth', 'update', app.institutionId, '--scope', 'read:card', '--description', 'hourly',
      '--website-url', 'https://example.com', '--json'], { configDir, env });
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ name: 'reconciler', description: 'hourly', scopes: ['read:card'] });
  }, 120_000);

  it('a read-only application: writes exit 3 with a hint naming the missing scope, and change nothing', async () => {
    const configDir = config.path;
    const roKeys = tempDir();
    try {
      const clientId = await registerApp(sandbox, configDir, roKeys.path, 'read-only');
      const login = await cardctl(['login', '-p', 'ro', '--base-url', sandbox.info.baseUrl, '--client-id', clientId,
        '--private-key', join(roKeys.path, 'private-key.pem')], { configDir });
      expect(login.exitCode, login.stderr).toBe(0);
      const cardId = await createCardOverHttp(sandbox.info);
      expect((await cardctl(['-p', 'ro', 'cards', 'get', cardId, '--json'], { configDir })).exitCode).toBe(0);

      const deactivate = await cardctl(['-p', 'ro', 'cards', 'deactivate', cardId, '--yes'], { configDir });
      expect(deactivate.exitCode).toBe(3);
      expect(deactivate.stdout).toBe('');
      expect(deactivate.stderr).toMatch(/lacks scope update:card/);
      expect(deactivate.stderr).toMatch(/hint: this token lacks scope update:card; use a profile whose application/);
      expect(deactivate.stderr).not.toMatch(/\n\s+at /);

      const escalate = await cardctl(['-p', 'ro', 'oauth', 'create', '--name', 'escalate', '--public-key', join(roKeys.path, 'certificate.pem'),
        '--scope', '*', '--grant-type', 'client_credentials', '-o', 'json'], { configDir });
      expect(escalate.exitCode).toBe(3);
      expect(escalate.stdout).toBe('');
      // With -o json the error object is the last line of stderr, after the error and hint lines.
      const error = JSON.parse(escalate.stderr.trim().split('\n').at(-1)!).error;
      expect(error).toMatchObject({ code: 'FORBIDDEN', exitCode: 3, status: 403, details: { requiredScope: 'create:oauth' }, hint: expect.stringContaining('lacks scope create:oauth') });

      const card = await cardctl(['cards', 'get', cardId, '--json'], { configDir, env: { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token } });
      expect(JSON.parse(card.stdout).status).toBe('active');
      const apps = await cardctl(['oauth', 'list', '--json'], { configDir, env: { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token } });
      expect(JSON.parse(apps.stdout).map((a: { name: string }) => a.name)).not.toContain('escalate');
    } finally {
      roKeys.remove();
    }
  }, 120_000);

  it('refuses bad input before sending anything (exit 2, naming the flag)', async () => {
    const env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
    const cert = join(keys.path, 'certificate.pem');
    const missing = await cardctl(['oauth', 'create', '--public-key', cert, '--scope', 'read:card', '--grant-type', 'client_credentials'], { configDir: config.path, env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--name/);
    const scope = await cardctl(['oauth', 'create', '--name', 'x', '--public-key', cert, '--scope', 'Read-Card', '--grant-type', 'client_credentials'], { configDir: config.path, env });
    expect(scope.exitCode).toBe(2);
    expect(scope.stderr).toMatch(/--scope/);
    const redirect = await cardctl(['oauth', 'create', '--name', 'x', '--public-key', cert, '--scope', '*', '--grant-type', 'authorization_code'], { configDir: config.path, env });
    expect(redirect.exitCode).toBe(2);
    expect(redirect.stderr).toMatch(/--redirect-uri/);
    const key = await cardctl(['oauth', 'create', '--name', 'x', '--public-key', join(keys.path, 'private-key.pem'), '--scope', '*', '--grant-type', 'client_credentials'], { configDir: config.path, env });
    expect(key.exitCode).toBe(2);
    expect(key.stderr).toMatch(/private key/);
    expect(sandbox.log()).not.toMatch(/POST \/institutions\/oauth\/create.*400/);
  }, 120_000);
});

describe('token renewal', () => {
  let sandbox: RunningSandbox;
  const config = tempDir();
  const keys = tempDir();

  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--token-ttl', '2']);
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
    config.remove();
    keys.remove();
  });

  it('renews an expired token by itself and stores the new one', async () => {
    const configDir = config.path;
    const clientId = await registerApp(sandbox, configDir, keys.path, 'short-lived');
    const login = await cardctl(['login', '-p', 'cc', '--base-url', sandbox.info.baseUrl, '--client-id', clientId,
      '--private-key', join(keys.path, 'private-key.pem')], { configDir });
    expect(login.exitCode, login.stderr).toBe(0);
    const first = readProfile(configDir, 'cc').token!;

    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const expired = await fetch(`${sandbox.info.baseUrl}/institutions/cards`, { headers: { authorization: `Bearer ${first}` } });
    expect(expired.status).toBe(401);

    const cards = await cardctl(['-p', 'cc', 'cards', 'list', '--json'], { configDir });
    expect(cards.exitCode, cards.stderr).toBe(0);
    const second = readProfile(configDir, 'cc');
    expect(second.token).not.toBe(first);
    expect(Date.parse(second.tokenExpiresAt!)).toBeGreaterThan(Date.now() - 1_000);

    // A token revoked behind the CLI's back (the profile still thinks it is fresh): one 401, one renewal, success.
    const { writeFileSync } = await import('node:fs');
    const file = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    file.profiles.cc.token = 'sbx_oat_revoked';
    file.profiles.cc.tokenExpiresAt = new Date(Date.now() + 3_600_000).toISOString();
    writeFileSync(join(configDir, 'config.json'), JSON.stringify(file), { mode: 0o600 });
    const afterRevoke = await cardctl(['-p', 'cc', 'cards', 'list', '--json'], { configDir });
    expect(afterRevoke.exitCode, afterRevoke.stderr).toBe(0);
    expect(readProfile(configDir, 'cc').token).not.toBe('sbx_oat_revoked');
  }, 120_000);
});
