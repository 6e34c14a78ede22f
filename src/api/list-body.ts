// Where the records of a list body are, found in its bytes without parsing it: a streamed list
// (`--all`) decodes, parses and prints one record at a time, so neither a page's records nor its
// text are ever alive at once. A page of 100 transactions is ~460 kB: as one string it is a
// large object, alive through the scavenges that run while the page prints, and V8 grows the
// young generation by what outlives scavenges, up to its maximum (peak RSS 228 MB at 100,000
// transactions on Node 24, against 93 MB read from the bytes; BENCHMARKS.md, "Streaming without a
// young-generation bound"). JSON's structure is ASCII, and no byte of a multi-byte UTF-8
// character is, so the spans are found byte by byte and each element decodes on its own.

/** The `data` array of an envelope: where it opens and closes, and each element's [start, end), as byte offsets. */
export interface DataSpans {
  /** Index of the array's `[`. */
  open: number;
  /** Index of the array's `]`. */
  close: number;
  /** Start and end (exclusive) of each element, flattened: [s0, e0, s1, e1, …]. */
  elements: number[];
}

const QUOTE = 34; // "
const BACKSLASH = 92; // \
const COMMA = 44; // ,
const OPEN_BRACE = 123; // {
const CLOSE_BRACE = 125; // }
const OPEN_BRACKET = 91; // [
const CLOSE_BRACKET = 93; // ]

/**
 * The elements of the top-level object's one `"data"` array in the UTF-8 JSON `body`, found by
 * tracking strings and nesting only; or undefined when the body is not an object holding exactly
 * one such array, or its brackets or elements are visibly broken. It does not validate the rest:
 * the caller parses the envelope around the array and each element, and JSON.parse refuses what
 * is not JSON.
 */
export function dataSpans(body: Buffer): DataSpans | undefined {
  const n = body.length;
  let i = 0;
  while (i < n && isSpace(body[i]!)) i++;
  if (body[i] !== OPEN_BRACE) return undefined;
  let depth = 0;
  let keyStart = -1; // the last string seen at depth 1: the key of whatever opens next
  let keyEnd = -1;
  let open = -1;
  let close = -1;
  let elementStart = -1;
  const elements: number[] = [];
  for (; i < n; i++) {
    const c = body[i];
    if (c === QUOTE) {
      const start = i;
      i = closingQuote(body, i);
      if (i === -1) return undefined; // an unterminated string
      if (depth === 1) {
        keyStart = start;
        keyEnd = i + 1;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth === 2 && c === OPEN_BRACKET && isDataKey(body, keyStart, keyEnd)) {
        if (open !== -1) return undefined; // two data arrays: JSON.parse would keep the last
        open = i;
        elementStart = i + 1;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 2 && open !== -1 && close === -1) {
        if (c !== CLOSE_BRACKET) return undefined;
        close = i;
        // `[]` holds nothing; a blank after a comma (`[1,]`) is not JSON: the caller's parse says so.
        if (!pushElement(body, elements, elementStart, i) && elements.length > 0) return undefined;
      }
      depth--;
      if (depth < 0) return undefined;
    } else if (c === COMMA && depth === 2 && open !== -1 && close === -1) {
      if (!pushElement(body, elements, elementStart, i)) return undefined; // `[,` or `,,`
      elementStart = i + 1;
    }
  }
  if (depth !== 0 || open === -1 || close === -1) return undefined;
  return { open, close, elements };
}

/** The key `"data"`, quotes included, at [start, end). */
const DATA_KEY = Buffer.from('"data"');

function isDataKey(body: Buffer, start: number, end: number): boolean {
  return end - start === DATA_KEY.length && body.compare(DATA_KEY, 0, DATA_KEY.length, start, end) === 0;
}

/**
 * The index of the quote that closes the string opening at `open`, or -1. Found with indexOf,
 * which skips a string's text far faster than a loop over its bytes (most of a list body is
 * strings); a quote after an odd run of backslashes is escaped.
 */
function closingQuote(body: Buffer, open: number): number {
  for (let at = body.indexOf(QUOTE, open + 1); at !== -1; at = body.indexOf(QUOTE, at + 1)) {
    let backslashes = 0;
    while (body[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/** Adds [start, end) unless it is only white space; says whether it added it. */
function pushElement(body: Buffer, elements: number[], start: number, end: number): boolean {
  for (let j = start; j < end; j++) {
    if (!isSpace(body[j]!)) {
      elements.push(start, end);
      return true;
    }
  }
  return false;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * A page's records that can also be had as the bytes of their JSON text (a streamed page's,
 * src/api/client.ts): NDJSON prints those bytes as they came rather than parse and print again.
 */
export interface RecordsWithText<T> extends Iterable<T> {
  /**
   * Each record in order: the bytes of its JSON text where those are exactly what
   * JSON.stringify prints for the record as parsed and masked (a view into the page, good until
   * the row is written), else the record itself.
   */
  withText(): Iterable<T | Uint8Array>;
}
