// Client-side checks shared by commands and the importer. Each returns the normalised value or
// throws a UsageError that names the flag/field and the expected form. Nothing here is sent.
import { LIST_BOUNDS } from './list-bounds.js';
import { parseDate, parseDateTime } from './datetime.js';
import { FieldError, UsageError } from './errors.js';
import { luhnValid } from './redact.js';

export { luhnValid };

function fail(field: string, value: string, expected: string): never {
  throw new FieldError(field, `"${value}"`, `expected ${expected}`);
}

/**
 * LOCAL@DOMAIN without white space, the domain with a dot after its first character and two or
 * more after the dot. The dot is found with indexOf: a pattern with `[^\s@]+\.[^\s@]{2,}` took
 * quadratic time on a long run of dots.
 */
export function validateEmail(field: string, value: string): string {
  const trimmed = value.trim();
  const domain = trimmed.slice(trimmed.indexOf('@') + 1);
  const dot = domain.indexOf('.', 1);
  if (!/^[^\s@]+@[^\s@]+$/.test(trimmed) || dot < 0 || dot > domain.length - 3) fail(field, value, 'an email address like ada@example.com');
  return trimmed;
}

/** E.164-ish: optional +, 7 to 15 digits; spaces, dashes and parentheses are removed. */
export function validatePhone(field: string, value: string): string {
  const compact = value.replace(/[\s()-]/g, '');
  if (!/^\+?\d{7,15}$/.test(compact)) fail(field, value, 'a phone number such as +2348012345678');
  return compact;
}

/** YYYY-MM-DD → the calendar date (rejects 2026-02-30): the one date parser, core/datetime.ts. */
export function validateDate(field: string, value: string): string {
  return parseDate(field, value);
}

/** YYYY-MM-DD or a full ISO date-time → ISO date-time (UTC midnight for a bare date); core/datetime.ts. */
export function validateDateTime(field: string, value: string): string {
  return parseDateTime(field, value).toISOString();
}

/** YYYYMM with a real month. */
export function validateYearMonth(field: string, value: string): { year: number; month: number; text: string } {
  const match = /^(\d{4})(\d{2})$/.exec(value.trim());
  if (!match || Number(match[2]) < 1 || Number(match[2]) > 12) fail(field, value, 'YYYYMM, e.g. 202912');
  return { year: Number(match[1]), month: Number(match[2]), text: `${match[1]}${match[2]}` };
}

/** A card number: 12 to 19 digits (spaces allowed) passing the Luhn check. */
export function validatePan(field: string, value: string): string {
  const digits = value.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) fail(field, '…', '12 to 19 digits');
  if (!luhnValid(digits)) throw new UsageError(`invalid ${field}: the card number fails the Luhn check (a digit is probably mistyped)`);
  return digits;
}

export function validatePositiveInt(field: string, value: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    fail(field, value, `a whole number from 1 to ${max}`);
  }
  return n;
}

/**
 * The page size and number flags of list commands, within the bounds the API allows (the page
 * size: the deployment's maxPageSize, which the profile's dialect may change).
 */
export function validatePaging(opts: { limit?: string; page?: string }, maxPageSize: number): { limit?: number; page?: number } {
  return {
    limit: opts.limit === undefined ? undefined : validatePositiveInt('--limit', opts.limit, maxPageSize),
    page: opts.page === undefined ? undefined : validatePositiveInt('--page', opts.page, LIST_BOUNDS.maxPage),
  };
}

/** Whether `value` is an OAuth scope: `verb:object` (lowercase letters and underscores), or `*`, `READ`, `WRITE`. */
export function isScope(value: string): boolean {
  return /^([a-z_]+:[a-z_]+|\*|READ|WRITE)$/.test(value);
}

/** An OAuth scope (see isScope), trimmed. */
export function validateScope(field: string, value: string): string {
  const trimmed = value.trim();
  if (!isScope(trimmed)) {
    fail(field, value, 'verb:object in lowercase (e.g. read:card, create:oauth_application), or *, READ, WRITE');
  }
  return trimmed;
}

/** An absolute http(s) URL. */
export function validateUrl(field: string, value: string): string {
  const trimmed = value.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    fail(field, value, 'an absolute URL such as https://example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(field, value, 'an http:// or https:// URL');
  return trimmed;
}

/** A URI with a scheme (redirect URIs may use custom schemes such as myapp://callback). */
export function validateUri(field: string, value: string): string {
  const trimmed = value.trim();
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/.test(trimmed)) fail(field, value, 'an absolute URI such as https://example.com/callback');
  try {
    new URL(trimmed);
  } catch {
    fail(field, value, 'an absolute URI such as https://example.com/callback');
  }
  return trimmed;
}

/** The text without the slashes it ends with. A loop: `/\/+$/` rescans a run of slashes from each of its starts. */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '/') end--;
  return text.slice(0, end);
}

/** https://api.example.com/ → https://api.example.com; keeps a path prefix (…/v1). */
export function normaliseBaseUrl(url: URL): string {
  return withoutTrailingSlashes(`${url.origin}${url.pathname}`);
}
