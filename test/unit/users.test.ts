import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRole, parseUpdateOptions } from '../../src/commands/users/update.js';
import { UsageError } from '../../src/core/errors.js';
import { testContext } from '../helpers/context.js';

const complete = {
  firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com', phone: '+234 801 234 5678', status: 'active',
  blocked: false, role: ['admin=create:card,read:card', 'viewer=read:transaction'],
};

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
    const body = await parseUpdateOptions(testContext(), {
      ...complete, embossingName: 'ADA OBI', startDate: '2026-01-01', expiryDate: '2027-01-01T10:00:00Z', printCard: true,
    });
    expect(body).toEqual({
      firstName: 'Ada', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678', status: 'active', isBlocked: false,
      roles: [{ role: 'admin', permissions: ['create:card', 'read:card'] }, { role: 'viewer', permissions: ['read:transaction'] }],
      embossingName: 'ADA OBI', startDate: '2026-01-01T00:00:00.000Z', expiryDate: '2027-01-01T10:00:00.000Z', printCard: true,
    });
  });

  it('without a terminal, names every missing required flag', async () => {
    const error = await parseUpdateOptions(testContext(), { firstName: 'Ada' }).catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    for (const flag of ['--last-name', '--email', '--phone', '--status', '--blocked or --no-blocked', '--role']) expect(error.message).toContain(flag);
    expect(error.message).not.toContain('--first-name');
  });

  it('--blocked maps to isBlocked', async () => {
    expect((await parseUpdateOptions(testContext(), { ...complete, blocked: true })).isBlocked).toBe(true);
  });

  it('takes the body from --from-file, flags overriding it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-users-'));
    try {
      const file = join(dir, 'user.json');
      writeFileSync(file, JSON.stringify({
        firstName: 'File', lastName: 'Obi', emailAddress: 'f@example.com', phoneNumber: '+2348012345678', status: 'active', isBlocked: true,
        roles: [{ role: 'ops', permissions: ['read:card'] }],
      }));
      const body = await parseUpdateOptions(testContext(), { fromFile: file, firstName: 'Flag' });
      expect(body).toMatchObject({ firstName: 'Flag', isBlocked: true, roles: [{ role: 'ops', permissions: ['read:card'] }] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('asks on a terminal', async () => {
    const ctx = testContext({ tty: true, answers: ['Obi', 'ada@example.com', '+2348012345678', 'active', true, 'admin=read:card ops=read:transaction'] });
    const body = await parseUpdateOptions(ctx, { firstName: 'Ada' });
    expect(body).toMatchObject({ isBlocked: true, roles: [{ role: 'admin' }, { role: 'ops' }] });
  });

  it('rejects bad values before sending', async () => {
    await expect(parseUpdateOptions(testContext(), { ...complete, email: 'nope' })).rejects.toThrow(/--email/);
    await expect(parseUpdateOptions(testContext(), { ...complete, startDate: '2026-13-01' })).rejects.toThrow(/--start-date/);
  });
});
