// The parse step of `cards create`: the command line and the file it names → a checked input,
// every value validated and nothing sent. A card body from stdin (--from-file -) is read by run(),
// then checked by the same function. Missing values stay missing: the wizard or defaults fill them.
import type { EncryptedPinBlock } from '../../api/schemas.js';
import type { RunInput } from '../../contract/command.js';
import type { Context } from '../../contract/context.js';
import { UsageError } from '../../core/errors.js';
import { isObject } from '../../core/is-object.js';
import { getPath, setPath } from '../../core/object-path.js';
import { accountCurrency, ADDRESS_KEYS, applyFlags, assertKnownKeys, checkFileValues, readJsonFile, readJsonObject, type Json } from './fields.js';
import { bulkFlagsGiven } from '../bulk-command.js';
import { ACCOUNT_FIELDS, CARD_FIELDS, CUSTOMER_FIELDS, type CREATE_FLAGS, type CreateOptions } from './create-flags.js';

const CREATE_KEYS = [
  'cardProgram', 'referenceCode', 'pinEnabled', 'defaultPIN', 'account', 'customer', 'embossingName',
  'startDate', 'expiryDate', 'pan', 'status', 'seqNumber', 'enroll2FA', 'printCard',
] as const;
const CUSTOMER_KEYS = ['firstName', 'middleName', 'lastName', 'emailAddress', 'phoneNumber', 'honorific', 'gender', 'dateOfBirth', 'address'] as const;
const ACCOUNT_KEYS = ['currency', 'bankCode', 'type', 'number'] as const;

/** One card's fields from its file and flags, checked; required ones may still be missing. */
export interface ParsedCreate {
  body: Json;
  /** An encrypted block given in the file (replayed as is). */
  fileBlock?: EncryptedPinBlock;
  referenceGiven: boolean;
}

/** What run() gets: one card (its body still on stdin with --from-file -), or many from rows. */
export type CreateInput =
  | { kind: 'one'; opts: CreateOptions; card: ParsedCreate | 'stdin' }
  | { kind: 'rows'; opts: CreateOptions; rowsFile: string; pinColumn?: string; defaultCurrency: string };

export async function parseCreate(raw: RunInput<typeof CREATE_FLAGS>): Promise<CreateInput> {
  const opts: CreateOptions = raw.opts;
  if (opts.rowsFromFile !== undefined) {
    if (opts.fromFile !== undefined || opts.pinStdin || opts.pan !== undefined || opts.reference !== undefined) {
      throw new UsageError('--from-file, --pin-stdin, --pan and --reference describe one card and cannot be combined with --rows-from-file');
    }
    const pinColumn = opts.pinsFromColumn?.trim();
    if (pinColumn !== undefined) await assertPrivateFile(opts.rowsFromFile, pinColumn);
    const defaultCurrency = opts.currency === undefined ? '566' : await accountCurrency('--currency', opts.currency);
    return { kind: 'rows', opts, rowsFile: opts.rowsFromFile, pinColumn, defaultCurrency };
  }
  const bulkOnly = [...bulkFlagsGiven(opts), ...(opts.pinsFromColumn !== undefined ? ['--pins-from-column'] : [])];
  if (bulkOnly.length) throw new UsageError(`${bulkOnly.join(', ')} need --rows-from-file (many cards)`);
  if (opts.fromFile === '-') {
    if (opts.pinStdin) {
      throw new UsageError('--from-file - and --pin-stdin both read stdin', { hint: 'put the card body in a file: --from-file card.json --pin-stdin' });
    }
    await cardFrom(undefined, opts); // the flags, checked before stdin is read
    return { kind: 'one', opts, card: 'stdin' };
  }
  const file = opts.fromFile === undefined ? undefined : await readJsonFile(opts.fromFile);
  return { kind: 'one', opts, card: await cardFrom(file, opts) };
}

/** The one card of the input, its body read from stdin when it comes from there. */
export async function cardOf(ctx: Context, input: Extract<CreateInput, { kind: 'one' }>): Promise<ParsedCreate> {
  return input.card === 'stdin' ? cardFrom(await readJsonObject(ctx, '-'), input.opts) : input.card;
}

/** File, then flags over it, every value checked. */
async function cardFrom(file: Json | undefined, opts: CreateOptions): Promise<ParsedCreate> {
  const body: Json = file ?? {};
  const source = opts.fromFile === '-' ? '--from-file -' : `--from-file ${opts.fromFile}`;
  let fileBlock: EncryptedPinBlock | undefined;
  if (file !== undefined) {
    assertKnownKeys(body, CREATE_KEYS, source);
    for (const [key, allowed] of [['customer', CUSTOMER_KEYS], ['account', ACCOUNT_KEYS], ['customer.address', ADDRESS_KEYS]] as const) {
      const value = getPath(body, key);
      if (value === undefined) continue;
      if (!isObject(value)) throw new UsageError(`${source}: ${key} must be an object`);
      assertKnownKeys(value, allowed, `${source}: ${key}`);
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
  if (isObject(block) && typeof block.encryptedData === 'string' && /^[0-9a-fA-F]+$/.test(block.encryptedData) && typeof block.publicKeyFingerprint === 'string') {
    return { encryptedData: block.encryptedData, publicKeyFingerprint: block.publicKeyFingerprint };
  }
  throw new UsageError(`${source}: defaultPIN must be an encrypted PIN block {encryptedData, publicKeyFingerprint}, never a clear PIN`, {
    hint: 'remove it from the file and give the PIN with --pin-stdin or at the prompt; it is encrypted on this machine',
  });
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
