// Bytes → text for every file and stdin input of the CLI, strictly: invalid UTF-8 is an error
// naming the line it is on, never U+FFFD slipped into a request; a leading byte order mark is
// dropped; other encodings only when asked for (`import --encoding`). Streams are decoded chunk
// by chunk (memory stays flat); whole inputs are bounded in size.
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';

export const TEXT_ENCODINGS = ['utf-8', 'latin1', 'utf-16le'] as const;
export type TextEncoding = (typeof TEXT_ENCODINGS)[number];

/** The input is not text in the expected encoding. `line` counts from 1. */
export class TextDecodeError extends Error {
  constructor(message: string, readonly line: number) {
    super(message);
    this.name = 'TextDecodeError';
  }
}

/** A whole input (a JSON body, a key, a scenario) was larger than its bound. */
export class TextTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${formatBytes(maxBytes)}`);
    this.name = 'TextTooLargeError';
  }
}

export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

const NEWLINE = 0x0a;

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Length of the prefix of `buf` that ends on a character boundary (the rest may continue in the next chunk). */
function completeLength(buf: Uint8Array): number {
  const len = buf.length;
  for (let i = len - 1; i >= 0 && i >= len - 4; i--) {
    const b = buf[i]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    if (b < 0xc0) return len; // ASCII (or a stray continuation run, which isUtf8 refuses)
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return len - i < need ? i : len;
  }
  return len;
}

/** The 0-based line (counted in `buf`) holding the first invalid UTF-8 sequence. */
function firstBadLine(buf: Uint8Array): number {
  let line = 0;
  let start = 0;
  for (;;) {
    const end = buf.indexOf(NEWLINE, start);
    const segment = buf.subarray(start, end < 0 ? buf.length : end);
    if (!isUtf8(segment)) return line;
    if (end < 0) return line;
    line++;
    start = end + 1;
  }
}

function invalidUtf8(line: number): TextDecodeError {
  return new TextDecodeError(`not valid UTF-8 (line ${line})`, line);
}

/**
 * Decodes a stream chunk by chunk. Throws TextDecodeError at the first byte sequence that is not
 * valid in `encoding`. String chunks (already text) are passed through.
 */
export async function* decodeChunks(input: AsyncIterable<Buffer | Uint8Array | string>, encoding: TextEncoding = 'utf-8'): AsyncGenerator<string> {
  let line = 1;
  let first = true;
  let carry: Uint8Array = new Uint8Array(0);
  const utf16 = encoding === 'utf-16le' ? new TextDecoder('utf-16le', { fatal: true, ignoreBOM: true }) : undefined;
  const emit = (text: string): string => {
    if (first && text.length > 0) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    line += countNewlines(text);
    return text;
  };
  for await (const chunk of input) {
    if (typeof chunk === 'string') {
      yield emit(chunk);
      continue;
    }
    let text: string;
    if (encoding === 'latin1') {
      text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    } else if (utf16) {
      try {
        text = utf16.decode(chunk, { stream: true });
      } catch {
        throw new TextDecodeError(`not valid UTF-16LE (after line ${line})`, line);
      }
    } else {
      const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const cut = completeLength(buf);
      const part = buf.subarray(0, cut);
      carry = Uint8Array.from(buf.subarray(cut));
      if (!isUtf8(part)) throw invalidUtf8(line + firstBadLine(part));
      text = Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString('utf8');
    }
    if (text) yield emit(text);
  }
  if (carry.length) throw new TextDecodeError(`not valid UTF-8 (line ${line}: the input ends inside a character)`, line);
  if (utf16) {
    let rest: string;
    try {
      rest = utf16.decode();
    } catch {
      throw new TextDecodeError(`not valid UTF-16LE (line ${line}: the input ends inside a character)`, line);
    }
    if (rest) yield emit(rest);
  }
}

/** Decodes a whole buffer strictly as UTF-8 (BOM dropped). */
export function decodeUtf8(buf: Uint8Array): string {
  if (!isUtf8(buf)) throw invalidUtf8(1 + firstBadLine(buf));
  const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Default bound of a whole input read into memory (JSON bodies, keys, scenarios, rules). */
export const MAX_TEXT_INPUT_BYTES = 16 * 1024 * 1024;

/** Reads a whole stream as UTF-8, refusing more than `maxBytes`. */
export async function readBoundedText(stream: AsyncIterable<Buffer | Uint8Array | string>, maxBytes = MAX_TEXT_INPUT_BYTES): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > maxBytes) {
      (stream as Partial<Readable>).destroy?.();
      throw new TextTooLargeError(maxBytes);
    }
    chunks.push(bytes);
  }
  return decodeUtf8(Buffer.concat(chunks));
}

/**
 * Reads a whole file (or FIFO, or character device) as UTF-8, bounded. Errors: the fs error
 * (with its `code`), TextDecodeError or TextTooLargeError; callers name the flag.
 */
export async function readTextFile(path: string, maxBytes = MAX_TEXT_INPUT_BYTES): Promise<string> {
  const { createReadStream } = await import('node:fs');
  const stream = createReadStream(path);
  try {
    return await readBoundedText(stream, maxBytes);
  } finally {
    stream.destroy();
  }
}

/**
 * The text of a file a command line names, as readTextFile reads it; a file that cannot be read
 * is a UsageError naming it as `what`: "cannot read rules file r.yaml: ENOENT".
 */
export async function readNamedFile(path: string, what: string, maxBytes = MAX_TEXT_INPUT_BYTES): Promise<string> {
  try {
    return await readTextFile(path, maxBytes);
  } catch (error) {
    const { UsageError } = await import('./errors.js');
    throw new UsageError(`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
