// A column: how one field of a record shows in a table and in CSV, and what --fields names.
// With it, what the renderer (renderer.ts) works out from columns: the column a --fields name
// names, the columns of a record that comes without any, and what a table makes of a column.
import { getPath } from '../core/object-path.js';
import { isIsoDateTime, localZone } from './format.js';
import type { Style } from './style.js';

export interface Column<R = unknown> {
  /** Header text (tables, CSV). */
  header: string;
  /** Dot path of the value in the record; also what `--fields` names. */
  path: string;
  /** Only with --wide. */
  wide?: boolean;
  /** Custom text for people (tables); machine formats (csv) use `csv` or the raw value. */
  format?: (value: unknown, record: R, style: Style) => string;
  /** Custom text for CSV/TSV (defaults to the raw value). */
  csv?: (value: unknown, record: R) => string;
  /** Colour the cell as a status. */
  status?: boolean;
  /** A TTY table never narrows this column below this many characters (identifiers people copy). */
  minWidth?: number;
}

/** A column whose cell is a time formatDateTime shows in local time (no format of its own). */
export function showsLocalTime<R>(column: Column<R>, record: R): boolean {
  return !column.format && isIsoDateTime(getPath(record, column.path));
}

export function withZone(header: string, dated: boolean): string {
  return dated ? `${header} (${localZone()})` : header;
}

/** A record's identifier people copy (`id`, `card.id`, `transactionId`): a table never cuts it. */
export function isIdentifier<R>(column: Column<R>): boolean {
  return /(^|\.)_?id$|^(transaction|card|original)Id$/.test(column.path);
}

/** The column a --fields name names: by its path, or by its header in any case. */
export function columnFor<R>(field: string, columns: readonly Column<R>[]): Column<R> | undefined {
  return columns.find((c) => c.path === field) ?? columns.find((c) => c.header.toLowerCase() === field.toLowerCase());
}

/** Every leaf of a record as key/value rows (nested objects become dotted keys). */
export function leafColumns<R = unknown>(record: unknown, prefix = ''): Column<R>[] {
  if (!record || typeof record !== 'object') return [];
  const rows: Column<R>[] = [];
  for (const [key, value] of Object.entries(record)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
      rows.push(...leafColumns<R>(value, path));
    } else {
      rows.push({ header: path, path, status: /status$/i.test(key) });
    }
  }
  return rows;
}

export function inferColumns(records: unknown[]): Column[] {
  const first = records.find((r) => r && typeof r === 'object');
  if (!first) return [{ header: 'value', path: '' }];
  return Object.entries(first)
    .filter(([, v]) => v === null || typeof v !== 'object' || isIsoDateTime(v))
    .slice(0, 8)
    .map(([key]) => ({ header: key, path: key }));
}
