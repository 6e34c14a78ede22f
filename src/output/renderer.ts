// The one renderer: every command hands it records and a column set; it decides
// table/json/ndjson/csv/raw, TTY vs pipe, colour, --fields and --quiet.
import type { IOStreams } from '../core/io.js';
import { UsageError } from '../core/errors.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../core/output-format.js';
import { cellText, csvField, escapeControls, escapeControlsDeep, isIsoDateTime, pickFields, truncate, tsvField, visibleWidth } from './format.js';
import { getPath } from '../core/object-path.js';
import type { Style } from './style.js';
import type { RenderTemplate } from './template.js';

export interface Column<R = any> {
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

export interface OutputSettings {
  format: OutputFormat;
  fields?: string[];
  quiet: boolean;
  wide: boolean;
  /** --jq: filter the JSON value with jq (output/jq.ts). */
  jq?: string;
  /** -o ndjson with --jq: each result one line of compact JSON (`jq -c`). */
  compactJq?: boolean;
  /** --template: render each record with a template (output/template.ts). */
  template?: string;
  /** Pager for TTY tables (output/pager.ts); undefined for none. */
  pager?: { command: string; env: Record<string, string | undefined> };
  /** The run's Ctrl-C signal: it stops a --jq filter that is still running. */
  signal?: AbortSignal;
}

export interface ListOptions {
  /** The body exactly as received, for `-o raw`. */
  raw?: string;
  /** Where the identifier is, for `--quiet` (default `id`). */
  idPath?: string;
  /** Said on stderr when a TTY list is empty. */
  emptyMessage?: string;
  /**
   * Records arrive over time (`tx tail`): every format writes each record at once — a TTY
   * table as header-less rows, --jq per record — and nothing goes through the pager.
   */
  live?: boolean;
}

export interface RecordOptions {
  raw?: string;
  idPath?: string;
  /** Rows for the key/value table; defaults to every leaf of the record. */
  rows?: Column[];
}

export interface ListStream<R> {
  /**
   * Writes one page. The promise settles once the page is written and stdout can take more:
   * awaiting it before fetching the next page keeps a slow reader (`| less`, a pipe to a slow
   * process) from making pages pile up in memory. It rejects only when the first records show a
   * --fields name to be unknown (a UsageError, before anything is written); --jq/--template
   * errors surface from end(). `raw` gives the body as received, read only by `-o raw`.
   */
  write(records: Iterable<R>, raw?: () => string | undefined): Promise<void>;
  end(): Promise<void>;
}

/** A ListStream before pacing: write may finish later (--jq, --template) or at once. */
interface PageWriter<R> {
  write(records: Iterable<R>, raw?: () => string | undefined): void | Promise<void>;
  end(): Promise<void>;
}

/**
 * Rows per cli-table3 table when a long list is drawn in blocks (drawTable): its layout takes 0.43 s
 * for 1,000 rows and 3.1 s for 4,000, and ~0.3 ms a row up to 256. `tx list --all` of 10,000
 * transactions on a terminal took 17.9 s as one table, 3.5 s in blocks.
 */
const TABLE_BLOCK = 256;

/** Bytes per write when rows are batched (see outRows). */
const OUT_BATCH = 64 * 1024;

export class Renderer {
  constructor(
    private readonly io: IOStreams,
    private readonly style: Style,
    readonly settings: OutputSettings,
  ) {
    // jq starts loading now, while the command fetches what it will filter.
    if (settings.jq !== undefined) prepareJqSoon();
  }

  get format(): OutputFormat {
    return this.settings.format;
  }

  private templatePromise?: Promise<RenderTemplate>;

  /** Checks --template before any request is made (compile errors are usage errors). */
  async ready(): Promise<void> {
    if (this.settings.template !== undefined) await this.compiledTemplate();
  }

  private compiledTemplate(): Promise<RenderTemplate> {
    this.templatePromise ??= import('./template.js').then(({ compileTemplate }) => compileTemplate(this.settings.template!, this.style));
    return this.templatePromise;
  }

  /**
   * Runs --jq over one JSON text, or several separated by newlines (jq runs the filter on each),
   * writing its output as it comes: the next chunk waits until stdout has room again.
   */
  private async writeJq(json: string): Promise<void> {
    const { runJq } = await import('./jq.js');
    await runJq(json, this.settings.jq!, {
      out: (text) => {
        this.io.out(text);
        return this.io.drained();
      },
      err: (text) => this.io.err(`${text}\n`),
      signal: this.settings.signal,
      compact: this.settings.compactJq === true,
    });
  }

  /** --jq / --template over a list: jq sees the whole array (per record when live), templates run per record. */
  private scriptedStream<R>(live: boolean): PageWriter<R> {
    let chain: Promise<void> = Promise.resolve();
    const then = (step: () => Promise<void>) => {
      chain = chain.then(step);
      // Errors are awaited (and thrown) by end(); the page's own promise only says it is done.
      return chain.then(() => {}, () => {});
    };
    if (this.settings.template !== undefined) {
      return {
        write: (records) => then(async () => {
          const render = await this.compiledTemplate();
          for (const record of records) this.io.out(render(escapeControlsDeep(this.project(record))));
        }),
        end: async () => { await chain; },
      };
    }
    if (live) {
      // One jq run per page, over the page's records one after the other (the filter sees each record).
      return {
        write: (page) => then(async () => {
          const records = [...page];
          if (records.length === 0) return;
          await this.writeJq(records.map((record) => JSON.stringify(this.project(record) ?? null)).join('\n'));
          prepareJqSoon(); // for the next page
        }),
        end: async () => { await chain; },
      };
    }
    // jq sees the whole list: the array's text is built once, at the end, from each record's text,
    // and refused as soon as it is more than jq can hold (no more pages are read).
    const array = import('./jq.js').then(({ JqArrayText }) => new JqArrayText());
    return {
      write: async (records) => {
        const texts = await array;
        for (const record of records) texts.add(JSON.stringify(this.project(record) ?? null));
      },
      end: async () => this.writeJq((await array).text()),
    };
  }

  /** Human-facing output: a table on a terminal. */
  private get human(): boolean {
    return this.io.stdoutIsTTY && this.settings.format === 'table';
  }

  /** Prints a list of records. */
  async list<R>(records: Iterable<R>, columns: Column<R>[], options: ListOptions = {}): Promise<void> {
    const stream = this.stream(columns, options);
    await stream.write(records, () => options.raw);
    await stream.end();
  }

  /**
   * A list printed as pages arrive (`--all`). ndjson/csv/tsv/quiet rows are written at once;
   * a TTY table needs every row to size its columns, so it is drawn at the end.
   */
  stream<R>(columns: Column<R>[], options: ListOptions = {}): ListStream<R> {
    const writer = this.pageWriter(columns, options);
    let fieldsChecked = false;
    return {
      write: (page, raw) => {
        let records = page;
        // --fields is checked against the first records there are, before any of them is written.
        if (!fieldsChecked && this.settings.fields?.length) {
          const list = [...page];
          records = list;
          if (list.length > 0) {
            fieldsChecked = true;
            try {
              this.checkFields(list, columns);
            } catch (error) {
              return Promise.reject(error);
            }
          }
        }
        const written = writer.write(records, raw);
        return written ? written.then(() => this.io.drained()) : this.io.drained();
      },
      end: () => writer.end(),
    };
  }

  /** Batches stdout is done with, to be filled again (outRows). */
  private readonly freeBatches: Buffer[] = [];
  /** Resolves once stdout is done with the batch written last. */
  private lastBatchWritten: Promise<void> = Promise.resolve();

  /**
   * Writes rows in batches of up to 64 kB: each row encoded into the batch's bytes as it is made,
   * so a row dies at once rather than waiting in a string of the batch, and memory stays flat
   * however long the list.
   * Two batches take turns: one is filled while stdout writes the other, and a batch is filled
   * again once stdout is done with it, so a slow reader holds two batches, not a page.
   * `end` follows each row; written apart from it, so a row is not a second string to be copied
   * whole (flattened) before it is encoded.
   */
  private async outRows<R>(records: Iterable<R>, format: (record: R) => string, end = '\n'): Promise<void> {
    let batch = this.freeBatches.pop() ?? Buffer.allocUnsafe(OUT_BATCH);
    let used = 0;
    for (const record of records) {
      const row = format(record);
      // A UTF-16 code unit takes at most 3 bytes of UTF-8.
      const most = row.length * 3 + end.length * 3;
      if (used + most > batch.length && used > 0) {
        await this.writeBatch(batch, used);
        batch = this.freeBatches.pop() ?? Buffer.allocUnsafe(OUT_BATCH);
        used = 0;
      }
      if (most > batch.length) {
        // A row larger than a batch goes as it is.
        this.io.out(row);
        this.io.out(end);
        continue;
      }
      used += batch.write(row, used);
      used += batch.write(end, used);
    }
    if (used > 0) await this.writeBatch(batch, used);
    else this.freeBatches.push(batch);
  }

  /** Writes `used` bytes of `batch`; resolves once stdout is done with the batch before it, so at most two are in use. */
  private writeBatch(batch: Buffer, used: number): Promise<void> {
    const before = this.lastBatchWritten;
    this.lastBatchWritten = new Promise((resolve) => {
      this.io.out(batch.subarray(0, used), () => {
        this.freeBatches.push(batch);
        resolve();
      });
    });
    return before;
  }

  private pageWriter<R>(columns: Column<R>[], options: ListOptions): PageWriter<R> {
    const { format, quiet } = this.settings;
    const idPath = options.idPath ?? 'id';
    const selected = this.selectColumns(columns);
    let count = 0;
    if (this.settings.jq !== undefined || this.settings.template !== undefined) return this.scriptedStream(Boolean(options.live));
    if (quiet) {
      return {
        write: (records) => this.outRows(records, (record) => cellText(getPath(record, idPath), false)),
        end: async () => {},
      };
    }
    switch (format) {
      case 'json': {
        // Streams a valid JSON array: "[", records separated by ",", "]".
        let first = true;
        return {
          write: (records) => this.outRows(records, (record) => {
            const row = `${first ? '[\n' : ',\n'}${indent(JSON.stringify(this.project(record), null, 2))}`;
            first = false;
            return row;
          }, ''),
          end: async () => this.io.out(first ? '[]\n' : '\n]\n'),
        };
      }
      case 'ndjson':
        return {
          write: (records) => this.outRows(records, (record) => JSON.stringify(this.project(record))),
          end: async () => {},
        };
      case 'raw':
        return {
          write: (records, raw) => {
            const body = raw?.();
            this.io.out(body !== undefined ? withNewline(body) : `${JSON.stringify([...records])}\n`);
          },
          end: async () => {},
        };
      case 'csv': {
        let headerWritten = false;
        return {
          write: (records) => {
            if (!headerWritten) {
              this.io.out(`${selected.map((c) => csvField(c.path)).join(',')}\n`);
              headerWritten = true;
            }
            return this.outRows(records, (record) => selected.map((c) => csvField(this.machineCell(c, record))).join(','));
          },
          end: async () => {
            if (!headerWritten) this.io.out(`${selected.map((c) => csvField(c.path)).join(',')}\n`);
          },
        };
      }
      default: {
        if (!this.io.stdoutIsTTY) {
          // Piped table: plain tab-separated rows, no header decoration, so grep/awk/cut work.
          return {
            write: (records) => this.outRows(records, (record) => selected.map((c) => tsvField(this.machineCell(c, record))).join('\t')),
            end: async () => {},
          };
        }
        if (options.live) return this.liveRows(selected);
        const rows: string[][] = [];
        return {
          write: (records) => {
            for (const record of records) {
              rows.push(this.humanCells(selected, record));
              count++;
            }
          },
          end: async () => {
            if (count === 0) {
              this.io.err(`${escapeControls(options.emptyMessage ?? 'nothing to show')}\n`);
              return;
            }
            const table = `${await this.drawTable(selected.map((c) => escapeControls(c.header)), rows, selected.map((c) => c.minWidth))}\n`;
            const pager = this.settings.pager;
            if (pager) await (await import('./pager.js')).writeThroughPager(this.io, pager.command, table, pager.env);
            else this.io.out(table);
          },
        };
      }
    }
  }

  /** TTY rows printed as they arrive: no header, columns padded to the widest cell so far. */
  private liveRows<R>(columns: Column<R>[]): PageWriter<R> {
    const widths = columns.map((c) => c.minWidth ?? 0);
    return {
      write: (records) => {
        for (const record of records) {
          const cells = this.humanCells(columns, record);
          const line = cells.map((cell, i) => {
            widths[i] = Math.max(widths[i]!, visibleWidth(cell));
            return i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i]! - visibleWidth(cell));
          }).join('  ');
          this.io.out(`${line.trimEnd()}\n`);
        }
      },
      end: async () => {},
    };
  }

  /** Prints one record: key/value rows for people, the object for machines. */
  async record<R>(record: R, options: RecordOptions = {}): Promise<void> {
    const { format, quiet, fields } = this.settings;
    if (record && typeof record === 'object') this.checkFields([record], options.rows ?? leafColumns(record));
    if (this.settings.jq !== undefined) return this.writeJq(JSON.stringify(this.project(record) ?? null));
    if (this.settings.template !== undefined) {
      this.io.out((await this.compiledTemplate())(escapeControlsDeep(this.project(record))));
      return;
    }
    if (quiet) {
      this.io.out(`${cellText(getPath(record, options.idPath ?? 'id'), false)}\n`);
      return;
    }
    switch (format) {
      case 'json':
        this.io.out(`${JSON.stringify(this.project(record), null, 2)}\n`);
        return;
      case 'ndjson':
        this.io.out(`${JSON.stringify(this.project(record))}\n`);
        return;
      case 'raw':
        this.io.out(options.raw !== undefined ? withNewline(options.raw) : `${JSON.stringify(record)}\n`);
        return;
      default: {
        const rows = fields?.length
          ? fields.map((path) => ({ header: path, path }) as Column)
          : options.rows ?? leafColumns(record);
        if (format === 'csv') {
          this.io.out(`${rows.map((c) => csvField(c.path)).join(',')}\n`);
          this.io.out(`${rows.map((c) => csvField(this.machineCell(c, record))).join(',')}\n`);
          return;
        }
        if (!this.io.stdoutIsTTY) {
          for (const c of rows) this.io.out(`${tsvField(c.path)}\t${tsvField(this.machineCell(c, record))}\n`);
          return;
        }
        const headers = rows.map((c) => escapeControls(c.header));
        const width = Math.max(...headers.map((header) => header.length));
        const values = this.humanCells(rows, record);
        rows.forEach((_c, i) => this.io.out(`${this.style.bold(headers[i]!.padEnd(width))}  ${values[i]}\n`));
      }
    }
  }

  /** Prints any JSON value for machine formats (the `api` command, odd endpoints). */
  async value(value: unknown, raw?: string): Promise<void> {
    if (this.settings.format === 'raw' && raw !== undefined) {
      this.io.out(raw.endsWith('\n') ? raw : `${raw}\n`);
      return;
    }
    if (Array.isArray(value)) {
      // --fields names are checked against the values' own paths (not the columns made from them).
      if (this.settings.fields?.length && value.length > 0) this.checkFields(value, inferColumns(value));
      const columns = this.settings.fields?.length
        ? this.settings.fields.map((path) => ({ header: path, path }))
        : inferColumns(value);
      return this.list(value, columns, { raw });
    }
    if (value && typeof value === 'object') return this.record(value, { raw });
    if (this.settings.jq !== undefined || this.settings.template !== undefined) return this.record(value);
    const { format } = this.settings;
    const text = format === 'json' || format === 'ndjson' || format === 'raw' ? JSON.stringify(value ?? null)
      : format === 'csv' ? csvField(cellText(value, false))
        : escapeControls(cellText(value, false));
    this.io.out(`${text}\n`);
  }

  /** A status line for people on stderr ("✓ Card activated"); silent with --quiet. */
  success(text: string): void {
    if (this.settings.quiet) return;
    this.io.err(`${this.style.ok('✓')} ${escapeControls(text)}\n`);
  }

  /**
   * Every --fields name must be a column (its path, or its header in any case) or a path that at
   * least one of `records` has (null counts): anything else is a typo, and a usage error (exit 2)
   * naming the fields there are, rather than an empty column or `{}`.
   */
  private checkFields<R>(records: R[], columns: Column<R>[]): void {
    const fields = this.settings.fields;
    if (!fields?.length) return;
    const isColumn = (field: string) => columns.some((c) => c.path === field || c.header.toLowerCase() === field.toLowerCase());
    const unknown = fields.filter((field) => !isColumn(field) && !records.some((record) => getPath(record, field) !== undefined));
    if (unknown.length === 0) return;
    const known = [...new Set([...columns.map((c) => c.path), ...records.flatMap((record) => leafColumns(record).map((c) => c.path))])]
      .filter(Boolean)
      .map(escapeControls);
    throw new UsageError(`unknown field${unknown.length > 1 ? 's' : ''} in --fields: ${unknown.map((field) => `"${field}"`).join(', ')}`, {
      code: 'USAGE_FIELDS',
      hint: `known fields: ${known.join(', ')} (dot paths reach into nested objects)`,
    });
  }

  private selectColumns<R>(columns: Column<R>[]): Column<R>[] {
    const { fields, wide } = this.settings;
    if (fields?.length) {
      return fields.map((path) => columns.find((c) => c.path === path || c.header.toLowerCase() === path.toLowerCase()) ?? { header: path, path });
    }
    return columns.filter((c) => wide || !c.wide);
  }

  private project(record: unknown): unknown {
    const fields = this.settings.fields;
    return fields?.length ? pickFields(record, fields) : record;
  }

  private machineCell<R>(column: Column<R>, record: R): string {
    const value = getPath(record, column.path);
    return column.csv ? column.csv(value, record) : cellText(value, false);
  }

  /**
   * A record's cells for people (tables, key/value views): every string of the record has its
   * control characters made visible (escapeControls) before any column formats it, so what a
   * column adds (colour) is the only escape sequence that reaches the terminal.
   */
  private humanCells<R>(columns: Column<R>[], record: R): string[] {
    const shown = escapeControlsDeep(record);
    return columns.map((column) => this.humanCell(column, shown));
  }

  private humanCell<R>(column: Column<R>, record: R): string {
    const value = getPath(record, column.path);
    if (column.format) return column.format(value, record, this.style);
    const text = cellText(value, this.human);
    return column.status && text ? this.style.status(text) : text;
  }

  /**
   * A gh-style table drawn by cli-table3: bold headers, columns padded and separated by two
   * spaces, no borders; cells wider than their column are cut with an ellipsis. A long list is
   * drawn TABLE_BLOCK rows at a time, every block with the same widths, which prints the same as
   * one table: cli-table3's layout costs more than linearly in rows.
   */
  private async drawTable(headers: string[], rows: string[][], minWidths: Array<number | undefined> = []): Promise<string> {
    const GAP = 2;
    // A loop, not Math.max(...cells): a spread of a long list's cells overflows the call stack.
    const widths = headers.map((h) => visibleWidth(h));
    for (const row of rows) for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i]!, visibleWidth(row[i] ?? ''));
    // A pty without a size (e.g. under `script` or some CI runners) reports 0 columns: assume 80.
    const terminalWidth = this.io.columns && this.io.columns > 0 ? this.io.columns : 80;
    fitWidths(widths, terminalWidth - GAP * (headers.length - 1), minWidths);
    const { default: Table } = await import('cli-table3');
    const blocks: string[] = [];
    for (let start = 0; start === 0 || start < rows.length; start += TABLE_BLOCK) {
      const table = new Table({
        head: start === 0 ? headers.map((h) => this.style.bold(h)) : [],
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
}

/** Starts a jq worker in the background (output/jq.ts); a failure there shows when jq runs. */
function prepareJqSoon(): void {
  import('./jq.js').then(({ prepareJq }) => prepareJq()).catch(() => {});
}

/** cli-table3 border characters for a borderless table whose columns are two spaces apart. */
const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: '  ',
};

/** Shrinks the widest columns until the sum fits; never below 6 characters (or a column's minWidth). */
function fitWidths(widths: number[], available: number, minWidths: Array<number | undefined> = []): void {
  const floor = (i: number) => Math.min(widths[i]!, Math.max(6, minWidths[i] ?? 6));
  const floors = widths.map((_, i) => floor(i));
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > available) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i]! > floors[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) break;
    widths[widest]!--;
    total--;
  }
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

/** Every leaf of a record as key/value rows (nested objects become dotted keys). */
export function leafColumns(record: unknown, prefix = ''): Column[] {
  if (!record || typeof record !== 'object') return [];
  const rows: Column[] = [];
  for (const [key, value] of Object.entries(record)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
      rows.push(...leafColumns(value, path));
    } else {
      rows.push({ header: path, path, status: /status$/i.test(key) });
    }
  }
  return rows;
}

function inferColumns(records: unknown[]): Column[] {
  const first = records.find((r) => r && typeof r === 'object');
  if (!first) return [{ header: 'value', path: '' }];
  return Object.entries(first)
    .filter(([, v]) => v === null || typeof v !== 'object' || isIsoDateTime(v))
    .slice(0, 8)
    .map(([key]) => ({ header: key, path: key }));
}

export function parseOutputFormat(value: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  throw new UsageError(`unknown output format "${value}"`, { hint: `use one of: ${OUTPUT_FORMATS.join(', ')}` });
}
