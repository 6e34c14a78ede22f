// Streaming readers for import files. Each yields one source row at a time with the line it
// starts on, so memory stays flat however large the file is:
//   csv    RFC 4180 via csv-parse's streaming parser (header row = line 1, BOM, LF/CRLF, quoted
//          newlines); dotted headers (`card.expiration`) become nested objects
//   ndjson one JSON object a line (blank lines skipped)
//   json   a top-level array, scanned element by element (each element parsed on its own)
// Bytes are decoded strictly (src/core/text.ts: invalid UTF-8 is a file error naming the line, or
// --encoding converts), and one record (a CSV record, an NDJSON line, a JSON array element) is
// at most MAX_RECORD_CHARS long: a longer one is a file error naming its line, so no input
// (no newline ever, a gigantic quoted field, one huge element) can make memory grow.
import type { Readable } from 'node:stream';
import { drained } from '../core/io.js';
import { decodeChunks, TextDecodeError, type TextEncoding } from '../core/text.js';
import { setPath } from '../core/object-path.js';

/** Longest CSV record, NDJSON line or JSON array element (characters): 64 Ki. */
export const MAX_RECORD_CHARS = 64 * 1024;
/** Malformed CSV records in a row before the file is given up on (they are held until the next good one). */
const MAX_PENDING_SKIPPED = 1_000;

export type ImportFormat = 'csv' | 'ndjson' | 'json';

export interface SourceRow {
  /** Line the row starts on (CSV: the header is line 1). */
  line: number;
  /** The parsed row, when it could be parsed. */
  value?: unknown;
  /** Why the row could not be parsed. */
  error?: string;
  /** CSV rows carry text only; the validator accepts `true`/`false` text for booleans. */
  text?: boolean;
}

/** Thrown for a file that cannot be read at all (no header, not an array, unterminated quote). */
export class ImportFileError extends Error {
  constructor(message: string, readonly line?: number, readonly hint?: string) {
    super(message);
    this.name = 'ImportFileError';
  }
}

export function formatFromPath(path: string): ImportFormat | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.ndjson') || lower.endsWith('.jsonl')) return 'ndjson';
  if (lower.endsWith('.json')) return 'json';
  return undefined;
}

export function readImportRows(input: Readable, format: ImportFormat, options: CsvOptions = {}): AsyncGenerator<SourceRow> {
  switch (format) {
    case 'csv': return readCsvRows(input, options);
    case 'ndjson': return readNdjsonRows(input, options);
    case 'json': return readJsonArrayRows(input, options);
  }
}

export interface ReadOptions {
  /** How the bytes are encoded (default UTF-8, strictly). */
  encoding?: TextEncoding;
  /** Longest record in characters (default MAX_RECORD_CHARS). */
  maxRecordChars?: number;
}

export interface CsvOptions extends ReadOptions {
  /** Header names allowed; another name is a file error before any row is read. */
  columns?: readonly string[];
}

/** The input as text, decoding errors turned into file errors. */
async function* decoded(input: Readable, encoding: TextEncoding | undefined): AsyncGenerator<string> {
  try {
    yield* decodeChunks(input, encoding);
  } catch (error) {
    if (error instanceof TextDecodeError) {
      const message = error.message.replace(/ \(line \d+\)$/, '').replace(/ \(line \d+: /, ' (');
      throw new ImportFileError(message, error.line, encoding && encoding !== 'utf-8'
        ? undefined
        : 'save the file as UTF-8, or name its encoding with --encoding latin1 or --encoding utf-16le');
    }
    throw error;
  }
}

function tooLong(what: string, line: number, max: number): ImportFileError {
  return new ImportFileError(`${what} is longer than ${max.toLocaleString('en-US')} characters, the longest a record may be`, line,
    'is this the right file and format? A record is one row, line or array element');
}

export async function* readCsvRows(input: Readable, options: CsvOptions = {}): AsyncGenerator<SourceRow> {
  const { parse } = await import('csv-parse');
  const max = options.maxRecordChars ?? MAX_RECORD_CHARS;
  const parser = parse({
    bom: true,
    info: true,
    skip_empty_lines: true,
    relax_column_count: true,
    record_delimiter: ['\r\n', '\n'],
    skip_records_with_error: true,
    max_record_size: max,
  });
  const skipped: SourceRow[] = [];
  parser.on('skip', (error: Error & { lines?: number; code?: string }) => {
    // Thrown from here, the error ends the parse (csv-parse stops on an error its skip hook throws).
    if (error.code === 'CSV_MAX_RECORD_SIZE') throw tooLong('the CSV record', error.lines ?? 0, max);
    if (skipped.length >= MAX_PENDING_SKIPPED) {
      throw new ImportFileError(`more than ${MAX_PENDING_SKIPPED} malformed CSV records in a row; is this a CSV file?`, skipped[0]!.line);
    }
    skipped.push({ line: error.lines ?? 0, error: `not valid CSV: ${error.message}` });
  });
  // Decoded text is written into the parser as it is read, waiting whenever the parser is full.
  let inputError: unknown;
  let stopped = false;
  void (async () => {
    try {
      for await (const text of decoded(input, options.encoding)) {
        if (stopped || parser.destroyed) return;
        if (!parser.write(text)) await drained(parser);
      }
      parser.end();
    } catch (error) {
      inputError = error;
      parser.destroy(error as Error);
    }
  })();
  let header: string[] | undefined;
  let overcount = 0;
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const { record, info } = item;
      // info.lines is the line the record ends on, but csv-parse counts a CRLF inside quotes as
      // two lines; correct for that, then step back over the record's own line breaks.
      let breaks = 0;
      for (const field of record) {
        const { lineBreaks, counted } = countLineBreaks(field);
        breaks += lineBreaks;
        overcount += counted - lineBreaks;
      }
      const line = info.lines - overcount - breaks;
      // Rows csv-parse skipped as malformed are reported in line order with the good ones.
      while (skipped.length && skipped[0]!.line < line) yield skipped.shift()!;
      if (!header) {
        header = record.map((name) => name.trim());
        const empty = header.findIndex((name) => name === '');
        if (empty >= 0) throw new ImportFileError(`the CSV header has an empty column name (column ${empty + 1})`, line);
        const seen = new Set<string>();
        for (const name of header) {
          if (seen.has(name)) throw new ImportFileError(`the CSV header names column "${name}" twice`, line);
          seen.add(name);
        }
        if (options.columns) {
          const unknown = header.filter((name) => !options.columns!.includes(name));
          if (unknown.length) {
            throw new ImportFileError(`unknown CSV column${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; the columns are the import body's fields: ${options.columns.join(', ')}`, line);
          }
        }
        continue;
      }
      if (record.length !== header.length) {
        yield { line, error: `has ${record.length} fields, the header has ${header.length}` };
        continue;
      }
      const value: Record<string, unknown> = {};
      header.forEach((name, i) => setPath(value, name, record[i]));
      yield { line, value, text: true };
    }
    while (skipped.length) yield skipped.shift()!;
  } catch (caught) {
    const error = inputError ?? caught;
    if (error instanceof ImportFileError) throw error;
    const e = error as Error & { code?: string; lines?: number };
    if (e.code?.startsWith('CSV_')) throw new ImportFileError(`not valid CSV: ${e.message}`, e.lines);
    throw error;
  } finally {
    stopped = true;
    parser.destroy();
  }
  if (!header) throw new ImportFileError('the CSV file is empty: expected a header row with the import body\'s field names');
}

/** Line breaks in a field (CRLF, LF or CR each count once) and how many csv-parse counted (CR and LF each). */
function countLineBreaks(text: string): { lineBreaks: number; counted: number } {
  let lineBreaks = 0;
  let counted = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0d) {
      counted++;
      lineBreaks++;
      if (text.charCodeAt(i + 1) === 0x0a) {
        counted++;
        i++;
      }
    } else if (c === 0x0a) {
      counted++;
      lineBreaks++;
    }
  }
  return { lineBreaks, counted };
}

export async function* readNdjsonRows(input: Readable, options: ReadOptions = {}): AsyncGenerator<SourceRow> {
  for await (const { line, text } of readLines(input, options, 'the NDJSON line')) {
    try {
      yield { line, value: JSON.parse(text) };
    } catch (error) {
      yield { line, error: `not valid JSON: ${(error as Error).message}` };
    }
  }
}

/** Plain ids, one a line (`cards list -q`): each row is `{ id }`. */
export async function* readIdRows(input: Readable, options: ReadOptions = {}): AsyncGenerator<SourceRow> {
  for await (const { line, text } of readLines(input, options, 'the line')) yield { line, value: { id: text.trim() }, text: true };
}

/** The non-blank lines of the input with their numbers (a BOM and CRLF endings dropped), each bounded. */
export async function* readLines(input: Readable, options: ReadOptions, what: string): AsyncGenerator<{ line: number; text: string }> {
  const max = options.maxRecordChars ?? MAX_RECORD_CHARS;
  let line = 0;
  let pending = '';
  const clean = (text: string): string | undefined => {
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    return text.trim() === '' ? undefined : text;
  };
  for await (const text of decoded(input, options.encoding)) {
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline < 0) {
        pending += text.slice(start);
        if (pending.length > max) throw tooLong(what, line + 1, max);
        break;
      }
      const full = pending + text.slice(start, newline);
      pending = '';
      start = newline + 1;
      line++;
      if (full.length > max) throw tooLong(what, line, max);
      const kept = clean(full);
      if (kept !== undefined) yield { line, text: kept };
    }
  }
  if (pending !== '') {
    line++;
    const kept = clean(pending);
    if (kept !== undefined) yield { line, text: kept };
  }
}

/**
 * A top-level JSON array read element by element: a small scanner tracks strings, escapes,
 * nesting and line numbers, and hands each complete element to JSON.parse. Only one element
 * is held in memory at a time.
 */
export async function* readJsonArrayRows(input: Readable, options: ReadOptions = {}): AsyncGenerator<SourceRow> {
  const max = options.maxRecordChars ?? MAX_RECORD_CHARS;
  let line = 1;
  let started = false; // saw the opening [
  let ended = false; // saw the closing ]
  let firstChunk = true;
  let expectValue = true; // right after [ or ,
  let inElement = false;
  let depth = 0; // nesting inside the current element
  let inString = false;
  let escaped = false;
  let element = '';
  let elementLine = 0;
  for await (const chunk of decoded(input, options.encoding)) {
    let text = chunk;
    if (firstChunk) {
      firstChunk = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const rows: SourceRow[] = [];
    let from = inElement ? 0 : -1;
    const endElement = (end: number) => {
      element += text.slice(from, end);
      if (element.length > max) throw tooLong('the JSON array element', elementLine, max);
      rows.push(parseElement(element, elementLine));
      element = '';
      inElement = false;
      from = -1;
      expectValue = false;
    };
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === '\n') line++;
      if (inElement) {
        if (inString) {
          if (escaped) escaped = false;
          else if (ch === '\\') escaped = true;
          else if (ch === '"') {
            inString = false;
            if (depth === 0) endElement(i + 1);
          }
          continue;
        }
        if (ch === '"') inString = true;
        else if (ch === '{' || ch === '[') depth++;
        else if ((ch === '}' || ch === ']') && depth > 0) {
          depth--;
          if (depth === 0) endElement(i + 1);
        } else if (depth === 0 && (ch === ',' || ch === ']' || /\s/.test(ch))) {
          endElement(i);
          i--; // let the separator be read between elements
          if (ch === '\n') line--;
        }
        continue;
      }
      if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n') continue;
      if (ended) throw new ImportFileError(`unexpected text after the closing ] at line ${line}`, line);
      if (!started) {
        if (ch !== '[') throw new ImportFileError(`a .json import file must be an array of import bodies (found ${JSON.stringify(ch)} at line ${line})`, line);
        started = true;
        continue;
      }
      if (ch === ']') {
        ended = true;
        continue;
      }
      if (ch === ',') {
        if (expectValue) throw new ImportFileError(`unexpected "," at line ${line}`, line);
        expectValue = true;
        continue;
      }
      if (!expectValue) throw new ImportFileError(`expected "," or "]" at line ${line}`, line);
      inElement = true;
      elementLine = line;
      from = i;
      depth = ch === '{' || ch === '[' ? 1 : 0;
      inString = ch === '"';
      escaped = false;
    }
    if (inElement) {
      element += text.slice(from);
      if (element.length > max) throw tooLong('the JSON array element', elementLine, max);
    }
    for (const row of rows) yield row;
  }
  if (!started) throw new ImportFileError('the JSON file is empty: expected an array of import bodies');
  if (inElement) throw new ImportFileError(`the JSON array is truncated (the element starting at line ${elementLine} never ends)`, elementLine);
  if (!ended) throw new ImportFileError('the JSON array is not closed with ]', line);
}

function parseElement(text: string, line: number): SourceRow {
  try {
    return { line, value: JSON.parse(text) };
  } catch (error) {
    return { line, error: `not valid JSON: ${(error as Error).message}` };
  }
}
