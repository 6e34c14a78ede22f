import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deploymentChecks, runChecks } from '../../src/commands/doctor.js';
import { ConfigStore } from '../../src/config/store.js';
import { tempDir } from '../helpers/cli.js';
import { testContext, testIO } from '../helpers/context.js';
import { main } from '../../src/app/cli.js';

const dirs: Array<{ path: string; remove(): void }> = [];
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

async function configWith(profile: Record<string, unknown>): Promise<string> {
  const dir = tempDir(); dirs.push(dir);
  await new ConfigStore({ CARDCTL_CONFIG_DIR: dir.path }).setProfile('default', profile);
  return dir.path;
}

const byName = (checks: Awaited<ReturnType<typeof runChecks>>, name: string) => checks.find((c) => c.name === name)!;

describe.skipIf(process.platform === 'win32')('doctor checks (no network)', () => {
  it('says which loose config modes it found and fixed, and passes that check', async () => {
    const dir = await configWith({ env: 'sandbox' });
    chmodSync(join(dir, 'config.json'), 0o644);
    chmodSync(dir, 0o755);
    const checks = await runChecks(testContext({ configDir: dir }));
    expect(byName(checks, 'config permissions')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/file was 0644, fixed to 0600; directory was 0755, fixed to 0700/),
    });
  });

  it('fails a private key readable by others with the chmod fix, and a production profile without a PIN key', async () => {
    const keyDir = tempDir(); dirs.push(keyDir);
    const key = join(keyDir.path, 'client.key');
    writeFileSync(key, 'key');
    chmodSync(key, 0o640);
    const dir = await configWith({ env: 'production', privateKeyPath: key, clientId: 'app' });
    const checks = await runChecks(testContext({ configDir: dir }));
    expect(byName(checks, 'private key file')).toMatchObject({ ok: false, detail: `${key} 0640`, fix: `chmod 600 "${key}"` });
    expect(byName(checks, 'PIN key')).toMatchObject({ ok: false, detail: expect.stringContaining('missing') });
    expect(byName(checks, 'base URL')).toMatchObject({ ok: false, skipped: true });
  });

  it('a 0755 config directory with no config file yet: the directory is diagnosed, and the fix (chmod 700 of it alone) works', async () => {
    const root = tempDir(); dirs.push(root);
    const dir = join(root.path, 'cardctl');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const check = byName(await runChecks(testContext({ configDir: dir })), 'config permissions');
    expect(check).toMatchObject({ ok: false, detail: expect.stringMatching(/^no config file yet \(.*\), directory 0755$/) });
    expect(check.fix).not.toContain('config.json');
    execFileSync('sh', ['-c', check.fix!.replace(/ \(any cardctl.*$/, '')]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(byName(await runChecks(testContext({ configDir: dir })), 'config permissions').ok).toBe(true);
  });

  it('a failed check is exit 5 (as webhook certify), not 1, which is for bugs; -p with no such profile is that failed check, not the 4 of a missing card', async () => {
    const dir = await configWith({ env: 'sandbox' });
    const run = async (argv: string[]) => {
      const io = testIO();
      return { code: await main(argv, { io, env: { CARDCTL_CONFIG_DIR: dir, CARDCTL_DATA_DIR: dir } }), stderr: io.stderrText(), stdout: io.stdoutText() };
    };
    const failed = await run(['doctor']);
    expect(failed.code, failed.stderr).toBe(5);
    expect(failed.stderr).toMatch(/^error: \d+ checks? failed: /m);
    for (const env of [{}, { CARDCTL_BASE_URL: 'http://127.0.0.1:9', CARDCTL_TOKEN: 'tok_doctor_123456' }]) {
      const io = testIO();
      const code = await main(['doctor', '-p', 'nosuch'], { io, env: { CARDCTL_CONFIG_DIR: dir, CARDCTL_DATA_DIR: dir, ...env } });
      expect(code, io.stderrText()).toBe(5);
      expect(io.stdoutText()).toMatch(/^✗ profile: profile "nosuch" does not exist\n {4}fix: stored profiles: default\n/m);
      expect(io.stdoutText()).not.toMatch(/base URL|token/);
    }
  });

  it('--deployment probes nothing until the base URL answers and the token is accepted', async () => {
    const dir = await configWith({ env: 'sandbox' });
    const ctx = testContext({ configDir: dir });
    const setup = await runChecks(ctx);
    expect(await deploymentChecks(ctx, setup)).toEqual([
      { name: 'deployment', ok: false, skipped: true, detail: 'cannot probe: needs a base URL that answers and a token it accepts' },
    ]);
  });
});
