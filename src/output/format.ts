// Small value formatters shared by the renderer and the per-resource columns.

/** Reads a dot path (`customer.address.city`) from a record. */
export function getPath(record: unknown, path: string): unknown {
  if (path === '') return record;
  let value: unknown = record;
  for (const key of path.split('.')) {
    if (value === null || value === undefined || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Writes a dot path into a plain object, creating intermediate objects. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

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

/** RFC 4180 field quoting. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A tab-separated cell: tabs and newlines would break `cut`/`awk`, so they become spaces. */
export function tsvField(text: string): string {
  return text.replace(/[\t\r\n]+/g, ' ');
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
