import { describe, expect, it } from 'vitest';
import { isCanonicalJson } from '../../src/api/canonical-json.js';
import { startsLikeCardNumber } from '../../src/audit/mask.js';
import { mulberry32 } from '../../src/sandbox/faults.js';

const canonical = (text: string, refuse?: Parameters<typeof isCanonicalJson>[3]) => {
  const bytes = Buffer.from(text);
  return isCanonicalJson(bytes, 0, bytes.length, refuse);
};

/**
 * What isCanonicalJson promises of UTF-8 bytes: true only when JSON.stringify prints the value
 * parsed from them back byte for byte. (A lone surrogate in `text` is U+FFFD in its bytes.)
 */
const printsBack = (text: string) => {
  const bytes = Buffer.from(text);
  try {
    return Buffer.from(JSON.stringify(JSON.parse(bytes.toString('utf8')))).equals(bytes);
  } catch {
    return false;
  }
};

describe('isCanonicalJson', () => {
  it.each([
    ['an empty object and array', '{"a":{},"b":[]}'],
    ['nesting and literals', '{"a":1,"b":[true,false,null],"c":{"d":"x"}}'],
    ['UTF-8 text', '{"name":"Adé Ọ̀bí 🃏","note":"\u2028"}'],
    ['the escapes JSON.stringify writes', '"q\\"b\\\\s\\bf\\fn\\nr\\rt\\t"'],
    ['integers up to 15 digits', '[0,-1,7,123456789012345,-123456789012345]'],
    ['decimals up to 15 significant digits, down to 10^-6', '[12.34,-0.5,0.000001,0.00123,1234567890.12345,-1.5]'],
    ['index keys first, ascending, then named keys', '{"0":"0100","2":"5060","11":"0100","128":"x","mti":"0100"}'],
    ['the same key in different objects', '{"a":{"a":1},"b":{"a":2}}'],
    ['a key that is not an index', '{"a0":1,"_1":2}'],
  ])('says yes to %s', (_what, text) => {
    expect(printsBack(text)).toBe(true);
    expect(canonical(text)).toBe(true);
  });

  it.each([
    ['white space between tokens', '{"a": 1}'],
    ['white space around the text', ' {"a":1}'],
    ['white space after the text', '{"a":1} '],
    ['a \\u escape (JSON.stringify writes most characters as they are)', '"\\u0041"'],
    ['a \\u escape of a control character (it prints the same, but is not worth proving)', '"\\u001b"'],
    ['an escaped slash', '"a\\/b"'],
    ['a control character unescaped (not JSON)', '"a\u0001b"'],
    ['a trailing zero after the point', '1.50'],
    ['an exponent', '1e5'],
    ['an upper-case exponent', '[2E3]'],
    ['minus zero', '-0'],
    ['a leading zero', '[01]'],
    ['a point with no digits after it', '1.'],
    ['no digit before the point', '.5'],
    ['below 10^-6 (printed with an exponent)', '0.0000001'],
    ['16 digits', '1234567890123456'],
    ['16 significant digits', '12345678901234.56'],
    ['a key given twice', '{"a":1,"a":2}'],
    ['a key given twice, apart', '{"a":1,"b":{"c":1},"a":2}'],
    ['an index key after a named key', '{"a":1,"0":2}'],
    ['index keys out of order', '{"2":1,"1":2}'],
    ['an index key given twice', '{"1":1,"1":2}'],
    ['a key of digits with a leading zero', '{"01":1}'],
    ['a key of more than 9 digits', '{"1234567890":1}'],
    ['text after the value', '{"a":1}x'],
    ['an unterminated object', '{"a":1'],
    ['an unterminated string', '"abc'],
    ['an element missing after a comma', '[1,]'],
    ['a member missing after a comma', '{"a":1,}'],
    ['a broken literal', '[tru]'],
    ['a literal run into another token', '[truefalse]'],
    ['a key without a colon', '{"a"1}'],
    ['nothing', ''],
    ['a bare word', 'undefined'],
  ])('says no to %s', (_what, text) => {
    expect(canonical(text)).toBe(false);
  });

  it('gives up past 64 levels of nesting, and past 4,096 keys open at once', () => {
    expect(canonical(`${'['.repeat(64)}${']'.repeat(64)}`)).toBe(true);
    expect(canonical(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe(false);
    const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    expect(canonical(keys(4096))).toBe(true);
    expect(canonical(keys(4097))).toBe(false);
  });

  it("reads only its span of a larger buffer, and a string the caller refuses makes it say no", () => {
    const page = Buffer.from('{"data":[{"pan":"5060990000000000019"},{"id":"t2"}]}');
    const first = [page.indexOf('{"pan"'), page.indexOf('},{') + 1];
    const second = [page.indexOf('{"id"'), page.lastIndexOf(']')];
    expect(isCanonicalJson(page, first[0]!, first[1]!)).toBe(true);
    expect(isCanonicalJson(page, first[0]!, first[1]!, startsLikeCardNumber)).toBe(false);
    expect(isCanonicalJson(page, second[0]!, second[1]!, startsLikeCardNumber)).toBe(true);
    expect(isCanonicalJson(page, second[0]!, second[1]! - 1)).toBe(false); // cut short
  });

  // Random values, printed and then damaged: whatever it says yes to prints back, and it says yes
  // to what JSON.stringify printed from plain values (else the fast path would never be taken).
  it('says yes only to texts that print back, over random and damaged texts', () => {
    const random = mulberry32(19); // seeded, so a failure repeats
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const characters = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\u0001', '\u007f', 'é', '🃏', '\u2028', '0', '9', '{', ':'];
    const numbers = () => pick([0, -0, 1, -7, 12.34, 0.5, 1e-7, 1e21, 123456789012345, 2 ** 53 + 2, 0.1 + 0.2, random() * 1000, -random() * 1e-3, Math.round(random() * 1e6) / 100]);
    const keys = () => pick(['id', 'a', 'b', 'pan', '0', '1', '2', '10', '01', '4294967295', '__proto__', 'é', '', 'k"']);
    const value = (depth: number): unknown => {
      const kind = depth > 3 ? pick(['string', 'number', 'literal']) : pick(['string', 'number', 'literal', 'object', 'array']);
      if (kind === 'string') return Array.from({ length: Math.floor(random() * 6) }, () => pick(characters)).join('');
      if (kind === 'number') return numbers();
      if (kind === 'literal') return pick([true, false, null]);
      if (kind === 'array') return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, () => [keys(), value(depth + 1)]));
    };
    const damage = (text: string) => {
      const at = Math.floor(random() * (text.length + 1));
      const insert = pick([' ', ',', '"', '0', '1', 'e', '.', '-', '\\u0041', '\\/', '}', ']', '"a":1,', '"id":2,', '\t', '\u0001']);
      return random() < 0.5 ? text.slice(0, at) + insert + text.slice(at) : text.slice(0, at) + text.slice(at + 1);
    };
    let yes = 0;
    for (let n = 0; n < 20_000; n++) {
      const printed = JSON.stringify(value(0));
      for (const text of [printed, damage(printed), damage(damage(printed))]) {
        const said = canonical(text);
        if (said) yes++;
        if (said && !printsBack(text)) throw new Error(`said yes to a text that does not print back: ${text}`);
      }
    }
    expect(yes).toBeGreaterThan(10_000);
  });

  it('says yes to every record JSON.stringify prints from plain values', () => {
    const random = mulberry32(24);
    for (let n = 0; n < 5_000; n++) {
      const record = {
        id: random().toString(36).slice(2),
        amount: Math.round(random() * 1e7) / 100,
        count: Math.floor(random() * 1e12),
        note: `Adé "${n}" \\ \n ${'🃏'.repeat(n % 3)}`,
        originalMessage: { 0: '0100', 2: '506099******0019', 11: String(n) },
        tags: [true, null, { nested: -n }],
      };
      const text = JSON.stringify(record);
      expect(canonical(text), text).toBe(true);
    }
  });
});
