// Whether a JSON text, as UTF-8 bytes, is exactly what JSON.stringify prints for the value that
// JSON.parse reads from it. A streamed list printed as NDJSON prints such a record's bytes as they
// came, with no string, object or row made for it: a third of the client's CPU, and so few
// scavenges that V8 never grows the young generation (BENCHMARKS.md, "NDJSON from a page's
// bytes"). The check is one pass over the bytes and errs on the side of no: anything it cannot
// prove prints the same (white space, a \u escape, an exponent, more digits than a double keeps,
// a key that could be an array index, a key given twice, deep nesting) answers false, and the
// caller parses the record as before. Valid UTF-8 is the caller's check (isUtf8 over the page).

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COMMA = 0x2c; // ,
const COLON = 0x3a; // :
const MINUS = 0x2d; // -
const DOT = 0x2e; // .
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACE = 0x7d; // }
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACKET = 0x5d; // ]

/** 1 for the letter of each escape JSON.stringify writes itself: \" \\ \b \f \n \r \t (any other character below U+0020 it writes as \u00XX). */
const SHORT_ESCAPE = new Uint8Array(128);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;

const LITERALS = ['true', 'false', 'null'].map((word) => Buffer.from(word));

const EMPTY = new Uint8Array(0);

/**
 * A decimal with at most this many significant digits reads into a double and prints back with
 * the same digits (DBL_DIG): two such decimals never meet in one double, so the shortest that
 * prints it is the decimal itself.
 */
const EXACT_DIGITS = 15;

/** Below 10^-6, JavaScript prints a number with an exponent; so at most 5 zeros after "0.". */
const MOST_ZEROS_AFTER_POINT = 5;

/** Deeper than this, the check gives up (answers false): a record is far shallower. */
const MOST_DEPTH = 64;

/** More keys than this in the objects open at once, and the check gives up. */
const MOST_OPEN_KEYS = 4096;

/** Says no to a string that opens at `at` (the byte after its quote) before its text is read: the caller's own rule. */
export type StringRefusal = (bytes: Uint8Array, at: number, end: number) => boolean;

/**
 * Whether bytes [start, end) are a JSON text that JSON.stringify(JSON.parse(text)) prints back
 * byte for byte, with no string for which `refuse` says no. False means "not proved", not "not JSON".
 */
export function isCanonicalJson(bytes: Uint8Array, start: number, end: number, refuse?: StringRefusal): boolean {
  return scan.text(bytes, start, end, refuse);
}

/**
 * One pass over one text: `at` moves past each value read; each method answers whether what it
 * read is canonical. One scan serves every call, its key list allocated once: a streamed list
 * checks every record, and what it allocates for each decides how often V8 scavenges.
 */
class CanonicalScan {
  private bytes: Uint8Array = EMPTY;
  private end = 0;
  private refuse: StringRefusal | undefined;
  private at = 0;
  /** [start, end) of each key of the objects open, innermost last: a key given twice is found among its object's. */
  private readonly keys = new Int32Array(2 * MOST_OPEN_KEYS);
  private keyCount = 0;

  text(bytes: Uint8Array, start: number, end: number, refuse: StringRefusal | undefined): boolean {
    this.bytes = bytes;
    this.at = start;
    this.end = end;
    this.refuse = refuse;
    this.keyCount = 0;
    const canonical = this.value(0) && this.at === end;
    this.bytes = EMPTY; // not to keep a page alive
    return canonical;
  }

  value(depth: number): boolean {
    if (this.at >= this.end) return false;
    const c = this.bytes[this.at]!;
    if (c === QUOTE) return this.string();
    if (c === OPEN_BRACE) return depth < MOST_DEPTH && this.object(depth + 1);
    if (c === OPEN_BRACKET) return depth < MOST_DEPTH && this.array(depth + 1);
    if (c === MINUS || isDigit(c)) return this.number();
    for (const word of LITERALS) if (this.literal(word)) return true;
    return false;
  }

  private object(depth: number): boolean {
    this.at++; // {
    if (this.at < this.end && this.bytes[this.at] === CLOSE_BRACE) {
      this.at++;
      return true;
    }
    const firstKey = this.keyCount;
    // JSON.stringify prints an object's index keys ("7") first, in ascending order: they must be so already.
    let lastIndex = -1;
    let named = false;
    for (;;) {
      const keyStart = this.at;
      if (keyStart >= this.end || this.bytes[keyStart] !== QUOTE || !this.string()) return false;
      if (isDigit(this.bytes[keyStart + 1])) {
        const index = this.indexKey(keyStart, this.at);
        if (index <= lastIndex || named) return false;
        lastIndex = index;
      } else {
        named = true;
      }
      if (this.seenKey(firstKey, keyStart, this.at)) return false; // JSON.parse keeps the last value, in the first's place
      if (this.keyCount === MOST_OPEN_KEYS) return false;
      this.keys[2 * this.keyCount] = keyStart;
      this.keys[2 * this.keyCount + 1] = this.at;
      this.keyCount++;
      if (this.at >= this.end || this.bytes[this.at] !== COLON) return false;
      this.at++;
      if (!this.value(depth) || this.at >= this.end) return false;
      const next = this.bytes[this.at++];
      if (next === CLOSE_BRACE) {
        this.keyCount = firstKey;
        return true;
      }
      if (next !== COMMA) return false;
    }
  }

  /**
   * The number a key starting with a digit names, when it is an array index written the one way
   * (no leading zero); -1 otherwise, which refuses it. Up to 9 digits: an index is below 2^32 - 1,
   * and a longer key is not worth telling apart from one that is not an index.
   */
  private indexKey(start: number, end: number): number {
    const digits = end - start - 2;
    if (digits > 9 || (digits > 1 && this.bytes[start + 1] === ZERO)) return -1;
    let index = 0;
    for (let j = start + 1; j < end - 1; j++) {
      const c = this.bytes[j];
      if (!isDigit(c)) return -1;
      index = index * 10 + (c! - ZERO);
    }
    return index;
  }

  /** Whether the key at [start, end) is one of the open object's, those from index `firstKey` on. */
  private seenKey(firstKey: number, start: number, end: number): boolean {
    const length = end - start;
    for (let k = firstKey; k < this.keyCount; k++) {
      const otherStart = this.keys[2 * k]!;
      if (this.keys[2 * k + 1]! - otherStart !== length) continue;
      let same = true;
      for (let j = 1; j < length - 1 && same; j++) same = this.bytes[start + j] === this.bytes[otherStart + j];
      if (same) return true;
    }
    return false;
  }

  private array(depth: number): boolean {
    this.at++; // [
    if (this.at < this.end && this.bytes[this.at] === CLOSE_BRACKET) {
      this.at++;
      return true;
    }
    for (;;) {
      if (!this.value(depth) || this.at >= this.end) return false;
      const next = this.bytes[this.at++];
      if (next === CLOSE_BRACKET) return true;
      if (next !== COMMA) return false;
    }
  }

  /** A string: no byte below U+0020, and no escape but the short ones JSON.stringify writes. */
  private string(): boolean {
    const { bytes, end } = this;
    let i = this.at + 1;
    if (this.refuse?.(bytes, i, end)) return false;
    for (; i < end; i++) {
      const c = bytes[i]!;
      if (c === QUOTE) {
        this.at = i + 1;
        return true;
      }
      if (c < 0x20) return false;
      if (c === BACKSLASH) {
        i++;
        if (i >= end || !SHORT_ESCAPE[bytes[i]!]) return false;
      }
    }
    return false;
  }

  /**
   * A number JavaScript prints as written: `-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?`, at most
   * EXACT_DIGITS significant digits, no exponent, not below 10^-6 after "0.", and not -0.
   */
  private number(): boolean {
    const { bytes, end } = this;
    let i = this.at;
    const negative = bytes[i] === MINUS;
    if (negative) i++;
    const integerStart = i;
    if (i < end && bytes[i] === ZERO) i++;
    else while (i < end && isDigit(bytes[i]!)) i++;
    const integerDigits = i - integerStart;
    if (integerDigits === 0) return false;
    const zeroInteger = integerDigits === 1 && bytes[integerStart] === ZERO;
    let significant = zeroInteger ? 0 : integerDigits;
    if (i < end && bytes[i] === DOT) {
      i++;
      const fractionStart = i;
      while (i < end && isDigit(bytes[i]!)) i++;
      if (i === fractionStart || bytes[i - 1] === ZERO) return false; // "1." is not JSON; "1.50" prints "1.5"
      if (zeroInteger) {
        let zeros = 0;
        while (bytes[fractionStart + zeros] === ZERO) zeros++;
        if (zeros > MOST_ZEROS_AFTER_POINT) return false;
        significant = i - fractionStart - zeros;
      } else {
        significant += i - fractionStart;
      }
    } else if (zeroInteger && negative) {
      return false; // -0 prints 0
    }
    if (significant > EXACT_DIGITS) return false;
    if (i < end && !isDelimiter(bytes[i]!)) return false; // an exponent, or a digit after a leading 0
    this.at = i;
    return true;
  }

  private literal(word: Buffer): boolean {
    if (this.at + word.length > this.end) return false;
    for (let j = 0; j < word.length; j++) if (this.bytes[this.at + j] !== word[j]) return false;
    this.at += word.length;
    return true;
  }
}

const scan = new CanonicalScan();

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

function isDelimiter(c: number): boolean {
  return c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET;
}
