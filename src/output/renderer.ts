// The one renderer: every command hands it records and a column set; it decides
// table/json/ndjson/csv/raw, TTY vs pipe, colour, --fields and --quiet, and runs --jq/--template.
// The writers themselves: tables.ts (a terminal's tables), scripted.ts (the formats for scripts).
// Every value is disclosed by the one rule (redactValue, core/redact.ts) as it comes in, before
// any format, projection, filter or template sees it.
import type { IOStreams } from '../core/io.js';
import { UsageError } from '../core/errors.js';
import { maskPansInText, redactBodyText, redactValue } from '../core/redact.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../core/output-format.js';
import { cellText, csvField, escapeControls, escapeControlsDeep, pickFields, tsvField } from './format.js';
import { getPath, setPath } from '../core/object-path.js';
import { checkFieldsAgainst, unknownFieldsError } from './shape.js';
import {
  csvLine, csvWriter, idWriter, jsonArrayWriter, ndjsonWriter, rawWriter, tsvWriter, withNewline, type PageWriter,
} from './scripted.js';
import type { Style } from './style.js';
import { LiveRows, drawTable, keyValueLines } from './tables.js';
import type { RenderTemplate } from './template.js';
import { columnFor, inferColumns, isIdentifier, leafColumns, showsLocalTime, withZone, type Column } from './column.js';
import type { CarriesSecret, ListOptions, ListStream, OutputSettings, RecordOptions } from './render-options.js';

// Re-exported: commands and tests import a column and the settings from the renderer.
export type { Column } from './column.js';
export { leafColumns } from './column.js';
export type { CarriesSecret, ListOptions, ListStream, OutputSettings, RecordOptions } from './render-options.js';

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

  /**
   * Checks the options that shape the output before any request is made, so that their usage
   * errors (exit 2) mean nothing was sent: --template compiles, --jq compiles, and each --fields
   * name is one the command's declared shape knows.
   */
  async ready(): Promise<void> {
    const { template, jq, fields, shape, signal } = this.settings;
    if (template !== undefined) await this.compiledTemplate();
    if (jq !== undefined) {
      await (await import('./jq.js')).checkJqExpression(jq, signal);
      prepareJqSoon(); // the check took the spare worker: another for the run
    }
    if (shape && fields?.length) checkFieldsAgainst(shape, fields);
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
  private jqOrTemplateStream<R>(live: boolean, columns: readonly Column<R>[]): PageWriter<R> {
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
          for (const record of records) this.io.out(render(escapeControlsDeep(this.project(record, columns))));
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
          await this.writeJq(records.map((record) => JSON.stringify(this.project(record, columns) ?? null)).join('\n'));
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
        for (const record of records) texts.add(JSON.stringify(this.project(record, columns) ?? null));
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
        let records: Iterable<R> = this.discloseAll(page, options);
        // --fields is checked against the first records there are, before any of them is written.
        if (!fieldsChecked && this.settings.fields?.length) {
          const list = [...records];
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
        const written = writer.write(records, raw && (() => this.discloseRaw(raw(), options)));
        return written ? written.then(() => this.io.drained()) : this.io.drained();
      },
      end: () => writer.end(),
    };
  }

  private pageWriter<R>(columns: Column<R>[], options: ListOptions): PageWriter<R> {
    const { format, quiet } = this.settings;
    const idPath = options.idPath ?? 'id';
    const selected = this.selectColumns(columns);
    let count = 0;
    if (this.settings.jq !== undefined || this.settings.template !== undefined) return this.jqOrTemplateStream(Boolean(options.live), columns);
    if (quiet) return idWriter(this.io, (record) => cellText(getPath(record, idPath), false));
    switch (format) {
      case 'json':
        return jsonArrayWriter(this.io, (record) => this.project(record, columns));
      case 'ndjson':
        return ndjsonWriter(this.io, (record) => this.project(record, columns));
      case 'raw':
        return rawWriter(this.io);
      case 'csv':
        return csvWriter(this.io, selected.map((c) => c.path), (record) => selected.map((c) => this.machineCell(c, record)));
      default: {
        if (!this.io.stdoutIsTTY) return tsvWriter(this.io, (record) => selected.map((c) => this.machineCell(c, record)));
        if (options.live) return this.liveRows(selected);
        const rows: string[][] = [];
        // Columns that show a time as formatDateTime does (local): their header names the zone.
        const dated = selected.map(() => false);
        return {
          write: (records) => {
            for (const record of records) {
              rows.push(this.humanCells(selected, record));
              selected.forEach((c, i) => { dated[i] ||= showsLocalTime(c, record); });
              count++;
            }
          },
          end: async () => {
            if (count === 0) {
              this.io.err(`${escapeControls(options.emptyMessage ?? 'nothing to show')}\n`);
              return;
            }
            const headers = selected.map((c, i) => withZone(escapeControls(c.header), dated[i]!));
            const layout = {
              columns: this.io.columns,
              minWidths: selected.map((c) => c.minWidth),
              whole: selected.map((c) => isIdentifier(c)),
              bold: (text: string) => this.style.bold(text),
            };
            const table = `${await drawTable(headers, rows, layout)}\n`;
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
    const live = new LiveRows(columns.map((c) => c.minWidth));
    return {
      write: (records) => {
        for (const record of records) this.io.out(`${live.line(this.humanCells(columns, record))}\n`);
      },
      end: async () => {},
    };
  }

  /** Prints one record: key/value rows for people, the object for machines. */
  async record<R>(given: R, options: RecordOptions<R> = {}): Promise<void> {
    const { format, quiet, fields } = this.settings;
    const record = this.disclose(given, options);
    if (record && typeof record === 'object') this.checkFields([record], options.rows ?? leafColumns(record));
    if (this.settings.jq !== undefined) return this.writeJq(JSON.stringify(this.project(record, options.rows) ?? null));
    if (this.settings.template !== undefined) {
      this.io.out((await this.compiledTemplate())(escapeControlsDeep(this.project(record, options.rows))));
      return;
    }
    if (quiet) {
      this.io.out(`${cellText(getPath(record, options.idPath ?? 'id'), false)}\n`);
      return;
    }
    switch (format) {
      case 'json':
        this.io.out(`${JSON.stringify(this.project(record, options.rows), null, 2)}\n`);
        return;
      case 'ndjson':
        this.io.out(`${JSON.stringify(this.project(record, options.rows))}\n`);
        return;
      case 'raw':
        this.io.out(options.raw !== undefined ? withNewline(this.discloseRaw(options.raw, options)!) : `${JSON.stringify(record)}\n`);
        return;
      default: {
        const rows = fields?.length
          ? fields.map((path): Column<R> => columnFor(path, options.rows ?? []) ?? { header: path, path })
          : options.rows ?? leafColumns(record);
        if (format === 'csv') {
          this.io.out(`${csvLine(rows.map((c) => c.path))}\n`);
          this.io.out(`${csvLine(rows.map((c) => this.machineCell(c, record)))}\n`);
          return;
        }
        if (!this.io.stdoutIsTTY) {
          for (const c of rows) this.io.out(`${tsvField(c.path)}\t${tsvField(this.machineCell(c, record))}\n`);
          return;
        }
        const headers = rows.map((c) => withZone(escapeControls(c.header), showsLocalTime(c, record)));
        for (const line of keyValueLines(headers, this.humanCells(rows, record), (text) => this.style.bold(text))) this.io.out(line);
      }
    }
  }

  /** Prints any JSON value for machine formats (the `api` command, odd endpoints). */
  async value(given: unknown, raw?: string, options: CarriesSecret = {}): Promise<void> {
    if (this.settings.format === 'raw' && raw !== undefined) {
      this.io.out(withNewline(this.discloseRaw(raw, options)!));
      return;
    }
    // Disclosed here, and again (a no-op) by list() and record().
    const value = this.disclose(given, options);
    if (Array.isArray(value)) {
      // --fields names are checked against the values' own paths (not the columns made from them).
      if (this.settings.fields?.length && value.length > 0) this.checkFields(value, inferColumns(value));
      const columns = this.settings.fields?.length
        ? this.settings.fields.map((path) => ({ header: path, path }))
        : inferColumns(value);
      return this.list(value, columns, { raw, ...options });
    }
    if (value && typeof value === 'object') return this.record(value, { raw, ...options });
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
    if (!fields?.length || this.settings.shape) return;
    const isColumn = (field: string) => columns.some((c) => c.path === field || c.header.toLowerCase() === field.toLowerCase());
    const unknown = fields.filter((field) => !isColumn(field) && !records.some((record) => getPath(record, field) !== undefined));
    if (unknown.length === 0) return;
    throw unknownFieldsError(unknown, [...columns.map((c) => c.path), ...records.flatMap((record) => leafColumns(record).map((c) => c.path))]);
  }

  /** What this output may show of a value: the one disclosure rule (core/redact.ts redactValue). */
  private disclose<T>(value: T, options: CarriesSecret = {}): T {
    return redactValue(value, undefined, { showSecrets: this.secretsShown(options) }) as T;
  }

  private secretsShown(options: CarriesSecret): boolean {
    return !this.settings.neverSecrets && (this.settings.showSecrets === true || options.carriesSecret === true);
  }

  private *discloseAll<R>(records: Iterable<R>, options: CarriesSecret): Iterable<R> {
    for (const record of records) yield this.disclose(record, options);
  }

  /**
   * `-o raw`: the body exactly as received when the rule changes nothing in it, else the disclosed
   * value (a JSON body re-serialised, other text redacted as text).
   */
  private discloseRaw(raw: string | undefined, options: CarriesSecret): string | undefined {
    if (raw === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return this.secretsShown(options) ? maskPansInText(raw) : redactBodyText(raw);
    }
    const disclosed = this.disclose(parsed, options);
    const text = JSON.stringify(disclosed);
    return text === JSON.stringify(parsed) ? raw : text;
  }

  private selectColumns<R>(columns: Column<R>[]): Column<R>[] {
    const { fields, wide } = this.settings;
    if (fields?.length) return fields.map((path) => columnFor(path, columns) ?? { header: path, path });
    return columns.filter((c) => wide || !c.wide);
  }

  /**
   * The record as JSON with only the --fields asked for. A name of a column computed from the
   * record (a simulation's `outcome`) that the record does not carry gets the column's machine
   * value, as in CSV: the columns are the one definition of what a field is.
   */
  private project<R>(record: R, columns: readonly Column<R>[] = []): unknown {
    const fields = this.settings.fields;
    if (!fields?.length) return record;
    const out = pickFields(record, fields);
    for (const field of fields) {
      const column = getPath(record, field) === undefined ? columnFor(field, columns) : undefined;
      if (!column) continue;
      const value = getPath(record, column.path);
      if (value !== undefined) setPath(out, column.path, value);
      else if (column.csv) setPath(out, column.path, column.csv(value, record));
    }
    return out;
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
}

/** Starts a jq worker in the background (output/jq.ts); a failure there shows when jq runs. */
function prepareJqSoon(): void {
  import('./jq.js').then(({ prepareJq }) => prepareJq()).catch(() => {});
}

export function parseOutputFormat(value: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  throw new UsageError(`unknown output format "${value}"`, { hint: `use one of: ${OUTPUT_FORMATS.join(', ')}` });
}
