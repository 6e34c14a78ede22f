// Output for scripts and pipes: the json, ndjson, csv, tab-separated and raw list writers and --quiet
// ids, their rows written to stdout in batches.
import type { IOStreams } from '../core/io.js';
import { csvField, tsvField } from './format.js';

/** A list's writer of one format, before pacing: write may finish later (--jq, --template) or at once. */
export interface PageWriter<R> {
  write(records: Iterable<R>, raw?: () => string | undefined): void | Promise<void>;
  end(): Promise<void>;
}

/** Bytes per write when rows are batched (see BatchedRows.write). */
const OUT_BATCH = 64 * 1024;

/** Rows written to stdout in batches of up to 64 kB, reusing the batches stdout is done with. */
export class BatchedRows {
  /** Batches stdout is done with, to be filled again. */
  private readonly freeBatches: Buffer[] = [];
  /** Resolves once stdout is done with the batch written last. */
  private lastBatchWritten: Promise<void> = Promise.resolve();

  constructor(private readonly io: IOStreams) {}

  /**
   * Writes rows in batches of up to 64 kB: each row encoded into the batch's bytes as it is made,
   * so a row dies at once rather than waiting in a string of the batch, and memory stays flat
   * however long the list.
   * Two batches take turns: one is filled while stdout writes the other, and a batch is filled
   * again once stdout is done with it, so a slow reader holds two batches, not a page.
   * `end` follows each row; written apart from it, so a row is not a second string to be copied
   * whole (flattened) before it is encoded.
   */
  async write<R>(records: Iterable<R>, format: (record: R) => string, end = '\n'): Promise<void> {
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
}

/** --quiet: each record's identifier, one a line. */
export function idWriter<R>(rows: BatchedRows, id: (record: R) => string): PageWriter<R> {
  return {
    write: (records) => rows.write(records, id),
    end: async () => {},
  };
}

/** -o json: streams a valid JSON array: "[", records separated by ",", "]". */
export function jsonArrayWriter<R>(io: IOStreams, rows: BatchedRows, project: (record: R) => unknown): PageWriter<R> {
  let first = true;
  return {
    write: (records) => rows.write(records, (record) => {
      const row = `${first ? '[\n' : ',\n'}${indent(JSON.stringify(project(record), null, 2))}`;
      first = false;
      return row;
    }, ''),
    end: async () => io.out(first ? '[]\n' : '\n]\n'),
  };
}

/** -o ndjson: one line of JSON a record. */
export function ndjsonWriter<R>(rows: BatchedRows, project: (record: R) => unknown): PageWriter<R> {
  return {
    write: (records) => rows.write(records, (record) => JSON.stringify(project(record))),
    end: async () => {},
  };
}

/** -o raw: each page's body as received, else its records as a JSON array. */
export function rawWriter<R>(io: IOStreams): PageWriter<R> {
  return {
    write: (records, raw) => {
      const body = raw?.();
      io.out(body !== undefined ? withNewline(body) : `${JSON.stringify([...records])}\n`);
    },
    end: async () => {},
  };
}

/** -o csv: the header line (the columns' paths), written even when there are no records, then a line a record. */
export function csvWriter<R>(io: IOStreams, rows: BatchedRows, header: string[], cells: (record: R) => string[]): PageWriter<R> {
  let headerWritten = false;
  return {
    write: (records) => {
      if (!headerWritten) {
        io.out(`${csvLine(header)}\n`);
        headerWritten = true;
      }
      return rows.write(records, (record) => csvLine(cells(record)));
    },
    end: async () => {
      if (!headerWritten) io.out(`${csvLine(header)}\n`);
    },
  };
}

/** A table piped: plain tab-separated rows, no header decoration, so grep/awk/cut work. */
export function tsvWriter<R>(rows: BatchedRows, cells: (record: R) => string[]): PageWriter<R> {
  return {
    write: (records) => rows.write(records, (record) => cells(record).map(tsvField).join('\t')),
    end: async () => {},
  };
}

/** One CSV line (without its newline). */
export function csvLine(fields: string[]): string {
  return fields.map(csvField).join(',');
}

export function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}
