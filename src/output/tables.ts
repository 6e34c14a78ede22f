// Tables for people on a terminal: columns fitted to its width, long lists drawn in blocks, live rows
// padded as they come, and a record's key/value view.
import { visibleWidth } from './format.js';

/**
 * Rows per cli-table3 table when a long list is drawn in blocks (drawTable): its layout takes 0.43 s
 * for 1,000 rows and 3.1 s for 4,000, and ~0.3 ms a row up to 256. `tx list --all` of 10,000
 * transactions on a terminal took 17.9 s as one table, 3.5 s in blocks.
 */
const TABLE_BLOCK = 256;

export interface TableLayout {
  /** The terminal's width (0 or undefined for a pty without a size). */
  columns: number | undefined;
  /** A column is never narrowed below this many characters (identifiers people copy). */
  minWidths?: Array<number | undefined>;
  /**
   * Columns never narrowed at all (identifiers): when the others cannot give way enough, the
   * rightmost of the others (the lower-value ones, as columns are listed) are left out instead.
   */
  whole?: boolean[];
  bold: (text: string) => string;
}

/**
 * A gh-style table drawn by cli-table3: bold headers, columns padded and separated by two
 * spaces, no borders; cells wider than their column are cut with an ellipsis. A long list is
 * drawn TABLE_BLOCK rows at a time, every block with the same widths, which prints the same as
 * one table: cli-table3's layout costs more than linearly in rows.
 */
export async function drawTable(headers: string[], rows: string[][], layout: TableLayout): Promise<string> {
  const GAP = 2;
  // A loop, not Math.max(...cells): a spread of a long list's cells overflows the call stack.
  const widths = headers.map((h) => visibleWidth(h));
  for (const row of rows) for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i]!, visibleWidth(row[i] ?? ''));
  // A pty without a size (e.g. under `script` or some CI runners) reports 0 columns: assume 80.
  const terminalWidth = layout.columns && layout.columns > 0 ? layout.columns : 80;
  const whole = layout.whole ?? [];
  const minWidths = widths.map((width, i) => (whole[i] ? width : layout.minWidths?.[i]));
  // The columns shown: all, unless even at their floors they do not fit and some may be left out.
  let shown = headers.map((_, i) => i);
  for (;;) {
    const fitted = shown.map((i) => widths[i]!);
    const fits = fitWidths(fitted, terminalWidth - GAP * (shown.length - 1), shown.map((i) => minWidths[i]));
    const droppable = shown.filter((i) => !whole[i]);
    if (fits || droppable.length === 0 || shown.length === 1) {
      shown.forEach((i, at) => { widths[i] = fitted[at]!; });
      break;
    }
    shown = shown.filter((i) => i !== droppable[droppable.length - 1]);
  }
  if (shown.length < headers.length) {
    headers = shown.map((i) => headers[i]!);
    rows = rows.map((row) => shown.map((i) => row[i] ?? ''));
    const kept = shown.map((i) => widths[i]!);
    widths.length = 0;
    widths.push(...kept);
  }
  const { default: Table } = await import('cli-table3');
  const blocks: string[] = [];
  for (let start = 0; start === 0 || start < rows.length; start += TABLE_BLOCK) {
    const table = new Table({
      head: start === 0 ? headers.map((h) => layout.bold(h)) : [],
      chars: BORDERLESS,
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
      colWidths: widths,
      wordWrap: false,
      truncate: '…',
    });
    for (const row of rows.slice(start, start + TABLE_BLOCK)) table.push(row);
    blocks.push(table.toString().split('\n').map((line) => line.trimEnd()).join('\n'));
  }
  return blocks.join('\n');
}

/** cli-table3 border characters for a borderless table whose columns are two spaces apart. */
const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: '  ',
};

/**
 * Shrinks the widest columns until the sum fits; never below 6 characters (or a column's
 * minWidth). False when even the floors do not fit.
 */
function fitWidths(widths: number[], available: number, minWidths: Array<number | undefined> = []): boolean {
  const floor = (i: number) => Math.min(widths[i]!, Math.max(6, minWidths[i] ?? 6));
  const floors = widths.map((_, i) => floor(i));
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > available) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i]! > floors[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) return false;
    widths[widest]!--;
    total--;
  }
  return true;
}

/** Table rows printed as they arrive (no header): each column padded to its widest cell so far. */
export class LiveRows {
  private readonly widths: number[];

  constructor(minWidths: Array<number | undefined>) {
    this.widths = minWidths.map((width) => width ?? 0);
  }

  /** One row's line, without its newline. */
  line(cells: string[]): string {
    const widths = this.widths;
    return cells.map((cell, i) => {
      widths[i] = Math.max(widths[i]!, visibleWidth(cell));
      return i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i]! - visibleWidth(cell));
    }).join('  ').trimEnd();
  }
}

/** A record for people: one line a field, the names bold and padded to the longest. */
export function keyValueLines(headers: string[], values: string[], bold: (text: string) => string): string[] {
  const width = Math.max(...headers.map((header) => header.length));
  return headers.map((header, i) => `${bold(header.padEnd(width))}  ${values[i]}\n`);
}
