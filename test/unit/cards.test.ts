import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateCardBody } from '../../src/api/schemas.js';
import createCommand from '../../src/commands/cards/create.js';
import { defaultExpiry, generateReference } from '../../src/commands/cards/create-wizard.js';
import deactivate from '../../src/commands/cards/deactivate.js';
import list from '../../src/commands/cards/list.js';
import change from '../../src/commands/cards/pin/change.js';
import { parseFutureExpiration, parseRenewReason } from '../../src/commands/cards/renew.js';
import { explainPinError, explainPinKeyError, parseCardId } from '../../src/commands/cards/common.js';
import { CliError, RejectedError, UsageError } from '../../src/core/errors.js';
import { LIST_BOUNDS } from '../../src/core/list-bounds.js';
import { ScriptedPrompter } from '../../src/core/prompter.js';
import { createPinInput } from '../../src/pin/input.js';
import { cardColumns, cardExpiry, cardNumber, cardRows } from '../../src/output/columns/cards.js';
import type { Column } from '../../src/output/renderer.js';
import { testContext } from '../helpers/context.js';
import { createInput } from '../helpers/cards-create.js';
import { optionsOf, runCommand } from '../helpers/parse.js';

const BASE = 'http://127.0.0.1:4010';
let dir: string;
let publicPem: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cardctl-cards-'));
  publicPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fixedClock = { now: () => new Date('2026-11-22T10:00:00Z') };

/** A complete `cards create` command line. */
const full = [
  '--program', 'PROG1', '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com', '--phone', '+234 801 234 5678',
  '--account-number', '0123456789', '--account-type', 'savings', '--bank-code', '058',
];

async function usage(promise: Promise<unknown>): Promise<UsageError> {
  const error = await promise.then(() => undefined, (e) => e);
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe('cards list parsing', () => {
  const parse = async (argv: string[]) => list.parseInput(await optionsOf(list, argv), testContext());
  it('checks paging', async () => {
    expect(await parse(['--limit', '50', '--page', '2', '--search', ' ada '])).toMatchObject({ limit: 50, page: 2, query: { search: 'ada' }, all: false });
  });
  it.each([
    [['--limit', '101'], /--limit/],
    [['--limit', '0'], /--limit/],
    [['--page', 'x'], /--page/],
    [['--page', String(LIST_BOUNDS.maxPage + 1)], /--page .*from 1 to 1000000/],
    [['--limit', String(LIST_BOUNDS.maxLimit + 1)], /--limit .*from 1 to 100\b/],
    [['--all', '--page', '2'], /--all and --page/],
    [['--search', '  '], /--search/],
  ])('refuses %j', async (argv, message) => {
    const error = await parse(argv).then(() => undefined, (e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(message);
  });
});

describe('cards renew parsing', () => {
  it('accepts only a future YYYYMM', () => {
    expect(parseFutureExpiration('202912', fixedClock)).toBe('202912');
    expect(parseFutureExpiration('202612', fixedClock)).toBe('202612');
    expect(() => parseFutureExpiration('202611', fixedClock)).toThrow(/future/);
    expect(() => parseFutureExpiration('202401', fixedClock)).toThrow(/future/);
    expect(() => parseFutureExpiration('202913', fixedClock)).toThrow(/YYYYMM/);
    expect(() => parseFutureExpiration('2029-12', fixedClock)).toThrow(/--expiration/);
    expect(parseRenewReason(undefined)).toBe('RENEW');
    expect(parseRenewReason(' REPLACE ')).toBe('REPLACE');
    expect(() => parseRenewReason(' ')).toThrow(UsageError);
  });
});

describe('cards create parsing', () => {
  it('checks and normalises every flag', async () => {
    const { body } = await createInput(testContext(), [...full, '--currency', 'NGN', '--birth-date', '1990-05-17', '--start-date', '2026-12-01', '--expiry-date', '2029-12-01T00:00:00Z', '--pan', '4111 1111 1111 1111', '--status', 'inactive', '--seq-number', '002', '--enroll-2fa', '--print-card', '--city', 'Lagos']);
    expect(body).toMatchObject({
      cardProgram: 'PROG1', pinEnabled: true, enroll2FA: true, printCard: true, pan: '4111111111111111', status: 'inactive', seqNumber: '002',
      startDate: '2026-12-01T00:00:00.000Z', expiryDate: '2029-12-01T00:00:00.000Z',
      customer: { firstName: 'Ada', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678', dateOfBirth: '1990-05-17T00:00:00.000Z', address: { city: 'Lagos' } },
      account: { number: '0123456789', type: 'savings', bankCode: '058', currency: '566' },
    });
  });

  it('names the flag of each bad value', async () => {
    const ctx = testContext();
    expect((await usage(createInput(ctx, [...full, '--email', 'ada@']))).message).toMatch(/--email/);
    expect((await usage(createInput(ctx, [...full, '--phone', '12']))).message).toMatch(/--phone/);
    expect((await usage(createInput(ctx, [...full, '--pan', '4111111111111112']))).message).toMatch(/--pan.*Luhn/);
    expect((await usage(createInput(ctx, [...full, '--currency', '999x']))).message).toMatch(/--currency/);
    expect((await usage(createInput(ctx, [...full, '--currency', '000']))).message).toMatch(/ISO 4217/);
    expect((await usage(createInput(ctx, [...full, '--start-date', '2026-02-30']))).message).toMatch(/--start-date/);
    expect((await usage(createInput(ctx, [...full, '--birth-date', '2999-01-01']))).message).toMatch(/--birth-date/);
    expect((await usage(createInput(ctx, [...full, '--status', 'frozen']))).message).toMatch(/--status/);
    expect((await usage(createInput(ctx, [...full, '--seq-number', '1234']))).message).toMatch(/--seq-number/);
    expect((await usage(createInput(ctx, [...full, '--embossing-name', 'A'.repeat(27)]))).message).toMatch(/26/);
    expect((await usage(createInput(ctx, [...full, '--reference', 'has space']))).message).toMatch(/--reference/);
  });

  it('merges --from-file with flags, flags winning', async () => {
    const file = join(dir, 'card.json');
    writeFileSync(file, JSON.stringify({
      cardProgram: 'FROMFILE', referenceCode: 'ref-1', embossingName: 'FILE NAME', pinEnabled: false,
      customer: { firstName: 'File', lastName: 'Obi', emailAddress: 'file@example.com', phoneNumber: '+2348000000000', address: { city: 'Abuja' } },
      account: { number: '1', type: 'current', bankCode: '011', currency: 840 },
    }));
    const { body, referenceGiven } = await createInput(testContext(), ['--from-file', file, '--program', 'FLAG', '--first-name', 'Flag']);
    expect(referenceGiven).toBe(true);
    expect(body).toMatchObject({
      cardProgram: 'FLAG', referenceCode: 'ref-1', embossingName: 'FILE NAME', pinEnabled: false,
      customer: { firstName: 'Flag', lastName: 'Obi', address: { city: 'Abuja' } },
      account: { currency: '840', type: 'current' },
    });
    const cli = await createInput(testContext(), ['--from-file', file, '--no-pin']);
    expect(cli.body.pinEnabled).toBe(false);
  });

  it('refuses bad files: unknown fields, clear PINs, bad values, stdin twice', async () => {
    const write = (name: string, value: unknown) => {
      const path = join(dir, name);
      writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
      return path;
    };
    const ctx = testContext();
    expect((await usage(createInput(ctx, ['--from-file', write('a.json', { cardProgam: 'x' })]))).message).toMatch(/unknown field "cardProgam"/);
    const clear = await usage(createInput(ctx, ['--from-file', write('b.json', { defaultPIN: '4821' })]));
    expect(clear.message).toMatch(/never a clear PIN/);
    expect(clear.message).not.toContain('4821');
    expect((await usage(createInput(ctx, ['--from-file', write('c.json', { customer: { emailAddress: 'nope' } })]))).message).toMatch(/customer.emailAddress/);
    expect((await usage(createInput(ctx, ['--from-file', write('d.json', '{oops')]))).message).toMatch(/not valid JSON/);
    expect((await usage(createInput(ctx, ['--from-file', join(dir, 'missing.json')]))).message).toMatch(/no such file/);
    expect((await usage(createInput(ctx, ['--from-file', '-', '--pin-stdin']))).message).toMatch(/both read stdin/);
    const block = { encryptedData: 'ab12', publicKeyFingerprint: 'f'.repeat(64) };
    const parsed = await createInput(ctx, ['--from-file', write('e.json', { defaultPIN: block })]);
    expect(parsed.fileBlock).toEqual(block);
    expect(parsed.body.defaultPIN).toBeUndefined();
  });

  it('reads the body from stdin with --from-file -', async () => {
    const ctx = testContext({ stdin: JSON.stringify({ cardProgram: 'P', customer: { firstName: 'Ada' } }) });
    const { body } = await createInput(ctx, ['--from-file', '-']);
    expect(body).toMatchObject({ cardProgram: 'P', customer: { firstName: 'Ada' } });
  });

  it('without a terminal, names every missing required flag and sends nothing', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const ctx = testContext({ dispatcher: agent, env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't' } });
    const error = await usage(runCommand(createCommand, ctx, ['--first-name', 'Ada']));
    for (const flag of ['--program', '--last-name', '--email', '--phone', '--account-number', '--account-type']) expect(error.message).toContain(flag);
    expect(error.message).not.toContain('--first-name');
  });

  it('generates references and default expiry dates', async () => {
    expect(await generateReference(new Date('2026-11-22T10:00:00Z'))).toMatch(/^cardctl-20261122-[0-9a-f]{8}$/);
    expect(defaultExpiry('2026-11-22T00:00:00.000Z', 60)).toBe('2031-11-22T00:00:00.000Z');
    expect(defaultExpiry('2026-01-31T00:00:00.000Z', 1)).toBe('2026-02-28T00:00:00.000Z');
  });

  it('creates a card: PIN from stdin encrypted under the sandbox key, reference printed', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(BASE);
    const { createHash, createPublicKey } = await import('node:crypto');
    const fingerprint = createHash('sha256').update(createPublicKey(publicPem).export({ type: 'spki', format: 'der' })).digest('hex');
    pool.intercept({ path: '/sandbox/pin-key', method: 'GET' }).reply(200, { publicKey: publicPem, fingerprint, algorithm: 'RSA-OAEP-256', pinBlockFormat: 'ISO-9564-1' });
    pool.intercept({ path: '/sandbox/card-programs', method: 'GET' }).reply(200, { statusCode: 200, message: 'ok', data: [{ id: 'PROG1', _id: 'PROG1', name: 'Debit', maxExpiry: 36, bankCode: '058', active: true }] });
    let sent: CreateCardBody | undefined;
    pool.intercept({ path: '/institutions/cards', method: 'POST' }).reply(200, (request) => {
      sent = JSON.parse(String(request.body));
      return { statusCode: 200, message: 'Card created', data: { id: 'c1', pan: '506099******0008', lastFour: '0008', embossingName: 'ADA OBI', status: 'active' } };
    });
    const ctx = testContext({ dispatcher: agent, stdin: '4821\n', env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't' }, globals: { output: 'json' }, configDir: dir });
    Object.assign(ctx, { clock: fixedClock });
    await runCommand(createCommand, ctx, [...full.slice(0, -2), '--first-name', 'Adé', '--pin-stdin']);
    expect(sent).toBeDefined();
    expect(sent!.defaultPIN.publicKeyFingerprint).toBe(fingerprint);
    expect(sent!.defaultPIN.encryptedData).toMatch(/^[0-9a-f]{512}$/);
    expect(JSON.stringify(sent)).not.toContain('4821');
    // The name on the card defaults to the cardholder's, in capitals without accents.
    expect(sent).toMatchObject({ embossingName: 'ADE OBI', startDate: '2026-11-22T00:00:00.000Z', expiryDate: '2029-11-22T00:00:00.000Z', account: { bankCode: '058', currency: '566' } });
    expect(sent!.referenceCode).toMatch(/^cardctl-20261122-/);
    expect(ctx.io.stderrText()).toContain(`reference: ${sent!.referenceCode}, reuse it with --reference to retry safely`);
    expect(JSON.parse(ctx.io.stdoutText())).toMatchObject({ id: 'c1' });
  });
});

describe('cards create -q', () => {
  /** A create against a mock API whose POST is answered by `post`; returns stderr and the error, if any. */
  async function createQuietly(post: (controller: AbortController) => { status: number; body: object }) {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(BASE);
    const { createHash, createPublicKey } = await import('node:crypto');
    const fingerprint = createHash('sha256').update(createPublicKey(publicPem).export({ type: 'spki', format: 'der' })).digest('hex');
    pool.intercept({ path: '/sandbox/pin-key', method: 'GET' }).reply(200, { publicKey: publicPem, fingerprint, algorithm: 'RSA-OAEP-256', pinBlockFormat: 'ISO-9564-1' });
    pool.intercept({ path: '/sandbox/card-programs', method: 'GET' }).reply(200, { statusCode: 200, message: 'ok', data: [{ id: 'PROG1', _id: 'PROG1', name: 'Debit', maxExpiry: 36, bankCode: '058', active: true }] });
    const controller = new AbortController();
    pool.intercept({ path: '/institutions/cards', method: 'POST' }).reply(() => {
      const { status, body } = post(controller);
      return { statusCode: status, data: JSON.stringify(body), responseOptions: { headers: { 'content-type': 'application/json' } } };
    });
    const ctx = testContext({ dispatcher: agent, stdin: '4821\n', env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't' }, globals: { quiet: true, retry: false }, configDir: dir });
    Object.assign(ctx, { clock: fixedClock, signal: controller.signal });
    const error = await runCommand(createCommand, ctx, [...full, '--pin-stdin']).then(() => undefined, (e) => e);
    return { stdout: ctx.io.stdoutText(), stderr: ctx.io.stderrText(), error };
  }

  it('after a success: the id on stdout, nothing on stderr (no reference hint, no status line)', async () => {
    const { stdout, stderr, error } = await createQuietly(() => ({
      status: 200, body: { statusCode: 200, message: 'Card created', data: { id: 'c1', pan: '506099******0008', lastFour: '0008', embossingName: 'ADA OBI', status: 'active' } },
    }));
    expect(error).toBeUndefined();
    expect(stdout).toBe('c1\n');
    expect(stderr).toBe('');
  });

  it('interrupted while the card is being sent: the reference to retry with is said', async () => {
    const { stdout, stderr, error } = await createQuietly((controller) => {
      controller.abort();
      return { status: 200, body: { statusCode: 200, data: { id: 'c1' } } };
    });
    // The aborted request (main() reports it as interrupted, exit 130, since the signal is aborted).
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toMatch(/aborted/);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^reference: cardctl-20261122-[0-9a-f]{8}, reuse it with --reference to retry safely\n$/);
  });
});

describe('PIN input', () => {
  it('reads one PIN per stdin line and checks them, never echoing', async () => {
    const pins = createPinInput(testContext({ stdin: '4821\r\n7305\n1111\n' }), { stdin: true });
    expect(await pins.existing('current PIN')).toBe('4821');
    expect(await pins.fresh('new PIN')).toBe('7305');
    const weak = await usage(pins.fresh('new PIN'));
    expect(weak.message).toMatch(/line 3/);
    expect(weak.message).not.toContain('1111');
    expect(weak.hint).toMatch(/--allow-weak-pin/);
    expect((await usage(pins.fresh('new PIN'))).message).toMatch(/stdin ended/);
    const allowed = createPinInput(testContext({ stdin: '1234\n' }), { stdin: true, allowWeak: true });
    expect(await allowed.fresh('new PIN')).toBe('1234');
  });

  it('without a terminal and without --pin-stdin, says to use --pin-stdin', async () => {
    const error = await usage(createPinInput(testContext(), { stdin: false }).fresh('new PIN'));
    expect(error.hint).toMatch(/--pin-stdin/);
  });

  it('asks a new PIN twice and again after a mismatch', async () => {
    const prompter = new ScriptedPrompter(['4821', '4812', '4821', '4821']);
    const ctx = testContext({ tty: true, prompter });
    expect(await createPinInput(ctx, { stdin: false }).fresh('new PIN')).toBe('4821');
    expect(prompter.asked).toEqual(['New PIN (4-12 digits):', 'Confirm new PIN:', 'New PIN (4-12 digits):', 'Confirm new PIN:']);
    expect(ctx.io.stderrText()).toMatch(/do not match/);
    expect(ctx.io.stderrText()).not.toContain('4821');
  });

  it('gives up after three mismatches', async () => {
    const prompter = new ScriptedPrompter(['4821', '4822', '4821', '4823', '4821', '4824']);
    await usage(createPinInput(testContext({ tty: true, prompter }), { stdin: false }).fresh('new PIN'));
  });
});

describe('PIN errors', () => {
  it('says how many attempts are left, and how to unlock', () => {
    const mismatch = explainPinError(new RejectedError('rejected (422): PIN mismatch', { code: 'PIN_MISMATCH', status: 422, details: { pinAttempts: 1 } }), parseCardId('c1')) as CliError;
    expect(mismatch.exitCode).toBe(5);
    expect(mismatch.message).toMatch(/2 attempts left/);
    const last = explainPinError(new RejectedError('x', { code: 'PIN_MISMATCH', details: { attemptsLeft: 0 } }), parseCardId('c1')) as CliError;
    expect(last.hint).toMatch(/cards pin reset c1/);
    const locked = explainPinError(new RejectedError('x', { code: 'PIN_LOCKED', status: 423 }), parseCardId('c1')) as CliError;
    expect(locked.exitCode).toBe(5);
    expect(locked.hint).toMatch(/cardctl cards pin reset c1/);
  });

  it("says the service does not know the PIN key, in the API's own words", () => {
    const unknown = new RejectedError('rejected (400): no such key', { code: 'UNKNOWN_KEY', status: 400, apiMessage: 'no such key' });
    for (const explained of [explainPinKeyError(unknown), explainPinError(unknown, parseCardId('c1'))] as CliError[]) {
      expect(explained.message).toBe('the service does not know the PIN key: no such key');
      expect(explained.hint).toMatch(/login --pin-key/);
    }
  });

  it('pin change refuses the same PIN twice before sending', async () => {
    const ctx = testContext({ stdin: '4821\n4821\n', env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't' } });
    expect((await usage(runCommand(change, ctx, ['c1', '--pin-stdin']))).message).toMatch(/same as the current/);
  });

  it('says a PIN key is missing before asking for any PIN', async () => {
    const prompter = new ScriptedPrompter([]);
    const ctx = testContext({ tty: true, prompter, env: { CARDCTL_BASE_URL: 'https://api.example.com', CARDCTL_TOKEN: 't' } });
    const error = await usage(runCommand(change, ctx, ['c1']));
    expect(error.hint).toContain('cardctl login --pin-key FILE');
    expect(prompter.asked).toEqual([]);
  });

  it('refuses --pin-stdin when stdin is a terminal (the PIN would be echoed)', async () => {
    const ctx = testContext({ tty: true });
    const error = await usage(createPinInput(ctx, { stdin: true }).fresh('new PIN'));
    expect(error.message).toMatch(/stdin is a terminal/);
  });
});

describe('deactivate', () => {
  it('without a terminal needs --yes, before anything is sent', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const ctx = testContext({ dispatcher: agent, env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't' } });
    const error = await usage(runCommand(deactivate, ctx, ['c1']));
    expect(error.hint).toMatch(/--yes/);
  });

  it('asks naming the card on a terminal, and stops when declined', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get(BASE).intercept({ path: '/institutions/cards?cardId=c1&limit=1', method: 'GET' })
      .reply(200, { statusCode: 200, message: 'ok', data: [{ id: 'c1', pan: '506099******0008', lastFour: '0008', embossingName: 'ADA OBI' }] });
    const prompter = new ScriptedPrompter([false]);
    const ctx = testContext({ tty: true, prompter, dispatcher: agent, env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't' } });
    await usage(runCommand(deactivate, ctx, ['c1']));
    expect(prompter.asked[0]).toContain('506099******0008 (ADA OBI)');
  });
});

describe('cards list --all', () => {
  it('streams ndjson page by page', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(BASE);
    for (const page of [1, 2, 3]) {
      pool.intercept({ path: `/institutions/cards?page=${page}&limit=2`, method: 'GET' }).reply(200, {
        statusCode: 200, message: 'ok',
        data: page < 3 ? [{ id: `c${page}a` }, { id: `c${page}b` }] : [{ id: 'c3a' }],
        pagination: { page, limit: 2, total: 5, pages: 3 },
      });
    }
    const ctx = testContext({ dispatcher: agent, env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't' }, globals: { output: 'ndjson' } });
    await runCommand(list, ctx, ['--all', '--limit', '2']);
    expect(ctx.io.stdoutText().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['c1a', 'c1b', 'c2a', 'c2b', 'c3a']);
  });
});

describe('card columns', () => {
  it('formats number and expiry', () => {
    expect(cardNumber({ pan: '5060990000000008' })).toBe('506099******0008');
    expect(cardNumber({ lastFour: '0008' })).toBe('••••0008');
    expect(cardExpiry({ expiryMonth: '3', expiryYear: 2031 })).toBe('03/2031');
    expect(cardExpiry({ expiryDate: '2031-11-30T00:00:00.000Z' })).toBe('11/2031');
    expect(cardColumns.filter((c) => !c.wide).map((c) => c.header)).toEqual(['ID', 'Card', 'Name on card', 'Status', 'Expires', 'Program', 'Created']);
  });

  it("a write's answer gives the program's id alone: piped, cardProgram.name is empty and cardProgram.id has it; a person sees the id", async () => {
    const piped = testContext();
    await piped.output().record({ id: 'c1', cardProgram: 'prog_1' }, { rows: cardRows });
    const lines = piped.io.stdoutText().split('\n');
    expect(lines).toContain('cardProgram.name\t');
    expect(lines).toContain('cardProgram.id\tprog_1');
    const expanded = testContext();
    // Only the two fields the rows read: the record is not checked against the Card type here.
    const expandedCard: object = { id: 'c1', cardProgram: { id: 'prog_1', name: 'Debit' } };
    await expanded.output().record(expandedCard, { rows: cardRows as Column<object>[] });
    expect(expanded.io.stdoutText().split('\n')).toEqual(expect.arrayContaining(['cardProgram.name\tDebit', 'cardProgram.id\tprog_1']));
    const json = testContext({ globals: { output: 'json', fields: 'cardProgram.id,cardProgram.name' } });
    await json.output().record({ id: 'c1', cardProgram: 'prog_1' }, { rows: cardRows });
    expect(JSON.parse(json.io.stdoutText())).toEqual({ cardProgram: { id: 'prog_1', name: '' } });
    const tty = testContext({ tty: true });
    await tty.output().record({ id: 'c1', cardProgram: 'prog_1' }, { rows: cardRows });
    expect(tty.io.stdoutText().replace(/\x1b\[\d+m/g, '')).toMatch(/Program ID\s+prog_1/);
  });
});
