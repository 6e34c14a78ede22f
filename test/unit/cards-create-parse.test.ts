// `cards create`'s parse step as a table: a command line (and the file it names) → the input run()
// gets, or the usage error, before anything is read from stdin or sent. Then the schema check of
// the body the wizard completes.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import createCommand from '../../src/commands/cards/create.js';
import { checkedFields } from '../../src/commands/cards/create-wizard.js';
import { UsageError } from '../../src/core/errors.js';
import { parseCommand } from '../helpers/parse.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-create-parse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const card = join(dir, 'card.json');
writeFileSync(card, JSON.stringify({ cardProgram: 'FILE', customer: { firstName: 'File', address: { city: 'Abuja' } }, account: { currency: 840 }, pinEnabled: false }));
const rows = join(dir, 'rows.csv');
writeFileSync(rows, 'first-name,pin\nAda,4821\n');
const privateRows = join(dir, 'private.csv');
writeFileSync(privateRows, 'first-name,pin\nAda,4821\n');
chmodSync(privateRows, 0o600);
chmodSync(rows, 0o644);

const full = [
  '--program', 'PROG1', '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com', '--phone', '+234 801 234 5678',
  '--account-number', '0123456789', '--account-type', 'savings', '--bank-code', '058',
];

describe('cards create: argv → its typed input, or a usage error before run()', () => {
  it.each<[string, string[], Record<string, unknown> | RegExp]>([
    ['flags only', full, {
      kind: 'one',
      card: {
        referenceGiven: false,
        body: {
          cardProgram: 'PROG1', pinEnabled: true,
          customer: { firstName: 'Ada', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678' },
          account: { number: '0123456789', type: 'savings', bankCode: '058' },
        },
      },
    }],
    ['a reference', [...full, '--reference', 'ref-1'], { kind: 'one', card: { referenceGiven: true, body: { referenceCode: 'ref-1' } } }],
    ['--no-pin, --enroll-2fa, --print-card', [...full, '--no-pin', '--enroll-2fa', '--print-card'], { card: { body: { pinEnabled: false, enroll2FA: true, printCard: true } } }],
    ['a currency by its letters', [...full, '--currency', 'usd'], { card: { body: { account: { currency: '840' } } } }],
    ['a file, flags over it', ['--from-file', card, '--first-name', 'Flag'], {
      kind: 'one', card: { body: { cardProgram: 'FILE', pinEnabled: false, customer: { firstName: 'Flag', address: { city: 'Abuja' } }, account: { currency: '840' } } },
    }],
    ['the body on stdin: read by run()', ['--from-file', '-', '--first-name', 'Ada'], { kind: 'one', card: 'stdin' }],
    ['rows', ['--rows-from-file', rows, '--program', 'P'], { kind: 'rows', rowsFile: rows, defaultCurrency: '566' }],
    ['rows, a currency for all', ['--rows-from-file', rows, '--currency', 'EUR'], { kind: 'rows', defaultCurrency: '978' }],
    ['rows with PINs from a private file', ['--rows-from-file', privateRows, '--pins-from-column', ' pin '], { kind: 'rows', pinColumn: 'pin' }],
    ['a bad email', [...full, '--email', 'ada@'], /--email/],
    ['a bad currency', [...full, '--currency', 'XXX'], /not a currency an account can hold/],
    ['a bad flag under a body on stdin', ['--from-file', '-', '--phone', '12'], /--phone/],
    ['stdin twice', ['--from-file', '-', '--pin-stdin'], /both read stdin/],
    ['--pin-stdin with --no-pin', [...full, '--pin-stdin', '--no-pin'], /contradict/],
    ['a file not there', ['--from-file', join(dir, 'missing.json')], /no such file/],
    ['bulk flags without rows', [...full, '--report', 'r.ndjson', '--concurrency', '2'], /^--concurrency, --report need --rows-from-file/],
    ['--pins-from-column without rows', [...full, '--pins-from-column', 'pin'], /^--pins-from-column need --rows-from-file/],
    ['rows and one card\'s flags', ['--rows-from-file', rows, '--pan', '4111111111111111'], /cannot be combined with --rows-from-file/],
    ['PINs from stdin rows', ['--rows-from-file', '-', '--pins-from-column', 'pin'], /needs a file only you can read, not stdin/],
    ['PINs from a file others can read', ['--rows-from-file', rows, '--pins-from-column', 'pin'], /can be read by others \(mode 644\)/],
    ['PINs from a file not there', ['--rows-from-file', join(dir, 'none.csv'), '--pins-from-column', 'pin'], /no such file/],
  ])('%s', async (_name, argv, expected) => {
    const result = await parseCommand(createCommand, argv).then((input) => input, (error: unknown) => error);
    if (expected instanceof RegExp) {
      expect(result).toBeInstanceOf(UsageError);
      expect(result).toHaveProperty('message', expect.stringMatching(expected));
    } else expect(result).toMatchObject(expected);
  });
});

describe('the completed body is checked against the API schema before it is sent', () => {
  const body = {
    cardProgram: 'P', referenceCode: 'ref-1', pinEnabled: true, embossingName: 'ADA OBI',
    startDate: '2026-11-22T00:00:00.000Z', expiryDate: '2029-11-22T00:00:00.000Z',
    customer: { firstName: 'Ada', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678' },
    account: { number: '0123456789', type: 'savings', bankCode: '058', currency: '566' },
  };
  it('a whole body passes, as itself', async () => {
    expect(await checkedFields({ ...body }, 'the card')).toEqual(body);
  });
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['no reference', (({ referenceCode: _none, ...rest }) => rest)(body), /^the card: referenceCode is required$/],
    ['an unknown field', { ...body, colour: 'red' }, /^the card: colour is not an allowed field$/],
    ['a currency in letters', { ...body, account: { ...body.account, currency: 'NGN' } }, /^the card: account\.currency must match \^\[0-9\]\{3\}\$$/],
    ['a start that is no date', { ...body, startDate: 'soon' }, /^the card: startDate must be a valid date-time$/],
  ])('%s is refused', async (_name, value, message) => {
    const error = await checkedFields(value, 'the card').then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toHaveProperty('message', expect.stringMatching(message));
  });
});
