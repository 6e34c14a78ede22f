// Validates one import row against the Import Card body (every field required, no others)
// with the field validators that `cards create` uses too (src/core/card-fields.ts). A bad row is
// reported, never sent; a row that passes here is one the API accepts for its own content.
import { ImportCardBody } from '../api/schemas.js';
import { fieldFailure, schemaCheck, type SchemaCheck } from '../api/schema-check.js';
import * as fields from '../core/card-fields.js';
import { validateDate } from '../core/validate.js';
import { pinProblem } from '../pin/policy.js';
import { isObject } from '../core/is-object.js';

export type RowVerdict = { ok: true; body: ImportCardBody } | { ok: false; errors: string[] };
/** The verdict on a row's fields but its PIN (withoutPin): no body yet. */
export type FieldsVerdict = { ok: true } | { ok: false; errors: string[] };

type Check = (label: string, value: string, context: RowContext) => string;
interface RowContext { now: Date; allowWeakPin: boolean }

/** Each text field of the body and its validator; the order is the order errors are listed in. */
const TOP_FIELDS: ReadonlyArray<readonly [string, Check]> = [
  ['realId', fields.reference],
  ['institutionId', fields.institutionId],
  ['firstName', fields.personName],
  ['middleName', fields.optionalPersonName],
  ['lastName', fields.personName],
  ['email', fields.email],
  ['phone', fields.phone],
  ['birthDate', (label, value, c) => fields.birthDate(label, value, c.now)],
  ['address1', fields.freeText],
  ['address2', fields.freeText],
  ['city', fields.freeText],
  ['state', fields.freeText],
  ['zip', fields.freeText],
  ['country', fields.freeText],
  ['startDate', validateDate],
  ['endDate', validateDate],
];
const CARD_FIELDS: ReadonlyArray<readonly [string, Check]> = [
  ['expiration', (label, value, c) => fields.expiryMonth(label, value, { now: c.now, allowCurrentMonth: true })],
  ['serviceCode', fields.serviceCode],
  ['cardProduct', fields.freeText],
  ['embossingName', fields.embossingName],
  ['defaultPIN', (label, value, c) => {
    const problem = pinProblem(value.trim(), { allowWeak: c.allowWeakPin });
    if (problem) throw new Error(`invalid ${label}: ${problem}`);
    return value.trim();
  }],
  ['bin', fields.bin],
  ['cardState', fields.cardStatus],
];
const TOP_BOOLEANS = ['active', 'returnSecure'] as const;
const TOP_KEYS = new Set<string>([...TOP_FIELDS.map(([k]) => k), ...TOP_BOOLEANS, 'card']);
const CARD_KEYS = new Set<string>(CARD_FIELDS.map(([k]) => k));

/** Every field of the import body as a dotted path (the CSV header names). */
export const IMPORT_FIELD_PATHS: readonly string[] = [...TOP_KEYS].filter((k) => k !== 'card').concat(CARD_FIELDS.map(([k]) => `card.${k}`));

export interface RowDefaults {
  /** Fills `institutionId` when a row leaves it out or empty. */
  institutionId?: string;
}

export interface RowOptions {
  /** CSV rows: booleans may be spelled `true`/`false`. */
  text?: boolean;
  defaults?: RowDefaults;
  /** --allow-weak-pin: accept default PINs such as 1111 or 1234. */
  allowWeakPin?: boolean;
  /** Today, for dates of birth and expiry months (default: the system clock). */
  now?: Date;
  /** Leave card.defaultPIN out (one card from flags: its fields are checked before the PIN is asked for). */
  withoutPin?: boolean;
}

/**
 * Checks a parsed row. `text` rows (CSV) may spell booleans `true`/`false`; JSON rows must use
 * JSON booleans. Returns the normalised body or every problem found, each naming its field.
 */
export function validateImportRow(value: unknown, options: RowOptions & { withoutPin: true }): FieldsVerdict;
export function validateImportRow(value: unknown, options?: RowOptions): RowVerdict;
export function validateImportRow(value: unknown, options: RowOptions = {}): RowVerdict | FieldsVerdict {
  const errors: string[] = [];
  if (!isObject(value)) return { ok: false, errors: ['is not an object with the import body\'s fields'] };
  const context: RowContext = { now: options.now ?? new Date(), allowWeakPin: Boolean(options.allowWeakPin) };
  const row: Record<string, unknown> = { ...value };
  if (options.defaults?.institutionId && (row.institutionId === undefined || row.institutionId === '')) {
    row.institutionId = options.defaults.institutionId;
  }
  for (const key of Object.keys(row)) if (!TOP_KEYS.has(key)) errors.push(`${key}: unknown field`);

  const body: Record<string, unknown> = {};
  validateFields(row, TOP_FIELDS, '', body, errors, context);
  for (const key of TOP_BOOLEANS) {
    const v = row[key];
    const parsed = toBoolean(v, options.text ?? false);
    if (parsed === undefined) errors.push(`${key}: ${v === undefined || v === '' ? 'is required' : 'must be'} true or false`);
    else body[key] = parsed;
  }
  if (typeof body.startDate === 'string' && typeof body.endDate === 'string') {
    check(errors, 'endDate', () => fields.assertEndAfterStart({ label: 'startDate', value: body.startDate as string }, { label: 'endDate', value: body.endDate as string }));
  }

  const card = row.card;
  if (!isObject(card)) {
    errors.push(card === undefined ? 'card: is required (card.expiration, card.bin, … in CSV headers)' : 'card: must be an object');
  } else {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(card)) if (!CARD_KEYS.has(key)) errors.push(`card.${key}: unknown field`);
    validateFields(card, options.withoutPin ? CARD_FIELDS.filter(([k]) => k !== 'defaultPIN') : CARD_FIELDS, 'card.', out, errors, context);
    body.card = out;
  }
  if (errors.length) return { ok: false, errors };
  if (options.withoutPin) return { ok: true };
  // The checks above are the schema's own (a property test holds them to it); the schema then
  // says so to the type.
  importBodyCheck ??= schemaCheck(ImportCardBody);
  if (importBodyCheck(body)) return { ok: true, body };
  return { ok: false, errors: (importBodyCheck.errors ?? []).map((e) => fieldFailure(e, 'body')).map(({ field, message }) => `${field}: ${message}`) };
}

let importBodyCheck: SchemaCheck<typeof ImportCardBody> | undefined;

function validateFields(
  source: Record<string, unknown>, table: ReadonlyArray<readonly [string, Check]>, prefix: string,
  out: Record<string, unknown>, errors: string[], context: RowContext,
): void {
  for (const [key, validate] of table) {
    const path = `${prefix}${key}`;
    const v = source[key];
    if (v === undefined || v === null) errors.push(`${path}: is required`);
    else if (typeof v !== 'string') errors.push(`${path}: must be text`);
    else check(errors, path, () => (out[key] = validate(path, v, context)));
  }
}

/** The realId of a row, when it has a usable one (for reports of invalid rows). */
export function realIdOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.realId !== 'string' || value.realId.trim() === '') return undefined;
  const realId = value.realId.trim();
  return realId.length > 64 ? `${realId.slice(0, 64)}…` : realId;
}

function toBoolean(value: unknown, text: boolean): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (text && typeof value === 'string') {
    const lower = value.trim().toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  return undefined;
}

function check(errors: string[], field: string, fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    // "invalid email "x": expected …" → "email: invalid "x": expected …";
    // "invalid realId: must not be empty" → "realId: must not be empty"
    const message = (error as Error).message;
    const named = new RegExp(`^invalid ${escapeRegExp(field)}(:| )`).exec(message);
    if (!named) errors.push(`${field}: ${message}`);
    else errors.push(`${field}: ${named[1] === ':' ? message.slice(named[0].length).trimStart() : `invalid ${message.slice(named[0].length)}`}`);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

