// Every flag and file field that takes a date or a date-time goes through one strict parser
// (src/core/datetime.ts): the same bad values are refused by each, with exit 2, before any request.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { parseDate, parseDateTime, parseTimeBound } from '../../src/core/datetime.js';
import { UsageError } from '../../src/core/errors.js';
import { testIO } from '../helpers/context.js';
import { scratchDir, isolatedDirs } from '../helpers/dirs.js';
import { validImportRow } from '../helpers/import-row.js';

/** Bad whatever the field: not a day of the calendar, or not a date at all. */
const BAD_DATES: Array<[string, RegExp]> = [
  ['2026-02-30', /2026-02 has no day 30/],
  ['2025-02-29', /2025-02 has no day 29/],
  ['2026-04-31', /2026-04 has no day 31/],
  ['2026-13-01', /no month 13/],
  ['2026-00-10', /no month 00/],
  ['2026-01-00', /has no day 00/],
  ['2026-1-5', /expected/],
  ['05/01/2026', /expected/],
  ['yesterday', /expected/],
  ['', /expected/],
];
/** Bad date-times (date-only fields refuse them too, as not a date). */
const BAD_DATE_TIMES: Array<[string, RegExp]> = [
  ['2026-02-30T10:00:00Z', /2026-02 has no day 30/],
  ['2026-01-01T24:00:00Z', /no hour 24/],
  ['2026-01-01T23:60:00Z', /no minute 60/],
  ['2026-01-01T23:59:60Z', /no second 60/],
  ['2026-01-01T10:00:00+15:00', /offset \+15:00/],
  ['2026-01-01T10:00:00+01:60', /offset \+01:60/],
  ['2026-01-01T10:00:00', /add an offset/],
  ['2026-01-01 10:00', /add an offset/],
  ['2026-01-01T10:00:00 Z', /expected/],
  ['2026-01-01t10:00:00z', /expected/],
];

describe('the date parser', () => {
  it.each(BAD_DATES)('refuses the date %j', (value, why) => {
    expect(() => parseDate('--x', value)).toThrow(UsageError);
    expect(() => parseDate('--x', value)).toThrow(why);
    expect(() => parseDateTime('--x', value)).toThrow(why);
  });
  it.each(BAD_DATE_TIMES)('refuses the date-time %j', (value, why) => {
    expect(() => parseDateTime('--x', value)).toThrow(why);
    expect(() => parseDate('--x', value)).toThrow(/expected a date YYYY-MM-DD/);
  });
  it('accepts real days, times and offsets', () => {
    expect(parseDate('--x', ' 2024-02-29 ')).toBe('2024-02-29');
    expect(parseDateTime('--x', '2024-02-29').toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseDateTime('--x', '2026-12-31T23:59:59.999+14:00').toISOString()).toBe('2026-12-31T09:59:59.999Z');
    expect(parseDateTime('--x', '2026-01-01T00:00-12:00').toISOString()).toBe('2026-01-01T12:00:00.000Z');
    expect(parseDateTime('--x', '2026-01-01T10:00:00+0100').toISOString()).toBe('2026-01-01T09:00:00.000Z');
  });
  it('time bounds: durations, or the same strict dates', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    expect(parseTimeBound('--since', '1.5h', now).toISOString()).toBe('2026-11-22T10:30:00.000Z');
    for (const [value, why] of [...BAD_DATES, ...BAD_DATE_TIMES]) expect(() => parseTimeBound('--since', value, now), value).toThrow(why);
    expect(() => parseTimeBound('--since', '1700000000', now)).toThrow(/duration/);
  });
});

// Each flag with the rest of a valid command line: only the date can be wrong.
const dir = scratchDir();
const scenario = (date: string) => {
  const file = join(dir, `scenario-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ name: 's', steps: [{ intent: 'authorization', card: 'c1', amount: 1, date }] }));
  return ['simulate', 'run', file];
};
const importFile = (key: string) => (date: string) => {
  const file = join(dir, `rows-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify([validImportRow({ [key]: date })]));
  return ['import', '--from-file', file, '--dry-run'];
};
const cardsFile = (date: string) => {
  const file = join(dir, `card-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ customer: { dateOfBirth: date } }));
  return ['cards', 'create', '--from-file', file];
};
const user = ['users', 'update', 'u1', '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'a@example.com', '--phone', '+2348012345678', '--status', 'active', '--no-blocked', '--role', 'admin=READ'];
const importFlags = (flag: string) => (date: string) => {
  const row = validImportRow();
  const card = row.card as Record<string, string>;
  const flags: Record<string, string> = {
    '--real-id': 'R1', '--institution-id': 'inst_1', '--first-name': 'Ada', '--last-name': 'Obi', '--email': 'a@example.com', '--phone': '+2348012345678',
    '--birth-date': '1990-01-31', '--address-line1': '1 Marina', '--city': 'Lagos', '--state': 'Lagos', '--postal-code': '100001', '--country': 'NG',
    '--start-date': '2024-01-01', '--end-date': '2028-12-31', '--expiration': card.expiration!, '--service-code': card.serviceCode!,
    '--card-product': card.cardProduct!, '--embossing-name': card.embossingName!, '--bin': card.bin!, '--status': card.cardState!,
  };
  flags[flag] = date;
  return ['import', ...Object.entries(flags).flat(), '--dry-run', '--pin-stdin'];
};

/** `code`: an import file reports its invalid rows and exits 8 (partial failure), sending none of them. */
type Field = { name: string; dateOnly: boolean; argv: (date: string) => string[]; code?: number; skip?: string[] };
const FIELDS: Field[] = [
  { name: 'simulate --date', dateOnly: false, argv: (d) => ['simulate', 'authorization', '--card', 'c1', '--amount', '1', '--date', d] },
  { name: 'simulate run (scenario date)', dateOnly: false, argv: scenario },
  ...['list', 'tail', 'summary'].flatMap((verb) => ['--since', '--until'].map((flag) => ({ name: `tx ${verb} ${flag}`, dateOnly: false, argv: (d: string) => ['tx', verb, flag, d] }))),
  { name: 'history --since', dateOnly: false, argv: (d) => ['history', '--since', d] },
  { name: 'cards create --birth-date', dateOnly: true, argv: (d) => ['cards', 'create', '--birth-date', d] },
  { name: 'cards create --start-date', dateOnly: false, argv: (d) => ['cards', 'create', '--start-date', d] },
  { name: 'cards create --expiry-date', dateOnly: false, argv: (d) => ['cards', 'create', '--expiry-date', d] },
  // A file's date of birth is a date-time when it holds a T, else a date.
  { name: 'cards create --from-file dateOfBirth', dateOnly: false, argv: cardsFile, skip: ['2026-01-01 10:00'] },
  { name: 'users update --start-date', dateOnly: false, argv: (d) => [...user, '--start-date', d] },
  { name: 'users update --expiry-date', dateOnly: false, argv: (d) => [...user, '--expiry-date', d] },
  ...['--start-date', '--end-date', '--birth-date'].map((flag) => ({ name: `import ${flag}`, dateOnly: true, argv: importFlags(flag) })),
  ...['startDate', 'endDate', 'birthDate'].map((key) => ({ name: `import file ${key}`, dateOnly: true, argv: importFile(key), code: 8 })),
];

async function run(argv: string[]) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const io = testIO({ stdin: '1234\n' });
  const code = await main(argv, {
    io,
    env: { ...isolatedDirs(scratchDir()), CARDCTL_BASE_URL: 'http://127.0.0.1:9', CARDCTL_TOKEN: 'tok_dates', CARDCTL_API_KEY: 'key_dates', CI: '1' },
    dispatcher: agent,
    signal: new AbortController().signal,
  });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe.each(FIELDS)('$name', ({ argv, dateOnly, code = 2, skip = [] }) => {
  const cases = dateOnly
    ? [...BAD_DATES.filter(([v]) => v !== ''), ...BAD_DATE_TIMES.slice(0, 3).map(([v]): [string, RegExp] => [v, /expected a date YYYY-MM-DD|YYYY-MM-DD/])]
    : [...BAD_DATES.filter(([v]) => v !== ''), ...BAD_DATE_TIMES.filter(([v]) => !skip.includes(v))];
  it.each(cases)(`refuses %j with exit ${code} before sending anything`, async (value, why) => {
    const result = await run(argv(value));
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toContain(JSON.stringify(value).slice(1, -1));
    expect(result.stderr).toMatch(why);
    if (code === 2) expect(result.stdout).toBe('');
  });
});
