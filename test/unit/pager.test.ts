import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { choosePager, splitCommand } from '../../src/output/pager.js';
import type { GlobalOptions } from '../../src/contract/context.js';
import { testContext } from '../helpers/context.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-pager-'));
const fakePager = join(dir, 'pager.sh');
writeFileSync(fakePager, "#!/bin/sh\necho '<<PAGER>>'\ncat\n");
chmodSync(fakePager, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const columns = [{ header: 'ID', path: 'id' }, { header: 'Status', path: 'status' }];
const records = Array.from({ length: 30 }, (_, i) => ({ id: `card-${i}`, status: 'active' }));

async function listOutput(options: { tty: boolean; env?: Record<string, string>; globals?: GlobalOptions }) {
  const ctx = testContext({ tty: options.tty, env: { CARDCTL_PAGER: fakePager, ...options.env }, globals: options.globals });
  await ctx.output().list(records, columns);
  return ctx.io.stdoutText();
}

describe('pager', () => {
  it('chooses CARDCTL_PAGER, then PAGER, then less -FRX; none when piped, --no-pager, cat or empty', () => {
    expect(choosePager({ env: { CARDCTL_PAGER: 'most', PAGER: 'more' }, stdoutIsTTY: true })).toBe('most');
    expect(choosePager({ env: { PAGER: 'more' }, stdoutIsTTY: true })).toBe('more');
    expect(choosePager({ env: {}, stdoutIsTTY: true })).toBe('less -FRX');
    expect(choosePager({ env: {}, stdoutIsTTY: false })).toBeUndefined();
    expect(choosePager({ env: {}, stdoutIsTTY: true, pagerFlag: false })).toBeUndefined();
    expect(choosePager({ env: { CARDCTL_PAGER: 'cat' }, stdoutIsTTY: true })).toBeUndefined();
    expect(choosePager({ env: { CARDCTL_PAGER: '', PAGER: 'more' }, stdoutIsTTY: true })).toBeUndefined();
  });

  it('splits a pager command line like a shell', () => {
    expect(splitCommand('less -FRX')).toEqual(['less', '-FRX']);
    expect(splitCommand(`"/opt/my pager/bin" -x 'a b' c\\ d`)).toEqual(['/opt/my pager/bin', '-x', 'a b', 'c d']);
  });

  it('a TTY table goes through the pager', async () => {
    const text = await listOutput({ tty: true });
    expect(text.startsWith('<<PAGER>>\n')).toBe(true);
    expect(text).toContain('card-29');
  });

  it('not when piped, with --no-pager, for JSON, or with --quiet', async () => {
    for (const options of [{ tty: false }, { tty: true, globals: { pager: false } }, { tty: true, globals: { output: 'json' as const } }, { tty: true, globals: { quiet: true } }]) {
      const text = await listOutput(options);
      expect(text, JSON.stringify(options)).not.toContain('<<PAGER>>');
      expect(text).toContain('card-29');
    }
  });

  it('a pager that cannot start falls back to direct output', async () => {
    const text = await listOutput({ tty: true, env: { CARDCTL_PAGER: join(dir, 'missing-pager') } });
    // eslint-disable-next-line no-control-regex
    expect(text.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/^ID\s+Status\n/);
    expect(text).toContain('card-29');
  });
});
