import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import usersUpdate, { parseRole, parseUpdateOptions } from '../../src/commands/users/update.js';
import { UsageError } from '../../src/core/errors.js';
import { testContext } from '../helpers/context.js';
import { optionsOf } from '../helpers/parse.js';

/** The body `users update` makes of a command line before anything is sent. */
const updateBody = async (ctx: Parameters<typeof parseUpdateOptions>[0], argv: string[]) => parseUpdateOptions(ctx, await optionsOf(usersUpdate, ['u1', ...argv]));

const complete = [
  '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com', '--phone', '+234 801 234 5678', '--status', 'active',
  '--no-blocked', '--role', 'admin=create:card,read:card', 'viewer=read:transaction',
];

describe('parseRole', () => {
  it('splits ROLE=PERM,PERM', () => {
    expect(parseRole('admin=create:card, read:card,create:card')).toEqual({ role: 'admin', permissions: ['create:card', 'read:card'] });
    expect(parseRole('nobody')).toEqual({ role: 'nobody', permissions: [] });
    expect(() => parseRole('=read:card')).toThrow(UsageError);
    expect(() => parseRole('admin=Read-Card')).toThrow(/permission/);
  });
});

describe('users update parsing', () => {
  it('builds every field of the body', async () => {
    const body = await updateBody(testContext(), [...complete, '--embossing-name', 'ADA OBI', '--start-date', '2026-01-01', '--expiry-date', '2027-01-01T10:00:00Z', '--print-card']);
    expect(body).toEqual({
      firstName: 'Ada', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678', status: 'active', isBlocked: false,
      roles: [{ role: 'admin', permissions: ['create:card', 'read:card'] }, { role: 'viewer', permissions: ['read:transaction'] }],
      embossingName: 'ADA OBI', startDate: '2026-01-01T00:00:00.000Z', expiryDate: '2027-01-01T10:00:00.000Z', printCard: true,
    });
  });

  it('without a terminal, names every missing required flag', async () => {
    const error = await updateBody(testContext(), ['--first-name', 'Ada']).catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    for (const flag of ['--last-name', '--email', '--phone', '--status', '--blocked or --no-blocked', '--role']) expect(error.message).toContain(flag);
    expect(error.message).not.toContain('--first-name');
  });

  it('--blocked maps to isBlocked', async () => {
    expect((await updateBody(testContext(), [...complete, '--blocked'])).isBlocked).toBe(true);
  });

  it('takes the body from --from-file, flags overriding it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-users-'));
    try {
      const file = join(dir, 'user.json');
      writeFileSync(file, JSON.stringify({
        firstName: 'File', lastName: 'Obi', emailAddress: 'f@example.com', phoneNumber: '+2348012345678', status: 'active', isBlocked: true,
        roles: [{ role: 'ops', permissions: ['read:card'] }],
      }));
      const body = await updateBody(testContext(), ['--from-file', file, '--first-name', 'Flag']);
      expect(body).toMatchObject({ firstName: 'Flag', isBlocked: true, roles: [{ role: 'ops', permissions: ['read:card'] }] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('asks on a terminal', async () => {
    const ctx = testContext({ tty: true, answers: ['Obi', 'ada@example.com', '+2348012345678', 'active', true, 'admin=read:card ops=read:transaction'] });
    const body = await updateBody(ctx, ['--first-name', 'Ada']);
    expect(body).toMatchObject({ isBlocked: true, roles: [{ role: 'admin' }, { role: 'ops' }] });
  });

  it('rejects bad values before sending', async () => {
    await expect(updateBody(testContext(), [...complete, '--email', 'nope'])).rejects.toThrow(/--email/);
    await expect(updateBody(testContext(), [...complete, '--start-date', '2026-13-01'])).rejects.toThrow(/--start-date/);
  });
});
