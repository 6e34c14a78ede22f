// dataSpans: the records of a list body found in its bytes without parsing it (a streamed list parses one at a time).
import { describe, expect, it } from 'vitest';
import { dataSpans } from '../../src/api/list-body.js';

/** What the spans say the body holds: each element parsed on its own, and the envelope around them. */
function readBySpans(text: string): { data: unknown[]; envelope: unknown } | undefined {
  const body = Buffer.from(text);
  const spans = dataSpans(body);
  if (!spans) return undefined;
  const data: unknown[] = [];
  for (let k = 0; k < spans.elements.length; k += 2) data.push(JSON.parse(body.toString('utf8', spans.elements[k], spans.elements[k + 1])));
  return { data, envelope: JSON.parse(`${body.toString('utf8', 0, spans.open + 1)}${body.toString('utf8', spans.close)}`) };
}

describe('dataSpans', () => {
  it.each([
    ['a page of records', '{"statusCode":200,"data":[{"id":1},{"id":2}],"pagination":{"pages":3}}'],
    ['no records', '{"statusCode":200,"data":[],"pagination":{"pages":0}}'],
    ['white space everywhere', ' \n{ "data" : [ {"id":1} ,\t{"id":[2, {"x":"]"}]} \r\n] , "message":"ok" }\n'],
    ['brackets, braces, commas and escaped quotes inside strings', '{"data":[{"s":"[{,}]\\"],","t":"\\\\"},{"u":"\\\\\\""}]}'],
    ['elements that are not objects', '{"data":[1,"two",null,[3,[4]],{"five":{}}]}'],
    ['a key named data deeper down, and a string "data" at the top', '{"message":"data","meta":{"data":[9]},"data":[{"data":[1]}]}'],
    ['non-ASCII text', '{"data":[{"name":"Adé Ọ̀bí 🃏"},{"name":"\\u00e9"}]}'],
  ])('finds every element: %s', (_name, text) => {
    const read = readBySpans(text);
    const whole = JSON.parse(text) as { data: unknown[] };
    expect(read?.data).toEqual(whole.data);
    expect(read?.envelope).toEqual({ ...whole, data: [] });
  });

  it.each([
    ['not an object', '[{"data":[1]}]'],
    ['no data array', '{"statusCode":200,"message":"ok"}'],
    ['data that is not an array', '{"data":{"id":1}}'],
    ['two data arrays (JSON.parse keeps the last)', '{"data":[1],"data":[2]}'],
    ['a trailing comma', '{"data":[1,]}'],
    ['a leading comma', '{"data":[,1]}'],
    ['two commas', '{"data":[1,,2]}'],
    ['an unterminated string', '{"data":[{"id":"1}]}'],
    ['brackets that do not balance', '{"data":[{"id":1}]'],
    ['an array closed by a brace', '{"data":[1}}'],
    ['a body cut short', '{"data":[{"id":1},{"id'],
    ['a byte order mark first', '\ufeff{"data":[1]}'],
  ])('is undefined for %s', (_name, text) => {
    expect(dataSpans(Buffer.from(text))).toBeUndefined();
  });

  it('agrees with JSON.parse on random envelopes', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
    const strings = ['', 'data', '"', '\\', '[', ']', '{', '}', ',', ':', 'é', '\u2028', '\n', '🃏', '\\"]', 'a"b'];
    const value = (depth: number): unknown => {
      const kind = Math.floor(random() * (depth > 3 ? 4 : 6));
      if (kind === 0) return pick(strings) + pick(strings);
      if (kind === 1) return Math.floor(random() * 1e6) / 100;
      if (kind === 2) return pick([true, false, null]);
      if (kind === 3) return '';
      if (kind === 4) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [pick(strings) + pick(['', 'data', 'x']), value(depth + 1)]));
    };
    for (let round = 0; round < 300; round++) {
      const body = { statusCode: 200, message: pick(strings), data: Array.from({ length: Math.floor(random() * 6) }, () => value(0)), pagination: { pages: round } };
      const text = JSON.stringify(body, null, round % 3 === 0 ? 2 : undefined);
      expect(readBySpans(text)).toEqual({ data: body.data, envelope: { ...body, data: [] } });
    }
  });
});
