// "Approved" is decided in one place, isApproved (src/iso8583/codes.ts). Every other module asks
// it: no source file compares a response code with an approval code of its own, and the colours
// of a status (a template's `status`, a status column) agree with it for every code.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPROVED_CODES, isApproved, RESPONSE_CODES } from '../../src/iso8583/codes.js';
import { createStyle, loadColours } from '../../src/output/style.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('one approval predicate', () => {
  it('no source file but codes.ts compares a response code with an approval code literally', () => {
    const approvals = [...APPROVED_CODES].join('|');
    // `code === '00'`, `'10' !== code`, `.has('00')`, `= '00'` in SQL: a second rule for "approved".
    const comparison = new RegExp(`(?:[!=]==?\\s*|\\bIN\\s*\\(\\s*)['"](?:${approvals})['"]|['"](?:${approvals})['"]\\s*[!=]==?|decision'\\)\\s*=\\s*'(?:${approvals})'`);
    const offenders = sources('src')
      .filter((file) => !file.endsWith(join('iso8583', 'codes.ts')))
      .filter((file) => comparison.test(readFileSync(file, 'utf8')));
    expect(offenders.map((file) => `${file}: ${comparison.exec(readFileSync(file, 'utf8'))![0]}`)).toEqual([]);
  });

  it("a status is coloured as an approval exactly when isApproved says so, for every known code", async () => {
    await loadColours({ env: { FORCE_COLOR: '1' }, stdoutIsTTY: false });
    const style = createStyle(true);
    expect(style.ok('00')).not.toBe('00');
    for (const code of Object.keys(RESPONSE_CODES)) {
      expect(style.status(code) === style.ok(code), code).toBe(isApproved(code));
    }
  });
});
