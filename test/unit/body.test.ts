// The bytes of an answer, read as text.
import { describe, expect, it } from 'vitest';
import { bodyText, OwnBody } from '../../src/api/body.js';

describe('bodyText and OwnBody', () => {
  it('reads UTF-8, a byte-order mark dropped, from one chunk or several (a character split between them)', () => {
    const bytes = Buffer.from('\ufeff{"name":"Adé 🃏"}');
    expect(bodyText(bytes)).toBe('{"name":"Adé 🃏"}');
    const own = new OwnBody();
    own.begin();
    for (const chunk of [bytes.subarray(0, 14), bytes.subarray(14, 21), bytes.subarray(21)]) own.append(chunk);
    expect(bodyText(own.bytes())).toBe('{"name":"Adé 🃏"}');
    expect(bodyText(Buffer.from('ok'))).toBe('ok');
    expect(bodyText(Buffer.alloc(0))).toBe('');
  });
});
