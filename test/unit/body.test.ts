// The bytes of an answer: read as text, or held in a PageBuffer for a streamed list's pages.
import { describe, expect, it } from 'vitest';
import { bodyText, OwnBody, PageBuffer } from '../../src/api/body.js';

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

describe('PageBuffer', () => {
  it('holds the chunks of each answer in turn, growing as a page needs', () => {
    const pages = new PageBuffer();
    pages.begin();
    pages.append(Buffer.from('{"data":'));
    pages.append(Buffer.from('x'.repeat(5000)));
    pages.append(Buffer.from('}'));
    expect(pages.bytes().toString()).toBe(`{"data":${'x'.repeat(5000)}}`);
    pages.begin();
    pages.append(Buffer.from('second'));
    expect(pages.bytes().toString()).toBe('second');
    pages.begin();
    expect(pages.bytes().length).toBe(0);
  });

  it("a page's check throws once the next answer has begun", () => {
    const pages = new PageBuffer();
    pages.begin();
    const first = pages.checker();
    expect(first).not.toThrow();
    pages.begin();
    const second = pages.checker();
    expect(first).toThrow(/read after the next page had begun/);
    expect(second).not.toThrow();
  });
});
