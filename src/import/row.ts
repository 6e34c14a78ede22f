// Validates one import row against the Import Card body (every field required, no others)
// with the shared validators of src/core/validate.ts. A bad row is reported, never sent.
import type { ImportCardBody } from '../api/schemas.js';
import { validateDate, validateEmail, validatePhone, validateYearMonth } from '../core/validate.js';

export type RowVerdict = { ok: true; body: ImportCardBody } | { ok: false; errors: string[] };

const TOP_STRINGS = [
  'realId', 'firstName', 'lastName', 'middleName', 'address1', 'address2', 'city', 'state', 'zip', 'country', 'institutionId',
] as const;
const NON_EMPTY = new Set(['realId', 'firstName', 'lastName', 'institutionId']);
const TOP_DATES = ['startDate', 'endDate', 'birthDate'] as const;
const TOP_BOOLEANS = ['active', 'returnSecure'] as const;
const CARD_STRINGS = ['expiration', 'serviceCode', 'cardProduct', 'embossingName', 'defaultPIN', 'bin', 'cardState'] as const;
const TOP_KEYS = new Set<string>([...TOP_STRINGS, ...TOP_DATES, ...TOP_BOOLEANS, 'email', 'phone', 'card']);
const CARD_KEYS = new Set<string>(CARD_STRINGS);

/** Every field of the import body as a dotted path (the CSV header names). */
export const IMPORT_FIELD_PATHS: readonly string[] = [...TOP_KEYS].filter((k) => k !== 'card').concat(CARD_STRINGS.map((k) => `card.${k}`));

export interface RowDefaults {
  /** Fills `institutionId` when a row leaves it out or empty. */
  institutionId?: string;
}

/**
 * Checks a parsed row. `text` rows (CSV) may spell booleans `true`/`false`; JSON rows must use
 * JSON booleans. Returns the normalised body or every problem found, each naming its field.
 */
export function validateImportRow(value: unknown, options: { text?: boolean; defaults?: RowDefaults } = {}): RowVerdict {
  const errors: string[] = [];
  if (!isObject(value)) return { ok: false, errors: ['is not an object with the import body\'s fields'] };
  const row: Record<string, unknown> = { ...value };
  if (options.defaults?.institutionId && (row.institutionId === undefined || row.institutionId === '')) {
    row.institutionId = options.defaults.institutionId;
  }
  for (const key of Object.keys(row)) if (!TOP_KEYS.has(key)) errors.push(`${key}: unknown field`);

  const body: Record<string, unknown> = {};
  for (const key of TOP_STRINGS) {
    const v = row[key];
    if (v === undefined || v === null) errors.push(`${key}: is required`);
    else if (typeof v !== 'string') errors.push(`${key}: must be text`);
    else if (NON_EMPTY.has(key) && v.trim() === '') errors.push(`${key}: must not be empty`);
    else body[key] = key === 'realId' || key === 'institutionId' ? v.trim() : v;
  }
  for (const key of TOP_DATES) {
    const v = row[key];
    if (typeof v !== 'string' || v === '') errors.push(`${key}: is required (YYYY-MM-DD)`);
    else check(errors, key, () => (body[key] = validateDate(key, v)));
  }
  for (const key of TOP_BOOLEANS) {
    const v = row[key];
    const parsed = toBoolean(v, options.text ?? false);
    if (parsed === undefined) errors.push(`${key}: ${v === undefined || v === '' ? 'is required' : 'must be'} true or false`);
    else body[key] = parsed;
  }
  if (typeof row.email !== 'string' || row.email === '') errors.push('email: is required');
  else check(errors, 'email', () => (body.email = validateEmail('email', row.email as string)));
  if (typeof row.phone !== 'string' || row.phone === '') errors.push('phone: is required');
  else check(errors, 'phone', () => (body.phone = validatePhone('phone', row.phone as string)));

  const card = row.card;
  if (!isObject(card)) {
    errors.push(card === undefined ? 'card: is required (card.expiration, card.bin, … in CSV headers)' : 'card: must be an object');
  } else {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(card)) if (!CARD_KEYS.has(key)) errors.push(`card.${key}: unknown field`);
    for (const key of CARD_STRINGS) {
      const v = card[key];
      if (v === undefined || v === null) errors.push(`card.${key}: is required`);
      else if (typeof v !== 'string') errors.push(`card.${key}: must be text`);
      else out[key] = v.trim();
    }
    if (typeof out.expiration === 'string') check(errors, 'card.expiration', () => (out.expiration = validateYearMonth('card.expiration', out.expiration as string).text));
    if (typeof out.embossingName === 'string' && out.embossingName === '') errors.push('card.embossingName: must not be empty');
    if (typeof out.defaultPIN === 'string' && !/^\d{4,12}$/.test(out.defaultPIN)) errors.push('card.defaultPIN: must be 4 to 12 digits');
    if (typeof out.bin === 'string' && !/^\d{6,8}$/.test(out.bin)) errors.push(`card.bin: "${out.bin}" must be 6 to 8 digits`);
    body.card = out;
  }
  if (errors.length) return { ok: false, errors };
  return { ok: true, body: body as unknown as ImportCardBody };
}

/** The realId of a row, when it has a usable one (for reports of invalid rows). */
export function realIdOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  return typeof value.realId === 'string' && value.realId.trim() !== '' ? value.realId.trim() : undefined;
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
    // "invalid email "x": expected …" → "email: invalid "x": expected …"
    const message = (error as Error).message.replace(new RegExp(`^invalid ${escapeRegExp(field)} `), 'invalid ');
    errors.push(`${field}: ${message}`);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
