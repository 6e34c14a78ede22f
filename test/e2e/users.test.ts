// users update round-trips every field, roles included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardctl, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';

describe('users update', () => {
  let sandbox: RunningSandbox;
  const config = tempDir();
  let env: Record<string, string>;
  let userId: string;
  let userToken: string;

  beforeAll(async () => {
    sandbox = await startSandboxProcess();
    const response = await fetch(`${sandbox.info.baseUrl}/sandbox/institutions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const created = ((await response.json()) as { data: { userId: string; token: string } }).data;
    env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: created.token };
    // The user updated is another user of the institution: a blocked user's own token stops working.
    const user = await fetch(`${sandbox.info.baseUrl}/sandbox/users`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${created.token}` }, body: '{}',
    });
    ({ userId, token: userToken } = ((await user.json()) as { data: { userId: string; token: string } }).data);
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
    config.remove();
  });

  it('sends every field and prints the updated user, roles included', async () => {
    const result = await cardctl(['users', 'update', userId, '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com',
      '--phone', '+234 801 234 5678', '--status', 'active', '--blocked', '--role', 'admin=create:card,read:card', '--role', 'viewer=read:transaction',
      '--embossing-name', 'ADA OBI', '--start-date', '2026-01-01', '--expiry-date', '2027-01-01', '--print-card', '--json'], { configDir: config.path, env });
    expect(result.exitCode, result.stderr).toBe(0);
    const user = JSON.parse(result.stdout);
    expect(user).toMatchObject({
      id: userId, firstName: 'Ada', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678', status: 'active',
      isBlocked: true, embossingName: 'ADA OBI', printCard: true,
      roles: [{ role: 'admin', permissions: ['create:card', 'read:card'] }, { role: 'viewer', permissions: ['read:transaction'] }],
    });
    expect(Date.parse(user.startDate)).toBe(Date.parse('2026-01-01T00:00:00Z'));

    const unblock = await cardctl(['users', 'update', userId, '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com',
      '--phone', '+2348012345678', '--status', 'active', '--no-blocked', '--role', 'ops=read:card', '--json'], { configDir: config.path, env });
    expect(unblock.exitCode, unblock.stderr).toBe(0);
    expect(JSON.parse(unblock.stdout)).toMatchObject({ isBlocked: false, roles: [{ role: 'ops', permissions: ['read:card'] }] });
  }, 120_000);

  it('the user\'s own token: its roles decide (403 → exit 3 naming the scope), and blocking it is exit 3 at its next command', async () => {
    const own = { ...env, CARDCTL_TOKEN: userToken };
    const set = (blocked: boolean, role = 'ops=read:card') => cardctl(['users', 'update', userId, '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com',
      '--phone', '+2348012345678', '--status', 'active', blocked ? '--blocked' : '--no-blocked', '--role', role, '--json'], { configDir: config.path, env });
    // Without read:card (the scope of their check request), auth status and doctor still call the token valid.
    expect((await set(false, 'auditor=read:transaction')).exitCode).toBe(0);
    const status = await cardctl(['auth', 'status', '-o', 'json'], { configDir: config.path, env: own });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ tokenStatus: 'valid (lacks read:card)' });
    const doctor = await cardctl(['doctor'], { configDir: config.path, env: own });
    expect(doctor.stdout).toMatch(/✓ token: accepted \(lacks read:card/);
    expect((await set(false)).exitCode).toBe(0);
    expect((await cardctl(['cards', 'list', '--json'], { configDir: config.path, env: own })).exitCode).toBe(0);
    const txs = await cardctl(['tx', 'list', '--json'], { configDir: config.path, env: own });
    expect(txs.exitCode).toBe(3);
    expect(txs.stderr).toMatch(/hint: this token lacks scope read:transaction/);
    expect((await set(true)).exitCode).toBe(0);
    const blocked = await cardctl(['cards', 'list', '--json'], { configDir: config.path, env: own });
    expect(blocked.exitCode).toBe(3);
    expect(blocked.stdout).toBe('');
    expect(blocked.stderr).toMatch(/the user of this token is blocked/);
  }, 120_000);

  it('without a terminal, a missing required flag is exit 2 and nothing is sent', async () => {
    const result = await cardctl(['users', 'update', userId, '--first-name', 'Ada'], { configDir: config.path, env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/--last-name/);
    expect(result.stderr).toMatch(/--role/);
  }, 120_000);

  it('an unknown user is exit 4', async () => {
    const result = await cardctl(['users', 'update', 'nope', '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com',
      '--phone', '+2348012345678', '--status', 'active', '--no-blocked', '--role', 'ops=read:card'], { configDir: config.path, env });
    expect(result.exitCode).toBe(4);
  }, 120_000);
});
