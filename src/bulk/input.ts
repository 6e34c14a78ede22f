// The rows of a bulk run: a CSV, NDJSON or JSON-array file read by the import readers, or plain
// ids one a line. A file's format comes from its extension; stdin and pipes are sniffed from
// their first bytes (`{` NDJSON, `[` a JSON array, a comma on the first line CSV, else ids), so
// `cards list --all -o ndjson | … --from-file -` and `cards list -q | … --from-file -` both work.
import { Readable } from 'node:stream';
import { formatFromPath, readIdRows, readImportRows, type CsvOptions, type SourceRow } from '../import/readers.js';
import type { BulkFormat } from './formats.js';


/** The format a path names by its extension (.txt: ids); undefined when it names none. */
export function bulkFormatFromPath(path: string): BulkFormat | undefined {
  return path.toLowerCase().endsWith('.txt') ? 'ids' : formatFromPath(path);
}

export function readBulkRows(input: Readable, format: BulkFormat, options: CsvOptions = {}): AsyncGenerator<SourceRow> {
  return format === 'ids' ? readIdRows(input, options) : readImportRows(input, format, options);
}

/** Reads the first chunk to tell the format; the returned stream still yields every byte. */
export async function sniffFormat(input: Readable): Promise<{ format: BulkFormat; input: Readable }> {
  const iterator = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const first = await iterator.next();
  const head = first.done ? '' : Buffer.from(first.value).toString('utf8', 0, 4096);
  const text = head.replace(/^\uFEFF/, '').trimStart();
  const firstLine = text.split('\n', 1)[0] ?? '';
  // A one-column CSV has no comma: its header `id` still says CSV.
  const csv = firstLine.includes(',') || firstLine.trim() === 'id';
  const format: BulkFormat = text.startsWith('{') ? 'ndjson' : text.startsWith('[') ? 'json' : csv ? 'csv' : 'ids';
  const replay = Readable.from((async function* () {
    if (!first.done) yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  })());
  return { format, input: replay };
}
