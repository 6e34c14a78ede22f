// One validator per field: every bad value a field of `cards create` refuses, the same field of
// an import row refuses too, with the same words (only where the field's name goes differs), and
// `import --dry-run` finds everything the sandbox would refuse for a row's own content.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportCardBody } from '../../src/api/schemas.js';
import { schemaCheck } from '../../src/api/schema-check.js';
import { parseFutureExpiration } from '../../src/commands/cards/renew.js';
import usersUpdate, { parseUpdateOptions } from '../../src/commands/users/update.js';
import importCommand from '../../src/commands/import.js';
import { UsageError } from '../../src/core/errors.js';
import { validateImportRow } from '../../src/bulk/row.js';
import { createPinInput } from '../../src/pin/input.js';
import { call, startTestSandbox, type Sandbox } from '../sandbox/helpers.js';
import { testContext as baseContext, type TestContextOptions } from '../helpers/context.js';
import { optionsOf, runCommand } from '../helpers/parse.js';
import { validImportRow } from '../helpers/import-row.js';
import { createInput } from '../helpers/cards-create.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const clock = { now: () => NOW };
const dir = mkdtempSync(join(tmpdir(), 'cardctl-import-fields-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** A test context in a temporary config dir, with the clock at NOW. */
function testContext(options: Omit<TestContextOptions, 'configDir'> & { clock?: unknown } = {}) {
  const { clock: _clock, ...rest } = options;
  return Object.assign(baseContext({ ...rest, configDir: dir }), { clock });
}
/** The body `users update` makes of a command line before anything is sent. */
const updateBody = async (ctx: Parameters<typeof parseUpdateOptions>[0], argv: string[]) => parseUpdateOptions(ctx, await optionsOf(usersUpdate, ['u1', ...argv]));
/** A complete `cards create` command line. */
const full = [
  '--program', 'PROG1', '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com', '--phone', '+2348012345678',
  '--account-number', '0123456789', '--account-type', 'savings', '--bank-code', '058',
];

/** Field of `cards create` (its flag) ↔ field of an import row, with bad values. */
const FIELDS: Array<{ flag: string; path: string; bad: string[] }> = [
  { flag: '--reference', path: 'realId', bad: ['', '   ', 'R'.repeat(5000), 'R'.repeat(65), 'has space', '-lead', 'Adé-1', 'a/b', 'x\u0000y'] },
  { flag: '--embossing-name', path: 'card.embossingName', bad: ['ADA 😀', 'A'.repeat(27), '   ', 'ÉLODIE OBI', 'ADA\u200bOBI'] },
  { flag: '--first-name', path: 'firstName', bad: ['', '  ', 'A'.repeat(101), 'A\u0007da', 'Ada\nObi'] },
  { flag: '--last-name', path: 'lastName', bad: ['', 'O'.repeat(5000), 'O\u001bbi'] },
  { flag: '--middle-name', path: 'middleName', bad: ['M'.repeat(101), 'M\u0000'] },
  { flag: '--email', path: 'email', bad: ['ada@', 'not-an-email', `${'a'.repeat(250)}@example.com`, 'a b@example.com'] },
  { flag: '--phone', path: 'phone', bad: ['12', 'abc', '+1234567890123456'] },
  { flag: '--birth-date', path: 'birthDate', bad: ['2099-01-01', '1899-12-31', '1990-02-30', '31/01/1990', '1990-1-1'] },
  { flag: '--address-line1', path: 'address1', bad: ['x'.repeat(201), 'line\nbreak'] },
  { flag: '--address-line2', path: 'address2', bad: ['x'.repeat(201), 'tab\there'] },
  { flag: '--city', path: 'city', bad: ['x'.repeat(5000)] },
  { flag: '--state', path: 'state', bad: ['x'.repeat(201)] },
  { flag: '--country', path: 'country', bad: ['x'.repeat(201)] },
  { flag: '--postal-code', path: 'zip', bad: ['1'.repeat(201)] },
  { flag: '--status', path: 'card.cardState', bad: ['frozen', 'x'.repeat(300)] },
];

function rowWith(path: string, value: string): Record<string, unknown> {
  const row = validImportRow();
  if (path.startsWith('card.')) row.card = { ...(row.card as object), [path.slice(5)]: value };
  else row[path] = value;
  return row;
}

async function createError(argv: string[]): Promise<string> {
  const error = await createInput(testContext({ clock }), argv).then(() => undefined, (e) => e);
  expect(error).toBeInstanceOf(UsageError);
  return (error as UsageError).message;
}

function rowErrors(row: unknown, options: { allowWeakPin?: boolean } = {}): string[] {
  const verdict = validateImportRow(row, { now: NOW, ...options });
  return verdict.ok ? [] : verdict.errors;
}

/** What follows the field's name: `invalid --x "v": why` → ` "v": why`; `invalid --x: why` → `: why`. */
function afterLabel(message: string, label: string): string {
  const at = message.indexOf(label);
  expect(at, message).toBeGreaterThanOrEqual(0);
  return message.slice(at + label.length);
}

describe('cards create and import rows refuse the same values with the same message', () => {
  for (const field of FIELDS) {
    it.each(field.bad.map((value) => [value.length > 30 ? `${value.slice(0, 12)}… (${value.length})` : JSON.stringify(value), value]))(`${field.flag} / ${field.path} %s`, async (_name, value) => {
      const fromCreate = await createError([...full, field.flag, value]);
      const errors = rowErrors(rowWith(field.path, value));
      const mine = errors.filter((e) => e.startsWith(`${field.path}:`));
      expect(mine, errors.join('\n')).toHaveLength(1);
      // The same reason, after the field's name; and the row names only this field.
      expect(mine[0]!.endsWith(afterLabel(fromCreate, field.flag).replace(/^: /, ' ')) || `${field.path}${afterLabel(fromCreate, field.flag)}` === mine[0]).toBe(true);
      expect(errors).toHaveLength(1);
      // A value shown in a message is cut: a 5,000-character value is not echoed whole.
      expect(fromCreate.length).toBeLessThan(200);
      expect(mine[0]!.length).toBeLessThan(200);
    });
  }

  it('the valid row is valid, and its values pass cards create too', async () => {
    expect(rowErrors(validImportRow())).toEqual([]);
    const row = validImportRow() as Record<string, string> & { card: Record<string, string> };
    const { body } = await createInput(testContext({ clock }), [
      ...full, '--reference', row.realId, '--embossing-name', row.card.embossingName, '--birth-date', row.birthDate, '--address-line1', row.address1, '--status', row.card.cardState,
    ]);
    expect(body).toMatchObject({ referenceCode: 'LEGACY-1', embossingName: 'ADA OBI', status: 'active' });
  });

  it.each([['0000'], ['1234'], ['4321'], ['1212'], ['2580'], ['12'], ['abcd'], ['1234567890123'], ['']])('the default PIN %j: refused like a new PIN of cards create', async (pin) => {
    const fromCreate = await createPinInput(testContext({ stdin: `${pin}\n` }), { stdin: true }).fresh('default PIN').then(() => undefined, (e) => e);
    expect(fromCreate).toBeInstanceOf(UsageError);
    const why = (fromCreate as UsageError).message.replace(/^invalid default PIN \(line 1 of stdin\): /, '');
    const errors = rowErrors(rowWith('card.defaultPIN', pin));
    expect(errors).toEqual([pin === '' ? 'card.defaultPIN: the PIN is empty' : `card.defaultPIN: ${why}`]);
    for (const e of errors) if (pin.length >= 4) expect(e).not.toContain(pin);
  });

  it('--allow-weak-pin lets weak default PINs through on both paths, never malformed ones', async () => {
    expect(rowErrors(rowWith('card.defaultPIN', '0000'), { allowWeakPin: true })).toEqual([]);
    await expect(createPinInput(testContext({ stdin: '0000\n' }), { stdin: true, allowWeak: true }).fresh('default PIN')).resolves.toBe('0000');
    expect(rowErrors(rowWith('card.defaultPIN', '12'), { allowWeakPin: true })).toHaveLength(1);
  });

  it.each([['202913'], ['2029-12'], ['abcdef'], ['20291']])('the expiry month %j: refused like --expiration of cards renew', (value) => {
    let renew: unknown;
    try { parseFutureExpiration(value, clock); } catch (e) { renew = e; }
    expect(renew).toBeInstanceOf(UsageError);
    const errors = rowErrors(rowWith('card.expiration', value));
    expect(errors).toEqual([`card.expiration: invalid${afterLabel((renew as Error).message, '--expiration')}`]);
  });

  it('an expiry month that has passed is refused; the current month is still a valid card', () => {
    expect(rowErrors(rowWith('card.expiration', '202001'))).toEqual([expect.stringMatching(/^card\.expiration: invalid "202001": the card has expired \(the expiry month must be 202611 or later\)$/)]);
    expect(rowErrors(rowWith('card.expiration', '202610'))).toHaveLength(1);
    expect(rowErrors(rowWith('card.expiration', '202611'))).toEqual([]);
    // Renewal needs a month after the current one: the same validator, stricter by one month.
    expect(() => parseFutureExpiration('202611', clock)).toThrow(/in the future/);
  });

  it('bin and service code have one validator each', () => {
    for (const bin of ['50609', '506099123', '50609x', '']) expect(rowErrors(rowWith('card.bin', bin))).toEqual([`card.bin: invalid ${JSON.stringify(bin)}: expected 6 to 8 digits`]);
    for (const code of ['1', '1011', 'abc']) expect(rowErrors(rowWith('card.serviceCode', code))).toHaveLength(1);
    expect(rowErrors(rowWith('card.serviceCode', ''))).toEqual([]);
  });

  it('the end of validity must be after its start: import rows and users update share the rule', async () => {
    expect(rowErrors(validImportRow({ startDate: '2027-01-01', endDate: '2026-12-31' }))).toEqual(['endDate: invalid "2026-12-31": must be after startDate (2027-01-01)']);
    // A card may start and end on the same day (dates are whole days).
    expect(rowErrors(validImportRow({ startDate: '2027-01-01', endDate: '2027-01-01' }))).toEqual([]);
    const update = await updateBody(testContext(), ['--first-name', 'A', '--last-name', 'B', '--email', 'a@example.com', '--phone', '+2348012345678', '--status', 'active', '--no-blocked', '--role', 'admin=read:card', '--start-date', '2027-01-01', '--expiry-date', '2026-12-31']).then(() => undefined, (e) => e);
    expect(update).toBeInstanceOf(UsageError);
    expect((update as Error).message).toBe('invalid --expiry-date "2026-12-31": must be after --start-date (2027-01-01)');
  });

  it('users update refuses the embossing names and first names cards create refuses', async () => {
    const base = ['--first-name', 'A', '--last-name', 'B', '--email', 'a@example.com', '--phone', '+2348012345678', '--status', 'active', '--no-blocked', '--role', 'admin=read:card'];
    for (const name of ['ADA 😀', 'A'.repeat(27)]) {
      const update = await updateBody(testContext(), [...base, '--embossing-name', name]).then(() => undefined, (e) => e);
      expect((update as Error).message).toBe(await createError([...full, '--embossing-name', name]));
    }
    for (const name of ['A'.repeat(101), 'A\u0007da']) {
      const update = await updateBody(testContext(), [...base, '--first-name', name]).then(() => undefined, (e) => e);
      expect((update as Error).message).toBe(await createError([...full, '--first-name', name]));
    }
  });

  it('one card given as flags: the same validators, errors named by flag, before any PIN is read', async () => {
    const ctx = testContext({ clock, env: { CARDCTL_BASE_URL: 'http://127.0.0.1:4010', CARDCTL_API_KEY: 'key' }, stdin: '4821\n' });
    const argv = [
      '--pin-stdin', '--real-id', 'X'.repeat(5000), '--institution-id', 'i', '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'a@example.com', '--phone', '+2348012345678', '--birth-date', '2099-01-01',
      '--address-line1', 'x', '--city', 'x', '--state', 'x', '--postal-code', 'x', '--country', 'NG', '--start-date', '2027-01-01', '--end-date', '2026-01-01', '--expiration', '202001',
      '--service-code', '101', '--card-product', 'c', '--embossing-name', 'ADA 😀', '--bin', '506099', '--status', 'active',
    ];
    const error = await runCommand(importCommand, ctx, argv).then(() => undefined, (e) => e);
    expect(error).toBeInstanceOf(UsageError);
    for (const flag of ['--real-id', '--birth-date', '--end-date', '--expiration', '--embossing-name']) expect((error as Error).message).toContain(`${flag}: invalid`);
    const weak = await runCommand(importCommand, testContext({ clock, env: { CARDCTL_BASE_URL: 'http://127.0.0.1:4010', CARDCTL_API_KEY: 'key' }, stdin: '0000\n' }), [
      ...argv, '--real-id', 'X', '--birth-date', '1990-01-01', '--end-date', '2028-01-01', '--expiration', '202812', '--embossing-name', 'ADA OBI',
    ]).then(() => undefined, (e) => e);
    expect((weak as Error).message).toMatch(/invalid default PIN .*too easy to guess/);
  });
});

describe('what the client refuses, the sandbox refuses too (dry run = real run)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => { sandbox = await startTestSandbox(); });
  afterAll(async () => { await sandbox?.close(); });

  const post = (row: object) => call(sandbox, 'POST', '/util/cards/import', { apiKey: sandbox.apiKey, body: row });

  it('a row the client accepts is imported', async () => {
    const row = validImportRow({ realId: 'AGREE-OK', institutionId: sandbox.institutionId });
    const verdict = validateImportRow(row);
    expect(verdict.ok).toBe(true);
    if (verdict.ok) expect((await post(verdict.body)).status).toBe(201);
  });

  // Values the API's schema constrains (lengths, patterns): refused by both. The client refuses
  // more (non-ASCII names on cards, weak PINs, dates of birth in the future, expired cards).
  it.each([
    ['realId', 'R'.repeat(5000)], ['realId', 'has space'], ['card.embossingName', 'A'.repeat(27)],
    ['card.defaultPIN', '12'], ['card.bin', '50609'], ['card.expiration', '202913'], ['card.serviceCode', '1011'], ['card.cardState', 'x'.repeat(201)],
    ['firstName', 'A'.repeat(101)], ['email', `${'a'.repeat(250)}@example.com`], ['city', 'x'.repeat(201)], ['endDate', '2023-12-31'],
  ].map(([path, value]) => [path, value!.length > 30 ? `${value!.slice(0, 12)}… (${value!.length})` : value, value]))('%s = %s', async (path, _shown, value) => {
    const row = rowWith(path!, value!);
    row.institutionId = sandbox.institutionId;
    expect(rowErrors(row).length).toBeGreaterThan(0);
    const answer = await post(row);
    expect(answer.status, answer.text).toBe(400);
  });
});

describe('property: a row the client accepts is one the sandbox\'s schema accepts', () => {
  const runs = Number(process.env.FUZZ_RUNS ?? 200);
  const seed = Number(process.env.FUZZ_SEED ?? 20261122);
  const check = schemaCheck(ImportCardBody);
  const paths = ['realId', 'firstName', 'middleName', 'lastName', 'email', 'phone', 'birthDate', 'address1', 'address2', 'city', 'state', 'zip', 'country',
    'startDate', 'endDate', 'institutionId', 'card.expiration', 'card.serviceCode', 'card.cardProduct', 'card.embossingName', 'card.defaultPIN', 'card.bin', 'card.cardState'];
  const value = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.stringMatching(/^[0-9]{0,14}$/),
    fc.integer({ min: 0, max: 400 }).map((n) => 'x'.repeat(n)),
    fc.date({ min: new Date('1800-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    fc.integer({ min: 190001, max: 210012 }).map(String),
    fc.constantFrom('', ' ', 'ADA OBI', 'ada@example.com', '+2348012345678', '0000', '4821', 'active', 'ACTIVE', '506099'),
  );
  it('random values in random fields: client ok ⇒ schema ok and endDate not before startDate', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom(...paths), value), { minLength: 1, maxLength: 4 }), (changes) => {
      const row = validImportRow();
      row.card = { ...(row.card as object) };
      for (const [path, v] of changes) {
        if (path.startsWith('card.')) (row.card as Record<string, unknown>)[path.slice(5)] = v;
        else row[path] = v;
      }
      const verdict = validateImportRow(row, { now: NOW });
      if (!verdict.ok) return;
      expect(check(verdict.body), JSON.stringify(verdict.body)).toBe(true);
      expect(verdict.body.endDate >= verdict.body.startDate).toBe(true);
    }), { seed, numRuns: runs * 5 });
  });
});

describe('the imports\' namespace of references (import:<realId>)', () => {
  it('Create Card\'s schema and the CLI\'s --reference refuse a reference starting with import:, and take every other', async () => {
    const { CreateCardBody } = await import('../../src/api/schemas.js');
    const { cardReference } = await import('../../src/core/card-fields.js');
    const check = schemaCheck(CreateCardBody.properties.referenceCode);
    for (const taken of ['import:X', 'import:', 'import:import:X']) {
      expect(check(taken), taken).toBe(false);
      expect(() => cardReference('--reference', taken)).toThrow(/references starting with import: are the imported cards'/);
    }
    for (const free of ['X', 'Import:X', 'imports:X', 'x-import:X', 'EMP-7', 'row-0123']) {
      expect(check(free), free).toBe(true);
      expect(cardReference('--reference', free)).toBe(free);
    }
  });
});
