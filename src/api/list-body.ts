// Where the records of a list body are, found without parsing it: a streamed list (`--all`)
// parses and prints one record at a time, so a page's records are never all alive at once.
// Whole-page parsing kept every record of a page alive through each scavenge that ran while the
// page was printed, and the scavenger copied them all (BENCHMARKS.md, "Streaming on Node 20 and 24").

/** The `data` array of an envelope: where it opens and closes, and each element's [start, end). */
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
 * The elements of the top-level object's one `"data"` array in the JSON text `text`, found by
 * tracking strings and nesting only; or undefined when the text is not an object holding exactly
 * one such array, or its brackets or elements are visibly broken. It does not validate the rest: the caller parses
 * the envelope around the array and each element, and JSON.parse refuses what is not JSON.
 */
export function dataSpans(text: string): DataSpans | undefined {
  const n = text.length;
  let i = 0;
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  let depth = 0;
  let keyStart = -1; // the last string seen at depth 1: the key of whatever opens next
  let keyEnd = -1;
  let open = -1;
  let close = -1;
  let elementStart = -1;
  const elements: number[] = [];
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      i = closingQuote(text, i);
      if (i === -1) return undefined; // an unterminated string
      if (depth === 1) {
        keyStart = start;
        keyEnd = i + 1;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth === 2 && c === OPEN_BRACKET && keyEnd - keyStart === 6 && text.startsWith('"data"', keyStart)) {
        if (open !== -1) return undefined; // two data arrays: JSON.parse would keep the last
        open = i;
        elementStart = i + 1;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 2 && open !== -1 && close === -1) {
        if (c !== CLOSE_BRACKET) return undefined;
        close = i;
        // `[]` holds nothing; a blank after a comma (`[1,]`) is not JSON: the caller's parse says so.
        if (!pushElement(text, elements, elementStart, i) && elements.length > 0) return undefined;
      }
      depth--;
      if (depth < 0) return undefined;
    } else if (c === COMMA && depth === 2 && open !== -1 && close === -1) {
      if (!pushElement(text, elements, elementStart, i)) return undefined; // `[,` or `,,`
      elementStart = i + 1;
    }
  }
  if (depth !== 0 || open === -1 || close === -1) return undefined;
  return { open, close, elements };
}

/**
 * The index of the quote that closes the string opening at `open`, or -1. Found with indexOf,
 * which skips a string's text far faster than a loop over its characters (most of a list body is
 * strings: 0.70 → 0.38 ms a page of 100 transactions, Node 20); a quote after an odd run of backslashes is
 * escaped.
 */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/** Adds [start, end) unless it is only white space; says whether it added it. */
function pushElement(text: string, elements: number[], start: number, end: number): boolean {
  for (let j = start; j < end; j++) {
    if (!isSpace(text.charCodeAt(j))) {
      elements.push(start, end);
      return true;
    }
  }
  return false;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
