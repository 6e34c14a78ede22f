// The one parser of dates and date-times the user types or writes in a file: every date flag
// (--birth-date, --start-date, --expiry-date, simulate --date, tx --since/--until, history --since),
// scenario steps, import rows and --from-file bodies come through here. Strict: a calendar day
// that exists, hours 00-23, minutes and seconds 00-59, an explicit offset of at most ±14:00.
// `new Date(text)` is never trusted alone: it turns 2026-02-30 into 2 March and 24:00 into the
// next day.
import { UsageError } from './errors.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2}))$/;
const DURATION = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i;
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export const DATE_FORMS = 'YYYY-MM-DD or an ISO 8601 date-time with an offset, e.g. 2026-11-22T10:00:00Z';

function fail(field: string, value: string, why: string): never {
  throw new UsageError(`invalid ${field} "${value}": ${why}`);
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function checkDay(field: string, value: string, y: string, m: string, d: string): void {
  const month = Number(m);
  if (month < 1 || month > 12) fail(field, value, `there is no month ${m}`);
  const day = Number(d);
  if (day < 1 || day > daysIn(Number(y), month)) fail(field, value, `${y}-${m} has no day ${d}`);
}

/** YYYY-MM-DD of a day that exists → the same text. */
export function parseDate(field: string, value: string): string {
  const match = DATE.exec(value.trim());
  if (!match) fail(field, value, 'expected a date YYYY-MM-DD');
  const [, y, m, d] = match;
  checkDay(field, value, y, m, d);
  return `${y}-${m}-${d}`;
}

/** YYYY-MM-DD (UTC midnight) or a full ISO date-time with an offset → the instant. */
export function parseDateTime(field: string, value: string): Date {
  const text = value.trim();
  if (DATE.test(text)) return new Date(`${parseDate(field, text)}T00:00:00.000Z`);
  const match = DATE_TIME.exec(text);
  if (!match) {
    if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) fail(field, value, 'add an offset (Z for UTC, or e.g. +01:00): a time without one is ambiguous');
    fail(field, value, `expected ${DATE_FORMS}`);
  }
  const [, y, m, d, hh, mm, ss = '00', , zone, , oh, om] = match;
  checkDay(field, value, y!, m!, d!);
  if (Number(hh) > 23) fail(field, value, `there is no hour ${hh} (00 to 23)`);
  if (Number(mm) > 59) fail(field, value, `there is no minute ${mm} (00 to 59)`);
  if (Number(ss) > 59) fail(field, value, `there is no second ${ss} (00 to 59)`);
  if (zone !== 'Z' && (Number(oh) * 60 + Number(om) > 14 * 60 || Number(om) > 59)) fail(field, value, `the offset ${zone} is not one any place uses (at most ±14:00)`);
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) fail(field, value, `expected ${DATE_FORMS}`);
  return date;
}

/** --since / --until: a date or date-time (parseDateTime), or a duration back from `now` (90s, 30m, 24h, 7d, 2w). */
export function parseTimeBound(field: string, value: string, now: Date): Date {
  const duration = DURATION.exec(value.trim());
  if (duration) return new Date(now.getTime() - Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]!);
  if (!/^\d{4}-/.test(value.trim())) fail(field, value, `expected ${DATE_FORMS}, or a duration like 30m, 24h, 7d`);
  return parseDateTime(field, value);
}
