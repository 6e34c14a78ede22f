// Small value formatters shared by the renderer and the per-resource columns.
import { getPath, setPath } from '../core/object-path.js';
import { redactBodyText, redactValue } from '../core/redact.js';

/** Keeps only the given dot paths of a record (for `--fields` with json/ndjson). */
export function pickFields(record: unknown, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = getPath(record, field);
    if (value !== undefined) setPath(out, field, value);
  }
  return out;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export function isIsoDateTime(value: unknown): value is string {
  return typeof value === 'string' && ISO_DATE.test(value);
}

/** The zone formatDateTime shows times in, for a table's header: "UTC", "Africa/Lagos". */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
}

/** Local time for people ("2026-11-22 15:04"), ISO for machines. */
export function formatDateTime(value: string, human: boolean): string {
  if (!human) return value;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Any cell value as text: dates localised for people, objects as compact JSON. */
export function cellText(value: unknown, human: boolean): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return isIsoDateTime(value) ? formatDateTime(value, human) : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object')) return value.join(',');
  return JSON.stringify(value);
}

/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP's list: = + - @, tab,
 * carriage return), with their full-width forms, which some spreadsheets read the same way.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
/** A plain decimal number (-5.00, +3, 1e5): a spreadsheet reads it as that number and nothing else. */
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A CSV cell as text a spreadsheet will not evaluate: one that starts like a formula gets a single
 * quote in front (`=cmd|'/C calc'!A0` → `'=cmd|'/C calc'!A0`), as OWASP advises. A plain number
 * such as an amount of `-5.00` is left alone, so it stays a number.
 */
export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/** A CSV field: formulas neutralised (neutralizeFormula), then RFC 4180 quoting. */
export function csvField(text: string): string {
  const cell = neutralizeFormula(text);
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/**
 * What must not reach a terminal as it is: control characters (C0, DEL and C1: ESC and CSI start
 * escape sequences that can retitle the window, recolour or rewrite the screen), and invisible
 * format characters that can reorder or hide text (bidi embeddings, overrides and isolates
 * U+202A–U+202E and U+2066–U+2069, directional marks U+200E/U+200F/U+061C, zero-width space
 * U+200B, word joiner U+2060, BOM, soft hyphen, …), and the line and paragraph separators
 * U+2028/U+2029. The zero-width (non-)joiners U+200C/U+200D are escaped too, except between two
 * non-ASCII letters, marks or emoji, where Persian and Indic names and emoji sequences need them
 * (`ad\u200dmin` is shown escaped; the U+200C of a Persian name and the U+200D of an emoji are not).
 */
const UNSAFE_FOR_TERMINAL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const NAMED_ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };
/** What a joiner may stand between: a letter or mark outside ASCII, an emoji, a variation selector. */
// eslint-disable-next-line no-control-regex
const JOINABLE = /^(?![\x00-\x7f])[\p{L}\p{M}\p{Extended_Pictographic}\uFE0F]$/u;

/**
 * Text for people, with every character of UNSAFE_FOR_TERMINAL made visible as an escape:
 * `\t`, `\n`, `\r`, `\x1b` (up to U+00FF), `\u202e`, `\u{e0001}`. The one function every
 * human-readable output goes through (tables, key/value views, templates, error lines, hints,
 * prompts, status lines, bulk row problems, progress); json, ndjson, csv and raw stay exact.
 */
export function escapeControls(text: string): string {
  UNSAFE_FOR_TERMINAL.lastIndex = 0;
  if (!UNSAFE_FOR_TERMINAL.test(text)) return text;
  return text.replace(UNSAFE_FOR_TERMINAL, (char, offset: number) => {
    if ((char === '\u200C' || char === '\u200D') && joins(text, offset)) return char;
    const named = NAMED_ESCAPES[char];
    if (named) return named;
    const code = char.codePointAt(0)!;
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
    return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** Whether the joiner at `at` stands between two characters it may join (JOINABLE). */
function joins(text: string, at: number): boolean {
  const before = text.codePointAt(at - 1);
  // The character before may be the low half of a surrogate pair (an emoji).
  const previous = before !== undefined && before >= 0xdc00 && before <= 0xdfff ? text.codePointAt(at - 2) : before;
  const next = text.codePointAt(at + 1);
  return previous !== undefined && next !== undefined
    && JOINABLE.test(String.fromCodePoint(previous)) && JOINABLE.test(String.fromCodePoint(next));
}

/**
 * A line of free text for a terminal that may carry what a server, a handler or a file gave (an
 * error, a row's problem): disclosed by the one rule (redactBodyText: secrets, card numbers,
 * URL user info), then escaped (escapeControls).
 */
export function terminalLine(text: string): string {
  return escapeControls(redactBodyText(text));
}

/**
 * A value a command prints for people itself, not through the renderer (a lifecycle, an exchange
 * side by side): disclosed by the one rule (redactValue), then every string escaped.
 */
export function terminalValue<T>(value: T): T {
  return escapeControlsDeep(redactValue(value) as T);
}

/** escapeControls over every string of a JSON-like value (a record, before a column formats it). */
export function escapeControlsDeep<T>(value: T): T {
  if (typeof value === 'string') return escapeControls(value) as T;
  if (Array.isArray(value)) return value.map((item) => escapeControlsDeep(item)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = escapeControlsDeep(item);
    return out as T;
  }
  return value;
}

/**
 * A tab-separated cell (the table piped): tabs and newlines would break `cut`/`awk`, so they become
 * spaces; other control characters are made visible (escapeControls), as on a terminal.
 */
export function tsvField(text: string): string {
  return escapeControls(text.replace(/[\t\r\n]+/g, ' '));
}

/** Display width of a string, ignoring ANSI escapes (wide characters are rare in this data). */
export function visibleWidth(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '').length;
}

export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (text.length <= width) return text;
  return width === 1 ? '…' : `${text.slice(0, width - 1)}…`;
}
