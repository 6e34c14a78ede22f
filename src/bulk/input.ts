// The rows of a bulk run: a CSV, NDJSON or JSON-array file read by the import readers, or plain
// ids one a line. A file's format comes from its extension; stdin and pipes are sniffed from
// their first bytes (`{` NDJSON, `[` a JSON array, a comma on the first line CSV, else ids), so
// `cards list --all -o ndjson | … --from-file -` and `cards list -q | … --from-file -` both work.
import { Readable } from 'node:stream';
import { formatFromPath, readIdRows, readImportRows, type CsvOptions, type SourceRow } from './readers.js';
import type { BulkFormat } from './formats.js';
import { SetupError, UsageError } from '../core/errors.js';


/** The format a path names by its extension (.txt: ids); undefined when it names none. */
export function bulkFormatFromPath(path: string): BulkFormat | undefined {
  return path.toLowerCase().endsWith('.txt') ? 'ids' : formatFromPath(path);
}

export function readBulkRows(input: Readable, format: BulkFormat, options: CsvOptions = {}): AsyncGenerator<SourceRow> {
  return format === 'ids' ? readIdRows(input, options) : readImportRows(input, format, options);
}

/** Reads the first chunk to tell the format; the returned stream still yields every byte. */
export async function sniffFormat(input: Readable): Promise<{ format: BulkFormat; input: Readable }> {
  const peeked = await peek(input);
  const head = peeked.head === undefined ? '' : Buffer.from(peeked.head).toString('utf8', 0, 4096);
  const text = head.replace(/^\uFEFF/, '').trimStart();
  const firstLine = text.split('\n', 1)[0] ?? '';
  // A one-column CSV has no comma: its header `id` still says CSV.
  const csv = firstLine.includes(',') || firstLine.trim() === 'id';
  const format: BulkFormat = text.startsWith('{') ? 'ndjson' : text.startsWith('[') ? 'json' : csv ? 'csv' : 'ids';
  return { format, input: peeked.input };
}

/** The first chunk of a stream, read ahead; `input` still yields every byte. `head` is undefined when the stream gave none. */
export async function peek(input: Readable): Promise<{ head?: Buffer | string; input: Readable }> {
  const iterator = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  let first = await iterator.next();
  while (!first.done && first.value.length === 0) first = await iterator.next();
  const replay = Readable.from((async function* () {
    if (!first.done) yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  })());
  return { ...(first.done ? {} : { head: first.value }), input: replay };
}

/**
 * An input bound to its report: a regular file to read, and the SHA-256 of its bytes (the
 * report's header names it). stdin and pipes are read once, so they are first copied to a file
 * only this user can read, in a fresh temporary folder, hashed on the way; `remove` deletes it.
 */
export interface BoundInput {
  path: string;
  digest: string;
  bytes: number;
  remove(): void;
}

/** A regular file bound as it is: the SHA-256 of its bytes, read as a stream. */
export async function bindFile(path: string): Promise<BoundInput> {
  const [{ createHash }, { createReadStream }] = await Promise.all([import('node:crypto'), import('node:fs')]);
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { path, digest: `sha256:${hash.digest('hex')}`, bytes, remove() {} };
}

/** Copies a stream (stdin, a pipe) to a private temporary file, hashing it on the way. */
export async function spoolInput(input: Readable): Promise<BoundInput> {
  const [{ createHash }, fs, { tmpdir }, { join }] = await Promise.all([import('node:crypto'), import('node:fs'), import('node:os'), import('node:path')]);
  let dir: string;
  try {
    dir = fs.mkdtempSync(join(tmpdir(), 'cardctl-rows-'));
  } catch (error) {
    throw SetupError.fromFs('cannot make a temporary folder for the rows in', tmpdir(), error, 'set TMPDIR to a folder you can write to');
  }
  const path = join(dir, 'rows');
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  const hash = createHash('sha256');
  let bytes = 0;
  let fd: number | undefined;
  try {
    try {
      fd = fs.openSync(path, 'wx', 0o600);
    } catch (error) {
      throw SetupError.fromFs('cannot copy the rows to', path, error, 'set TMPDIR to a folder you can write to');
    }
    for await (const chunk of input as AsyncIterable<Buffer | string>) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      hash.update(buffer);
      bytes += buffer.length;
      for (let at = 0; at < buffer.length;) {
        try {
          at += fs.writeSync(fd, buffer, at);
        } catch (error) {
          throw SetupError.fromFs('cannot copy the rows to', path, error, 'set TMPDIR to a folder with room');
        }
      }
    }
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    remove();
    throw error;
  }
  fs.closeSync(fd);
  return { path, digest: `sha256:${hash.digest('hex')}`, bytes, remove };
}

/** "sha256:<hex>" of text (the ids a `--where` listing gave, one a line). */
export async function textDigest(text: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/**
 * `--from-file -` (`flag`) with nothing on stdin (empty, or closed): a usage error, never a run of
 * 0 rows. `rows`: what the verb takes on stdin, with an example ("the card ids, e.g. …").
 */
export function noRowsOnStdin(flag: string, rows: string): UsageError {
  return new UsageError(`${flag} -: stdin gave no rows (it was empty or closed)`, { hint: `pipe ${rows}, or give a file` });
}

/**
 * Checks that `path` (given to `--from-file`) can be read as rows; true when it is read once as it
 * comes (a FIFO such as `<(…)`, a character device) rather than a regular file, which a run may
 * read twice (counted first, measured for the progress bar).
 */
export async function streamedFile(path: string): Promise<boolean> {
  const { existsSync, statSync } = await import('node:fs');
  if (!existsSync(path)) throw new UsageError(`no such file: ${path}`);
  const stat = statSync(path);
  if (stat.isDirectory()) throw new UsageError(`${path} is a directory`, { hint: '--from-file takes a file, a pipe such as <(…), or - for stdin' });
  return !stat.isFile();
}

/** Where a run's rows come from. */
export interface RowSource {
  /** The file, or undefined for stdin. */
  path: string | undefined;
  stdin: Readable;
  /** Read once as it comes (stdin, a pipe), rather than a regular file. */
  streamed: boolean;
  /** For the error when stdin gives nothing: the flag that named it and what the verb takes there. */
  emptyStdin: { flag: string; rows: string };
}

/** The input as the run takes it: bound to its report (when there is one), else stdin as it comes. */
export interface TakenInput {
  bound?: BoundInput;
  stdin?: Readable;
  /** Whether the run reads it once as it comes (false once bound: the bound copy is a file). */
  streamed: boolean;
}

/**
 * Takes a run's input. With a report it is bound to it (src/bulk/report.ts): hashed for the
 * header, stdin and pipes spooled to a private file first. Without one, stdin is peeked. Either
 * way an empty stdin is a usage error before the run starts, never a run of 0 rows.
 */
export async function takeInput(source: RowSource, reportPath: string | undefined): Promise<TakenInput> {
  const fromStdin = source.path === undefined;
  const empty = () => noRowsOnStdin(source.emptyStdin.flag, source.emptyStdin.rows);
  if (reportPath) {
    const { createReadStream } = await import('node:fs');
    const bound = source.streamed ? await spoolInput(fromStdin ? source.stdin : createReadStream(source.path!)) : await bindFile(source.path!);
    if (fromStdin && bound.bytes === 0) {
      bound.remove();
      throw empty();
    }
    return { bound, streamed: false };
  }
  if (!fromStdin) return { streamed: source.streamed };
  const peeked = await peek(source.stdin);
  if (peeked.head === undefined) throw empty();
  return { stdin: peeked.input, streamed: source.streamed };
}
