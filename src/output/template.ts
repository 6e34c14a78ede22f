// --template: Handlebars templates over records, with gh-style `{{.field}}` accepted as
// Handlebars' `{{this.field}}`. Applied once per record of a list, once for a single record.
// The syntax is documented in `cardctl help output` (src/help/topics.ts).
import type Handlebars from 'handlebars';
import { UsageError } from '../core/errors.js';
import { formatAmount } from '../iso8583/amount.js';
import { STYLE_NAMES, type Style, type StyleName } from './style.js';

export type RenderTemplate = (record: unknown) => string;

/**
 * Compiles a template once. `\t` and `\n` in the text are tabs and newlines (shells pass them
 * literally); each rendering ends with a newline unless the template already does.
 */
export async function compileTemplate(source: string, style: Style, now: () => Date = () => new Date()): Promise<RenderTemplate> {
  const { default: Handlebars } = await import('handlebars');
  const handlebars = Handlebars.create();
  registerHelpers(handlebars, style, now);
  const text = toHandlebars(source);
  let render: (context: unknown) => string;
  try {
    render = handlebars.compile(text, { noEscape: true, strict: false });
    render({}); // compile errors surface on first use: find them before any output
  } catch (error) {
    throw templateError(error);
  }
  return (record) => {
    let out: string;
    try {
      out = render(record);
    } catch (error) {
      throw templateError(error);
    }
    return out.endsWith('\n') ? out : `${out}\n`;
  };
}

/** `{{.id}}` → `{{this.id}}`, `{{.}}` → `{{this}}`, `{{pad .id 10}}` → `{{pad this.id 10}}`; escapes \t \n. */
export function toHandlebars(source: string): string {
  const unescaped = source.replace(/\\([tn\\])/g, (_m, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : '\\'));
  return unescaped.replace(/\{\{(~?[#/^]?)([^{}]*)\}\}/g, (_match, open: string, body: string) => {
    const rewritten = body.replace(/(^|[\s(=])\.(?=[A-Za-z_$@\d]|\s|\)|~?$)/g, (_m, before: string) => `${before}this.`)
      .replace(/this\.(?=\s|\)|~?$)/g, 'this');
    return `{{${open}${rewritten}}}`;
  });
}

function templateError(error: unknown): UsageError {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ').trim();
  return new UsageError(`--template: ${message}`, {
    code: 'USAGE_TEMPLATE',
    hint: 'see `cardctl help output` for the template syntax, e.g. --template \'{{.id}}\\t{{.status}}\'',
  });
}

/** The styles a template may name: every one cardctl paints with but the banner's background. */
const COLOURS: readonly StyleName[] = STYLE_NAMES.filter((name) => name !== 'bgRed');

function registerHelpers(hb: typeof Handlebars, style: Style, now: () => Date): void {
  // Handlebars passes an options object last; these helpers take plain values before it.
  const args = (list: unknown[]) => list.slice(0, -1);
  hb.registerHelper('timeago', (...a) => timeAgo(args(a)[0], now()));
  hb.registerHelper('localtime', (...a) => localTime(args(a)[0]));
  hb.registerHelper('money', (...a) => {
    const [minor, currency] = args(a);
    if (minor === undefined || minor === null || minor === '') return '';
    const text = String(minor);
    return /^\d{1,15}$/.test(text) ? formatAmount(text, currency === undefined ? '566' : String(currency)) : text;
  });
  hb.registerHelper('pad', (...a) => {
    const [value, width] = args(a);
    const n = Number(width);
    const text = value === undefined || value === null ? '' : String(value);
    return n < 0 ? text.padStart(-n) : text.padEnd(Number.isFinite(n) ? n : 0);
  });
  hb.registerHelper('truncate', (...a) => {
    const [value, width] = args(a);
    const text = value === undefined || value === null ? '' : String(value);
    const n = Number(width);
    return Number.isFinite(n) && n > 0 && text.length > n ? `${text.slice(0, Math.max(0, n - 1))}…` : text;
  });
  hb.registerHelper('color', (...a) => {
    const [name, value] = args(a);
    const text = value === undefined || value === null ? '' : String(value);
    if (name === 'status') return style.status(text);
    if (!(COLOURS as readonly unknown[]).includes(name)) throw new Error(`unknown colour "${String(name)}" (use ${COLOURS.join(', ')} or status)`);
    return style.paint(name as StyleName, text);
  });
  hb.registerHelper('json', (...a) => JSON.stringify(args(a)[0] ?? null));
  hb.registerHelper('join', (...a) => {
    const [list, separator] = args(a);
    return Array.isArray(list) ? list.join(separator === undefined ? ',' : String(separator)) : '';
  });
  hb.registerHelper('upper', (...a) => String(args(a)[0] ?? '').toUpperCase());
}

function toDate(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** "3 minutes ago", "in 2 days". */
export function timeAgo(value: unknown, now: Date): string {
  const date = toDate(value);
  if (!date) return value === undefined || value === null ? '' : String(value);
  const seconds = Math.round((now.getTime() - date.getTime()) / 1000);
  const abs = Math.abs(seconds);
  const units: Array<[number, string]> = [[31_536_000, 'year'], [2_592_000, 'month'], [86_400, 'day'], [3_600, 'hour'], [60, 'minute']];
  let phrase = 'less than a minute';
  for (const [size, unit] of units) {
    if (abs >= size) {
      const n = Math.floor(abs / size);
      phrase = `${n} ${unit}${n === 1 ? '' : 's'}`;
      break;
    }
  }
  if (phrase === 'less than a minute') return seconds >= 0 ? 'just now' : 'in less than a minute';
  return seconds >= 0 ? `${phrase} ago` : `in ${phrase}`;
}

/** "2026-11-22 15:04:05" in the local time zone. */
export function localTime(value: unknown): string {
  const date = toDate(value);
  if (!date) return value === undefined || value === null ? '' : String(value);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`;
}
