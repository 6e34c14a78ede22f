// Output for scripts and pipes: the json, ndjson, csv, tab-separated and raw list writers and --quiet
// ids, a page's rows written to stdout at a time.
import type { IOStreams } from '../core/io.js';
import { csvField, tsvField } from './format.js';

/** A list's writer of one format, before pacing: write may finish later (--jq, --template) or at once. */
export interface PageWriter<R> {
  write(records: Iterable<R>, raw?: () => string | undefined): void | Promise<void>;
  end(): Promise<void>;
}

/**
 * Writes a page's rows, each followed by `end`, in one write, and resolves once stdout has taken
 * it: a slow reader holds back the next page, and no more than a page waits.
 */
export function writeRows<R>(io: IOStreams, records: Iterable<R>, format: (record: R) => string, end = '\n'): Promise<void> {
  let text = '';
  for (const record of records) text += format(record) + end;
  return text ? new Promise((resolve) => io.out(text, () => resolve())) : Promise.resolve();
}

/** --quiet: each record's identifier, one a line. */
export function idWriter<R>(io: IOStreams, id: (record: R) => string): PageWriter<R> {
  return {
    write: (records) => writeRows(io, records, id),
    end: async () => {},
  };
}

/** -o json: streams a valid JSON array: "[", records separated by ",", "]". */
export function jsonArrayWriter<R>(io: IOStreams, project: (record: R) => unknown): PageWriter<R> {
  let first = true;
  return {
    write: (records) => writeRows(io, records, (record) => {
      const row = `${first ? '[\n' : ',\n'}${indent(JSON.stringify(project(record), null, 2))}`;
      first = false;
      return row;
    }, ''),
    end: async () => io.out(first ? '[]\n' : '\n]\n'),
  };
}

/** -o ndjson: one line of JSON a record. */
export function ndjsonWriter<R>(io: IOStreams, project: (record: R) => unknown): PageWriter<R> {
  return {
    write: (records) => writeRows(io, records, (record) => JSON.stringify(project(record))),
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
export function csvWriter<R>(io: IOStreams, header: string[], cells: (record: R) => string[]): PageWriter<R> {
  let headerWritten = false;
  return {
    write: (records) => {
      if (!headerWritten) {
        io.out(`${csvLine(header)}\n`);
        headerWritten = true;
      }
      return writeRows(io, records, (record) => csvLine(cells(record)));
    },
    end: async () => {
      if (!headerWritten) io.out(`${csvLine(header)}\n`);
    },
  };
}

/** A table piped: plain tab-separated rows, no header decoration, so grep/awk/cut work. */
export function tsvWriter<R>(io: IOStreams, cells: (record: R) => string[]): PageWriter<R> {
  return {
    write: (records) => writeRows(io, records, (record) => cells(record).map(tsvField).join('\t')),
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
