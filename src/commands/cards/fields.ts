// Turning flags and --from-file JSON into request bodies for `cards create` and
// `cards customer update`. Every value is checked here, before anything is sent; errors name the
// flag (or the file's field) and the expected form.
import type { Context } from '../../contract/context.js';
import { FieldError, UsageError } from '../../core/errors.js';
import { readAll } from '../../core/io.js';
import * as fields from '../../core/card-fields.js';
import type { BodyField } from '../../core/flags.js';
import { validateDateTime } from '../../core/validate.js';
import { getPath, setPath } from '../../core/object-path.js';

export type Json = Record<string, unknown>;

/** Reads a JSON object from FILE, or from stdin for `-`. */
export async function readJsonObject(ctx: Context, file: string, flag = '--from-file'): Promise<Json> {
  return file === '-' ? jsonObject(await readAll(ctx.io.stdin), `${flag} - (stdin)`) : readJsonFile(file, flag);
}

/** Reads a JSON object from FILE (a path, not stdin: a parse step has no stdin). */
export async function readJsonFile(file: string, flag = '--from-file'): Promise<Json> {
  const { readTextFile } = await import('../../core/text.js');
  let text: string;
  try {
    text = await readTextFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${flag} ${file}: cannot read the file (${code === 'ENOENT' ? 'no such file' : code ?? (error as Error).message})`);
  }
  return jsonObject(text, `${flag} ${file}`);
}

function jsonObject(text: string, where: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new UsageError(`${where}: not valid JSON (${(error as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${where}: expected a JSON object`);
  return value as Json;
}

/** Required text (ids, account fields): trimmed, one line, bounded. */
export const trimmed = fields.requiredText;

/** Flag values (only those given) written into `target` at their body paths, checked. */
export function applyFlags(target: Json, opts: Record<string, unknown>, specs: BodyField[]): string[] {
  const given: string[] = [];
  for (const spec of specs) {
    const value = opts[spec.key];
    if (value === undefined) continue;
    const parsed = (spec.parse ?? trimmed)(spec.flag, String(value));
    setPath(target, spec.path, parsed);
    given.push(spec.flag);
  }
  return given;
}

/** Checks a value read from a file (strings only), naming the file's field. */
export function checkFileValues(target: Json, specs: BodyField[], source = '--from-file'): void {
  for (const spec of specs) {
    const path = spec.path;
    const value = getPath(target, path);
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new UsageError(`${source}: ${path} must be a string`);
    // Dates of birth may already be full date-times in a file.
    if (spec.key === 'birthDate' && value.includes('T')) {
      setPath(target, path, validateDateTime(`${path} (${source})`, value));
      continue;
    }
    setPath(target, path, (spec.parse ?? trimmed)(`${path} (${source})`, value));
  }
}

/** Rejects keys a body may not have, so a typo in a file is caught before sending. */
export function assertKnownKeys(value: Json, allowed: readonly string[], where: string): void {
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length) {
    throw new UsageError(`${where}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}`, {
      hint: `allowed: ${allowed.join(', ')}`,
    });
  }
}

export const ADDRESS_KEYS = ['line1', 'line2', 'city', 'state', 'country', 'postalCode'] as const;

/**
 * An account currency: ISO 4217 (numeric or alphabetic) → the numeric code. Codes that are not
 * money an account can hold (XXX "no currency", XTS "testing", precious metals, bond units) are
 * refused too.
 */
export async function accountCurrency(label: string, value: string): Promise<string> {
  // The ISO 4217 table (and currency-codes) loaded only when a currency is given.
  const [{ currencyInfo }, { default: cc }] = await Promise.all([import('../../iso8583/amount.js'), import('currency-codes')]);
  const currency = currencyInfo(value);
  if (!currency) throw new FieldError(label, `"${value}"`, 'expected an ISO 4217 currency such as 566 (NGN) or 840 (USD)');
  const entry = cc.number(currency.number);
  if (entry && entry.countries.length > 0 && entry.countries.every((country) => /^Zz/.test(country))) {
    throw new UsageError(`invalid ${label} "${value.trim()}": ${currency.code} (${entry.currency}) is not a currency an account can hold`, {
      hint: 'use the numeric code of a national currency, e.g. 566 (NGN), 840 (USD), 978 (EUR)',
    });
  }
  return currency.number;
}
