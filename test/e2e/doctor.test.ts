// `cardctl doctor` end to end (README, "Operator safety"): a healthy profile, and each broken item
// a clear line with its fix — the built bin/cardctl.js against `cardctl sandbox serve`.
// Run `npm run build` first.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSafetySandbox } from './safety-helpers.js';

const { sandbox: running, workspace, profileAt } = useSafetySandbox();

describe('doctor', () => {
  it('passes against a running sandbox, and reports config modes it fixed', async () => {
    const ws = workspace();
    await profileAt(ws, 'default', 'sandbox');
    chmodSync(join(ws.config, 'config.json'), 0o644);
    const result = await ws.run(['doctor']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/✓ config permissions: .*was 0644, fixed to 0600/);
    expect(result.stdout).toMatch(/✓ base URL/);
    expect(result.stdout).toMatch(/✓ token: accepted/);
    const json = await ws.run(['doctor', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true });
  }, 60_000);

  it('fails with a clear line for each broken item, exit 5 (a failed check)', async () => {
    const ws = workspace();
    await profileAt(ws, 'prod', 'production', [], { pinKey: false });
    const key = join(ws.config, 'client.key');
    writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nnot really\n-----END PRIVATE KEY-----\n');
    chmodSync(key, 0o644);
    expect((await ws.run(['profile', 'set', 'privateKeyPath', key, '-p', 'prod'])).exitCode).toBe(0);

    const broken = await ws.run(['doctor', '-p', 'prod'], { env: { CARDCTL_TOKEN: 'expired-or-revoked' } });
    expect(broken.exitCode).toBe(5);
    expect(broken.stdout).toMatch(/✗ private key file: .*client\.key 0644/);
    expect(broken.stdout).toContain(`fix: chmod 600 "${key}"`);
    expect(broken.stdout).toMatch(/✗ token: unauthorized/);
    expect(broken.stdout).toContain('fix: cardctl login');
    expect(broken.stdout).toMatch(/✗ PIN key: missing/);
    expect(broken.stdout).not.toContain('expired-or-revoked');

    // Client credentials whose token has expired and cannot be renewed (the key is not a key).
    expect((await ws.run(['profile', 'set', 'clientId', 'app-1', '-p', 'prod'])).exitCode).toBe(0);
    const configFile = join(ws.config, 'config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8'));
    config.profiles.prod.tokenExpiresAt = '2020-01-01T00:00:00.000Z';
    writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
    const expired = await ws.run(['doctor', '-p', 'prod']);
    expect(expired.exitCode).toBe(5);
    expect(expired.stdout).toMatch(/✗ token: expired at 2020-01-01T00:00:00.000Z and could not be renewed/);
    expect(expired.stdout).toMatch(/fix: check the client credentials/);
    expect(expired.stdout).not.toContain(running().info.token);

    const unreachable = await ws.run(['doctor', '-p', 'prod', '--base-url', 'http://127.0.0.1:9', '-o', 'json']);
    expect(unreachable.exitCode).toBe(5);
    const report = JSON.parse(unreachable.stdout);
    expect(report.ok).toBe(false);
    expect(report.checks).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'base URL', ok: false, detail: expect.stringContaining('connection refused'), fix: expect.any(String) }),
    ]));
  }, 60_000);
});
