import type { ApiClient } from '../../api/client.js';
import type { Card, CardProgram, CreateCardBody, EncryptedPinBlock } from '../../api/schemas.js';
import { defineCommand } from '../../app/command.js';
import { type BodyField, bodyFields, defineFlags, type FlagValues } from '../../core/flags.js';
import type { Context } from '../../app/context.js';
import { CliError, ExitCode, NotFoundError, RejectedError, UsageError } from '../../core/errors.js';
import * as fields from '../../core/card-fields.js';
import { validateDateTime, validatePan } from '../../core/validate.js';
import { getPath, setPath } from '../../core/object-path.js';
import {
  accountCurrency,
  ADDRESS_KEYS,
  applyFlags,
  assertKnownKeys,
  checkFileValues,
  readJsonObject,
  trimmed,
  type Json,
} from './fields.js';
import { ACCOUNT_FLAGS, CARD_FLAGS, CARDHOLDER_FLAGS, customerPlacement, placeFlags } from '../card-flags.js';
import { describeCard, explainPinKeyError, printCard } from './common.js';
import { BULK_FLAGS, bulkFlagsGiven } from '../bulk-command.js';

/** The bulk flags but --from-file, which here is one card's JSON body: --rows-from-file names the rows. */
const { fromFile: _oneBody, ...BULK_ROW_FLAGS } = BULK_FLAGS;

const seq = (label: string, value: string): string => {
  const text = value.trim();
  if (!/^\d{1,3}$/.test(text)) throw new UsageError(`invalid ${label} "${text}": expected 1 to 3 digits, e.g. 001`);
  return text;
};
const dateTime = (label: string, value: string): string => validateDateTime(label, value);

/** Every flag of `cards create`, in help order; those with a path fill the Create Card body. */
export const CREATE_FLAGS = defineFlags({
  program: { type: 'string', value: 'id', description: 'card program identifier', path: 'cardProgram', parse: trimmed, required: true },
  reference: { type: 'string', value: 'code', description: 'your tracking code (unique per institution; generated when absent)', path: 'referenceCode', parse: fields.cardReference },
  ...placeFlags(CARD_FLAGS, { embossingName: 'embossingName' }),
  ...placeFlags(CARDHOLDER_FLAGS, {
    ...customerPlacement('customer.'),
    firstName: { path: 'customer.firstName', required: true },
    lastName: { path: 'customer.lastName', required: true },
    email: { path: 'customer.emailAddress', required: true },
    phone: { path: 'customer.phoneNumber', required: true },
  }),
  fromFile: { type: 'string', value: 'file', complete: 'file', description: 'JSON body (or - for stdin); flags override its fields' },
  ...placeFlags(ACCOUNT_FLAGS, { accountNumber: 'account.number', accountType: 'account.type', currency: {}, bankCode: 'account.bankCode' }),
  ...placeFlags(CARD_FLAGS, { startDate: 'startDate' }),
  expiryDate: { type: 'string', value: 'date', description: "expiry, YYYY-MM-DD or ISO date-time (default: the program's maximum)", path: 'expiryDate', parse: dateTime },
  pan: { type: 'string', value: 'pan', pan: true, description: 'card number, when the program lets you bring one (Luhn-checked)', path: 'pan', parse: (label, value) => validatePan(label, value) },
  seqNumber: { type: 'string', value: 'n', description: 'card sequence number (default from the program)', path: 'seqNumber', parse: seq },
  enroll2fa: { type: 'boolean', long: 'enroll-2fa', description: 'enrol the card for extra cardholder verification' },
  printCard: { type: 'boolean', description: 'print a physical card' },
  pin: { type: 'negated', description: 'create the card with PIN transactions disabled' },
  pinStdin: { type: 'boolean', secret: true, description: 'read the default PIN from stdin' },
  allowWeakPin: { type: 'boolean', description: 'accept trivially weak PINs such as 1234' },
  ...placeFlags(CARD_FLAGS, { status: 'status' }),
  rowsFromFile: { type: 'string', value: 'file', complete: 'file', description: "many cards: a row each (.csv, .ndjson or a .json array; - for stdin), columns named like these flags; flags fill what rows leave out" },
  pinsFromColumn: { type: 'string', value: 'name', description: "many cards: each card's PIN from this column (the file must not be readable by others); default a random PIN per card, never shown" },
  ...BULK_ROW_FLAGS,
});

export type CreateOptions = FlagValues<typeof CREATE_FLAGS>;

const CREATE_KEYS = [
  'cardProgram', 'referenceCode', 'pinEnabled', 'defaultPIN', 'account', 'customer', 'embossingName',
  'startDate', 'expiryDate', 'pan', 'status', 'seqNumber', 'enroll2FA', 'printCard',
] as const;
const CUSTOMER_KEYS = ['firstName', 'middleName', 'lastName', 'emailAddress', 'phoneNumber', 'honorific', 'gender', 'dateOfBirth', 'address'] as const;
const ACCOUNT_KEYS = ['currency', 'bankCode', 'type', 'number'] as const;

/** The body's fields, each with its flag, path and validator. */
const BODY_FIELDS = bodyFields(CREATE_FLAGS);
const CUSTOMER_FIELDS = BODY_FIELDS.filter((f) => f.path.startsWith('customer.'));
const CARD_FIELDS = BODY_FIELDS.filter((f) => !f.path.includes('.'));
const ACCOUNT_FIELDS = BODY_FIELDS.filter((f) => f.path.startsWith('account.'));
/** Required values and the flag that gives each. */
const REQUIRED = BODY_FIELDS.filter((f) => f.required);
const embossing = fields.embossingName;

export interface ParsedCreate {
  body: Json;
  /** An encrypted block given in the file (replayed as is). */
  fileBlock?: EncryptedPinBlock;
  referenceGiven: boolean;
}

/**
 * File, then flags over it, every value checked; nothing is sent. Missing values stay missing
 * (the wizard or defaults fill them later).
 */
export async function parseCreateInput(ctx: Context, opts: CreateOptions): Promise<ParsedCreate> {
  if (opts.fromFile === '-' && opts.pinStdin) {
    throw new UsageError('--from-file - and --pin-stdin both read stdin', { hint: 'put the card body in a file: --from-file card.json --pin-stdin' });
  }
  const body: Json = opts.fromFile !== undefined ? await readJsonObject(ctx, opts.fromFile) : {};
  const source = opts.fromFile === '-' ? '--from-file -' : `--from-file ${opts.fromFile}`;
  let fileBlock: EncryptedPinBlock | undefined;
  if (opts.fromFile !== undefined) {
    assertKnownKeys(body, CREATE_KEYS, source);
    for (const [key, allowed] of [['customer', CUSTOMER_KEYS], ['account', ACCOUNT_KEYS], ['customer.address', ADDRESS_KEYS]] as const) {
      const value = getPath(body, key);
      if (value === undefined) continue;
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${source}: ${key} must be an object`);
      assertKnownKeys(value as Json, allowed, `${source}: ${key}`);
    }
    fileBlock = takeFileBlock(body, source);
    checkFileValues(body, CARD_FIELDS, source);
    checkFileValues(body, CUSTOMER_FIELDS, source);
    checkFileValues(body, ACCOUNT_FIELDS, source);
    for (const key of ['pinEnabled', 'enroll2FA', 'printCard'] as const) {
      if (body[key] !== undefined && typeof body[key] !== 'boolean') throw new UsageError(`${source}: ${key} must be true or false`);
    }
    const currency = getPath(body, 'account.currency');
    if (currency !== undefined) {
      if (typeof currency !== 'string' && typeof currency !== 'number') throw new UsageError(`${source}: account.currency must be a string such as "566"`);
      setPath(body, 'account.currency', await accountCurrency(`account.currency (${source})`, String(currency)));
    }
  }
  applyFlags(body, opts, CARD_FIELDS);
  applyFlags(body, opts, CUSTOMER_FIELDS);
  applyFlags(body, opts, ACCOUNT_FIELDS);
  if (opts.currency !== undefined) setPath(body, 'account.currency', await accountCurrency('--currency', opts.currency));
  if (opts.enroll2fa) body.enroll2FA = true;
  if (opts.printCard) body.printCard = true;
  // --no-pin given (false) wins over the file; not given (true), the file decides.
  if (opts.pin === false) body.pinEnabled = false;
  if (body.pinEnabled === undefined) body.pinEnabled = true;
  if (opts.pinStdin && body.pinEnabled === false) throw new UsageError('--pin-stdin and --no-pin contradict each other');
  if (fileBlock && opts.pinStdin) throw new UsageError(`${source} has a defaultPIN block already; drop --pin-stdin or the file's defaultPIN`);
  return { body, fileBlock, referenceGiven: body.referenceCode !== undefined };
}

function takeFileBlock(body: Json, source: string): EncryptedPinBlock | undefined {
  const block = body.defaultPIN;
  delete body.defaultPIN;
  if (block === undefined || block === null) return undefined;
  const ok = typeof block === 'object' && !Array.isArray(block)
    && typeof (block as Json).encryptedData === 'string' && /^[0-9a-fA-F]+$/.test((block as Json).encryptedData as string)
    && typeof (block as Json).publicKeyFingerprint === 'string';
  if (!ok) {
    throw new UsageError(`${source}: defaultPIN must be an encrypted PIN block {encryptedData, publicKeyFingerprint}, never a clear PIN`, {
      hint: 'remove it from the file and give the PIN with --pin-stdin or at the prompt; it is encrypted on this machine',
    });
  }
  return { encryptedData: (block as Json).encryptedData as string, publicKeyFingerprint: (block as Json).publicKeyFingerprint as string };
}

/** A reference for retries: cardctl-YYYYMMDD-<8 random hex>. */
export async function generateReference(now: Date): Promise<string> {
  const { randomBytes } = await import('node:crypto');
  return `cardctl-${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex')}`;
}

/** Start + the program's maximum validity in months, on the last day of the month if needed. */
export function defaultExpiry(startIso: string, months: number): string {
  const start = new Date(startIso);
  const year = start.getUTCFullYear();
  const month = start.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(start.getUTCDate(), lastDay);
  return new Date(Date.UTC(year, month, day, start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds())).toISOString();
}

function today(now: Date): string {
  return `${now.toISOString().slice(0, 10)}T00:00:00.000Z`;
}

function missingRequired(body: Json): BodyField[] {
  return REQUIRED.filter(({ path }) => {
    const value = getPath(body, path);
    return value === undefined || value === '';
  });
}

/** Asks for one missing value, validated like its flag. */
async function ask(ctx: Context, question: string, parse: (label: string, value: string) => string, label: string, fallback?: string): Promise<string> {
  const answer = await ctx.prompter.input(`${question}:`, {
    default: fallback,
    validate: (value) => {
      try {
        parse(label, value);
        return true;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
  return parse(label, answer);
}

interface ProgramLookup {
  get(): Promise<CardProgram[] | undefined>;
}

function programLookup(ctx: Context, client: () => Promise<ApiClient>): ProgramLookup {
  let cached: Promise<CardProgram[] | undefined> | undefined;
  return {
    get() {
      cached ??= (async () => {
        const { listCardPrograms } = await import('../../api/cards.js');
        return listCardPrograms(await client(), ctx.signal);
      })();
      return cached;
    },
  };
}

/** Fills what is missing: prompts on a terminal, defaults where there are sensible ones. */
async function complete(ctx: Context, parsed: ParsedCreate, programs: ProgramLookup): Promise<{ prompted: boolean; program?: CardProgram }> {
  const body = parsed.body;
  let prompted = false;
  const missing = missingRequired(body);
  if (missing.length && !ctx.io.canPrompt) {
    throw new UsageError(`missing ${missing.map((m) => m.flag).join(', ')}`, {
      hint: 'give them as flags or in --from-file, or run on a terminal to be asked (see `cardctl cards create --help`)',
    });
  }

  if (body.cardProgram === undefined) {
    prompted = true;
    const list = (await programs.get())?.filter((p) => p.active !== false);
    if (list && list.length > 0) {
      body.cardProgram = await ctx.prompter.select(
        'Card program:',
        list.map((p) => ({ name: `${p.name} (${p.scheme}, up to ${p.maxExpiry} months)`, value: p.id, description: p.id })),
        { default: list[0]!.id },
      );
    } else {
      body.cardProgram = await ask(ctx, 'Card program id', trimmed, 'card program id');
    }
  }
  // The program's terms give defaults (bank code, expiry); only looked up when they are needed.
  const needProgram = prompted || getPath(body, 'account.bankCode') === undefined || body.expiryDate === undefined;
  const known = needProgram ? await programs.get() : undefined;
  const program = known?.find((p) => p.id === body.cardProgram || p._id === body.cardProgram);
  if (known && !program) {
    throw new NotFoundError(`card program ${String(body.cardProgram)} not found`, {
      hint: known.length ? `programs of this institution: ${known.slice(0, 5).map((p) => `${p.id} (${p.name})`).join(', ')}` : 'this institution has no card programs',
    });
  }

  for (const spec of CUSTOMER_FIELDS) {
    if (!spec.required || getPath(body, spec.path) !== undefined) continue;
    prompted = true;
    setPath(body, spec.path, await ask(ctx, spec.prompt ?? spec.flag, spec.parse ?? trimmed, spec.flag));
  }
  if (body.embossingName === undefined) {
    // Cards carry plain capitals: accents are dropped from the default (Adé → ADE).
    const fromName = `${getPath(body, 'customer.firstName') ?? ''} ${getPath(body, 'customer.lastName') ?? ''}`
      .normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toUpperCase().slice(0, 26).trim();
    if (prompted) body.embossingName = await ask(ctx, 'Name on the card', embossing, '--embossing-name', fromName);
    else body.embossingName = embossing('--embossing-name', fromName);
  }
  for (const spec of ACCOUNT_FIELDS) {
    const path = spec.path;
    if (getPath(body, path) !== undefined) continue;
    if (spec.key === 'bankCode' && program?.bankCode && !prompted) {
      setPath(body, path, program.bankCode);
      continue;
    }
    if (!ctx.io.canPrompt) throw new UsageError(`missing ${spec.flag}`, { hint: spec.key === 'bankCode' ? 'the card program does not say which bank code to use' : undefined });
    prompted = true;
    const fallback = spec.key === 'accountType' ? 'savings' : spec.key === 'bankCode' ? program?.bankCode : undefined;
    setPath(body, path, await ask(ctx, spec.prompt ?? spec.flag, trimmed, spec.flag, fallback));
  }
  if (getPath(body, 'account.currency') === undefined) {
    if (prompted) {
      const answer = await ask(ctx, 'Currency (ISO 4217)', (_l, v) => v.trim(), '--currency', '566');
      setPath(body, 'account.currency', await accountCurrency('--currency', answer));
    } else {
      setPath(body, 'account.currency', '566');
    }
  }
  const now = ctx.clock.now();
  if (body.startDate === undefined) {
    body.startDate = prompted ? await ask(ctx, 'Valid from (YYYY-MM-DD)', dateTime, '--start-date', today(now).slice(0, 10)) : today(now);
  }
  if (body.expiryDate === undefined) {
    const fallback = program ? defaultExpiry(body.startDate as string, program.maxExpiry) : undefined;
    if (prompted || (!fallback && ctx.io.canPrompt)) {
      prompted = true;
      body.expiryDate = await ask(ctx, 'Expires (YYYY-MM-DD)', dateTime, '--expiry-date', fallback?.slice(0, 10));
    } else if (fallback) {
      body.expiryDate = fallback;
    } else {
      throw new UsageError('missing --expiry-date', { hint: "the card program's maximum validity is not known here, so there is no default" });
    }
  }
  fields.assertEndAfterStart({ label: '--start-date', value: body.startDate as string }, { label: '--expiry-date', value: body.expiryDate as string });
  if (program && Date.parse(body.expiryDate as string) > Date.parse(defaultExpiry(body.startDate as string, program.maxExpiry))) {
    throw new UsageError(`the expiry date ${String(body.expiryDate).slice(0, 10)} is beyond the program's maximum validity of ${program.maxExpiry} months from the start date`);
  }
  return { prompted, program };
}

/** A random PIN that is not trivially weak: for --no-pin cards (the API requires a block anyway) and bulk rows. */
async function unusablePin(): Promise<string> {
  const { randomInt } = await import('node:crypto');
  const { pinProblem } = await import('../../pin/policy.js');
  for (;;) {
    const pin = String(randomInt(0, 1_000_000)).padStart(6, '0');
    if (!pinProblem(pin)) return pin;
  }
}

export default defineCommand({
  name: 'create',
  mcp: 'write',
  summary: 'issue a card from a card program',
  description: `Issue a card. Fields come from flags, from --from-file (JSON in the API's
Create Card shape; flags win), or, on a terminal, from prompts for whatever
is missing. Without a terminal a missing required value is an error naming
its flag.

Defaults: the name on the card is the cardholder's name in capitals, the
currency 566, validity from today to the program's maximum, and the
program's bank code.

The default PIN comes from a hidden prompt (asked twice) or, with
--pin-stdin, from the first line of stdin; it is encrypted on this machine
before it is sent. A reference code is generated when none is given and
printed on stderr: reuse it with --reference to retry safely (a repeated
reference is refused, so a retry cannot issue a second card).

Many cards: --rows-from-file FILE, a row per card (.csv with a header,
.ndjson, or a .json array; --from-file stays one card's JSON body). Columns are
named like the flags (program, first-name, last-name, email, phone,
account-number, account-type, bank-code, currency, embossing-name,
start-date, expiry-date, reference, status, …; pin, enroll-2fa and print-card
are true/false); a flag given fills the rows that leave its column out or
empty, and the defaults above apply. Each row is created exactly once by its
reference: without a reference column it is derived from the row's content
(row-<32 hex>: the SHA-256 of its fields and the flags that fill them, never
the PIN or PAN), written to the report, so a rerun, a --resume or the same
rows in another file never issue a second card. A card found under a row's
reference is "already" only when it is that row's card (program, cardholder's
names, email and phone, account number); otherwise the row fails. PINs: a random PIN
per card, generated and encrypted here, never printed or stored; or, with
--pins-from-column NAME, that column's PIN (the file must not be readable by
group or others). See \`cardctl help bulk\`.`,
  flags: CREATE_FLAGS,
  examples: [
    'cardctl cards create                        # prompts for what is missing',
    'printf 4821 | cardctl cards create --program PROG --embossing-name "ADA OBI" --first-name Ada --last-name Obi \\\n      --email ada@example.com --phone +2348012345678 --account-number 0123456789 --account-type savings \\\n      --bank-code 058 --pin-stdin',
    'cardctl cards create --from-file card.json --pin-stdin < pin.txt',
    'cardctl cards create --rows-from-file staff.csv --program PROG --account-type current --report issued.ndjson',
  ],
  async run(ctx, input) {
    const opts = input.opts;
    if (opts.rowsFromFile !== undefined) return createRows(ctx, opts);
    const bulkOnly = [...bulkFlagsGiven(opts), ...(opts.pinsFromColumn !== undefined ? ['--pins-from-column'] : [])];
    if (bulkOnly.length) throw new UsageError(`${bulkOnly.join(', ')} need --rows-from-file (many cards)`);
    const parsed = await parseCreateInput(ctx, opts);
    const body = parsed.body;
    const programs = programLookup(ctx, () => ctx.client());
    const { prompted, program } = await complete(ctx, parsed, programs);

    // The PIN, read and checked before anything is sent.
    const { assertPinKeyAvailable, createPinInput, sendWithPinBlocks } = await import('../../pin/index.js');
    let pin: string | undefined;
    if (!parsed.fileBlock) {
      assertPinKeyAvailable(ctx);
      pin = body.pinEnabled === false
        ? await unusablePin()
        : await createPinInput(ctx, { stdin: Boolean(opts.pinStdin), allowWeak: opts.allowWeakPin }).fresh('default PIN');
    }

    if (!parsed.referenceGiven) body.referenceCode = await generateReference(ctx.clock.now());

    if (prompted) {
      const summary = [
        `program      ${program ? `${program.name} (${program.id})` : String(body.cardProgram)}`,
        `cardholder   ${getPath(body, 'customer.firstName')} ${getPath(body, 'customer.lastName')} <${getPath(body, 'customer.emailAddress')}>`,
        `on the card  ${body.embossingName}`,
        `account      ${getPath(body, 'account.number')} (${getPath(body, 'account.type')}, ${getPath(body, 'account.currency')}, bank ${getPath(body, 'account.bankCode')})`,
        `valid        ${String(body.startDate).slice(0, 10)} to ${String(body.expiryDate).slice(0, 10)}`,
      ];
      ctx.io.err(`${summary.map((line) => `  ${line}`).join('\n')}\n`);
      if (!(await ctx.prompter.confirm('Create this card?', { default: true }))) throw new UsageError('cancelled: nothing was sent');
    }

    // The generated reference is what makes a retry safe: said before sending (so it is on the
    // screen even if this process dies), except with --quiet, where it is said only on a failure
    // that may need a retry (below).
    const referenceLine = `reference: ${body.referenceCode as string}, reuse it with --reference to retry safely\n`;
    if (!parsed.referenceGiven && !ctx.globals.quiet) ctx.io.err(referenceLine);

    const { createCardExactlyOnce } = await import('../../api/cards.js');
    const client = await ctx.client();
    // Exactly once: after a lost answer the card is looked up by its reference before any resend.
    const send = async (block: EncryptedPinBlock) => {
      const result = await createCardExactlyOnce(client, { ...(body as unknown as CreateCardBody), defaultPIN: block }, ctx.signal);
      if (result.appliedEarlier) {
        ctx.log.info(`the first attempt had applied (its answer was lost): card with reference ${body.referenceCode as string} found, not sent again`);
      }
      return result.response;
    };
    let response;
    try {
      response = parsed.fileBlock
        ? await send(parsed.fileBlock)
        : await sendWithPinBlocks(ctx, client, [pin!], ([block]) => send(block!), { pan: body.pan as string | undefined });
    } catch (error) {
      if (!parsed.referenceGiven && ctx.globals.quiet && mayNeedRetry(error, body.referenceCode as string)) ctx.io.err(referenceLine);
      if (error instanceof CliError && error.code === 'CONFLICT') {
        throw new RejectedError(error.message, {
          code: 'CONFLICT',
          status: error.status,
          details: error.details,
          hint: `a card with reference ${body.referenceCode as string} may exist already (an earlier attempt that succeeded?): cardctl cards list --search ${body.referenceCode as string}`,
        });
      }
      throw explainPinKeyError(error);
    }
    await printCard(ctx, response, (card) => `Card ${describeCard(card)} created (id ${card.id})`);
  },
});

/**
 * A failure after which the card may or may not exist, so that a retry should reuse the reference:
 * network, server, rate limit or Ctrl-C (anything that is not a CliError yet, e.g. an abort), unless
 * the error's hint already names the reference.
 */
function mayNeedRetry(error: unknown, reference: string): boolean {
  if (!(error instanceof CliError)) return true;
  if (error.hint?.includes(reference)) return false;
  return error.exitCode === ExitCode.Network || error.exitCode === ExitCode.Server || error.exitCode === ExitCode.Interrupted || error.code === 'RATE_LIMITED';
}

/** One card of a bulk creation: its body without the PIN block, and the PIN (kept in memory only). */
interface CardRow {
  body: Json;
  pin: string;
}

/** Booleans a row may give, by column, and where they go in the body. */
const ROW_BOOLEANS = { pin: 'pinEnabled', 'enroll-2fa': 'enroll2FA', 'print-card': 'printCard' } as const;

/**
 * `cards create --rows-from-file`: each row a Create Card body from columns named like the flags
 * (flags fill what a row leaves out), sent exactly once by its reference through the bulk runner.
 */
async function createRows(ctx: Context, opts: CreateOptions): Promise<void> {
  if (opts.fromFile !== undefined || opts.pinStdin || opts.pan !== undefined || opts.reference !== undefined) {
    throw new UsageError('--from-file, --pin-stdin, --pan and --reference describe one card and cannot be combined with --rows-from-file');
  }
  const pinColumn = opts.pinsFromColumn?.trim();
  if (pinColumn !== undefined) await assertPrivateFile(opts.rowsFromFile!, pinColumn);
  const columns = new Map(BODY_FIELDS.map((field) => [field.flag.replace(/^--/, ''), field]));
  const known = [...columns.keys(), ...Object.keys(ROW_BOOLEANS), ...(pinColumn ? [pinColumn] : [])];
  const defaultCurrency = opts.currency === undefined ? '566' : await accountCurrency('--currency', opts.currency);
  const [{ runBulkCommand }, { assertPinKeyAvailable, pinProblem, sendWithPinBlocks }, cards] = await Promise.all([
    import('../bulk-command.js'), import('../../pin/index.js'), import('../../api/cards.js'),
  ]);
  assertPinKeyAvailable(ctx);
  const client = await ctx.client();
  const programs = programLookup(ctx, async () => client);
  const now = ctx.clock.now();

  await runBulkCommand<CardRow>(ctx, { ...opts, fromFile: opts.rowsFromFile }, {
    verb: 'create',
    label: 'creating',
    inputFlag: '--rows-from-file',
    stdinRows: 'CSV or NDJSON rows in, one card a row, e.g. cat staff.csv | …',
    columns: ['reference', ...known.filter((c) => c !== 'reference')],
    action: {
      async parse(value) {
        const given = value as Record<string, unknown>;
        for (const column of Object.keys(given)) if (!known.includes(column)) throw new Error(`${column}: unknown column (the columns are ${known.join(', ')})`);
        const text = (column: string): string | undefined => {
          const v = given[column];
          if (v === undefined || v === null || v === '') return undefined;
          if (typeof v !== 'string') throw new Error(`${column}: must be text`);
          return v;
        };
        const body: Json = {};
        for (const [column, field] of columns) {
          if (field.key === 'currency') continue;
          const raw = text(column) ?? (opts[field.key as keyof CreateOptions] as string | undefined);
          if (raw === undefined) {
            if (field.required) throw new Error(`${column}: is required (a column, or ${field.flag} for every row)`);
            continue;
          }
          setPath(body, field.path, (field.parse ?? trimmed)(column, raw));
        }
        const currency = text('currency');
        setPath(body, 'account.currency', currency === undefined ? defaultCurrency : await accountCurrency('currency', currency));
        for (const [column, key] of Object.entries(ROW_BOOLEANS)) {
          const v = given[column];
          const flag = key === 'pinEnabled' ? opts.pin !== false : key === 'enroll2FA' ? Boolean(opts.enroll2fa) : Boolean(opts.printCard);
          if (v === undefined || v === '') body[key] = flag;
          else if (v === true || v === 'true') body[key] = true;
          else if (v === false || v === 'false') body[key] = false;
          else throw new Error(`${column}: must be true or false`);
        }
        body.referenceCode ??= await rowReference(body);
        body.embossingName ??= embossing('embossing-name', `${String(getPath(body, 'customer.firstName'))} ${String(getPath(body, 'customer.lastName'))}`
          .normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toUpperCase().slice(0, 26).trim());
        body.startDate ??= today(now);
        if (body.expiryDate === undefined || getPath(body, 'account.bankCode') === undefined) {
          const program = (await programs.get())?.find((p) => p.id === body.cardProgram || p._id === body.cardProgram);
          if (!program) throw new Error(`program: card program ${String(body.cardProgram)} not found`);
          body.expiryDate ??= defaultExpiry(body.startDate as string, program.maxExpiry);
          if (getPath(body, 'account.bankCode') === undefined) {
            if (!program.bankCode) throw new Error('bank-code: is required (the card program names none)');
            setPath(body, 'account.bankCode', program.bankCode);
          }
        }
        fields.assertEndAfterStart({ label: 'start-date', value: body.startDate as string }, { label: 'expiry-date', value: body.expiryDate as string });
        let pin: string;
        if (pinColumn !== undefined && body.pinEnabled !== false) {
          const chosen = text(pinColumn)?.trim();
          if (chosen === undefined) throw new Error(`${pinColumn}: is required (--pins-from-column)`);
          const problem = pinProblem(chosen, { allowWeak: opts.allowWeakPin });
          if (problem) throw new Error(`${pinColumn}: ${problem}`);
          pin = chosen;
        } else {
          pin = await unusablePin();
        }
        return { body, pin };
      },
      idOf: (card) => card.body.referenceCode as string,
      // A settled row's id is its card's; the row itself is named by its reference.
      reportedIdOf: (entry) => (typeof entry.referenceCode === 'string' ? entry.referenceCode : undefined),
      describe: (card) => `create the card ${String(card.body.referenceCode)} for ${String(getPath(card.body, 'customer.firstName'))} ${String(getPath(card.body, 'customer.lastName'))} (${String(card.body.cardProgram)})`,
      async apply({ body, pin }, { signal, uncertain }) {
        const referenceCode = body.referenceCode as string;
        try {
          const result = await sendWithPinBlocks(ctx, client, [pin], ([block]) =>
            cards.createCardExactlyOnce(client, { ...(body as unknown as CreateCardBody), defaultPIN: block! }, signal));
          // appliedEarlier: this row's own attempt had applied and its answer was lost.
          return { outcome: 'done', id: result.response.data.id, details: { referenceCode } };
        } catch (error) {
          // The reference exists: created by an earlier run (or this row's lost attempt), once;
          // unless the card under it is not this row's.
          if (!(error instanceof CliError && error.status === 409)) throw explainPinKeyError(error);
          const found = await cards.findCardByReference(client, referenceCode, signal);
          if (!found) throw error;
          const differ = differencesFromRow(found.data, body, (await programs.get()) ?? []);
          if (differ.length) {
            throw new RejectedError(`reference ${referenceCode} is another card's (its ${differ.join(', ')} differ${differ.length === 1 ? 's' : ''} from this row's): not created`, {
              code: 'REFERENCE_TAKEN', hint: 'give the row a reference of its own',
            });
          }
          return { outcome: uncertain ? 'done' : 'already', id: found.data.id, details: { referenceCode } };
        }
      },
    },
  });
}

/**
 * The reference of a row that names none: `row-` and 32 hex digits of the SHA-256 of the row's
 * card (its fields and the flags that fill them, keys sorted), before the defaults that change
 * from day to day (start date, the program's expiry) and without the PAN; the PIN is never in
 * the body. The same card in another file, or under another name, has the same reference.
 */
export async function rowReference(body: Json): Promise<string> {
  const { createHash } = await import('node:crypto');
  const { referenceCode: _none, pan: _pan, ...content } = body;
  return `row-${createHash('sha256').update(sortedJson(content)).digest('hex').slice(0, 32)}`;
}

function sortedJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record).filter((k) => record[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(record[k])}`).join(',')}}`;
}

/** What makes a card the card of a row: the fields compared before a found card is "already". */
const ROW_IDENTITY = ['customer.firstName', 'customer.lastName', 'customer.emailAddress', 'customer.phoneNumber', 'account.number'] as const;

/** The fields in which a card found by a row's reference differs from the row (none: it is the row's card). */
export function differencesFromRow(card: Partial<Card>, body: Json, programs: readonly CardProgram[]): string[] {
  const differ: string[] = ROW_IDENTITY.filter((path) => {
    const want = getPath(body, path);
    return want !== undefined && String(getPath(card as Json, path) ?? '').trim().toLowerCase() !== String(want).trim().toLowerCase();
  });
  // A program may be named by its id or _id; the card's may be either, or the program itself.
  const wanted = String(body.cardProgram);
  const same = programs.find((p) => p.id === wanted || p._id === wanted);
  const names = new Set([wanted, ...(same ? [same.id, same._id] : [])]);
  const held = card.cardProgram;
  const heldIds = typeof held === 'string' ? [held] : held ? [held.id, held._id] : [];
  if (!heldIds.some((id) => names.has(id))) differ.unshift('cardProgram');
  return differ;
}

/** PINs in a file: refused unless only its owner can read it (a pipe or stdin cannot be checked). */
async function assertPrivateFile(path: string, column: string): Promise<void> {
  if (path === '-') throw new UsageError(`--pins-from-column ${column} needs a file only you can read, not stdin`);
  const { statSync } = await import('node:fs');
  let mode: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new UsageError(`--pins-from-column ${column} needs a regular file only you can read`);
    mode = stat.mode;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`no such file: ${path}`);
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new UsageError(`${path} holds PINs and can be read by others (mode ${(mode & 0o777).toString(8)})`, { hint: `chmod 600 ${path}` });
  }
}
