import { describe, expect, it } from 'vitest';
import { TailCursor, parseInterval } from '../../src/commands/tx/tail.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 12, 0, s)).toISOString();
const tx = (id: string, s: number) => ({ id, createdAt: at(s) });

/** The list endpoint: newest first, offset pages. */
function pages(records: Array<{ id: string; createdAt: string }>, size: number) {
  const sorted = [...records].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
  return (page: number) => sorted.slice((page - 1) * size, page * size);
}

/** One poll the way tx tail does it: pages until the window is reached. */
function poll(cursor: TailCursor, store: Array<{ id: string; createdAt: string }>, size: number) {
  const read = pages(store, size);
  const got = [];
  for (let page = 1; ; page++) {
    const items = read(page);
    got.push(...items);
    const oldest = items[items.length - 1];
    if (!oldest || items.length < size || cursor.reached(oldest)) break;
  }
  return cursor.accept(got);
}

describe('tx tail cursor', () => {
  it('after the baseline, prints only new transactions, oldest first, each once, across pages', () => {
    const store = [tx('a', 1), tx('b', 2), tx('c', 3)];
    const cursor = new TailCursor(Number.NEGATIVE_INFINITY);
    cursor.baseline(pages(store, 2)(1));
    expect(poll(cursor, store, 2)).toEqual([]);
    // A burst larger than two pages.
    store.push(tx('d', 4), tx('e', 5), tx('f', 5), tx('g', 6), tx('h', 7));
    expect(poll(cursor, store, 2).map((t) => t.id)).toEqual(['d', 'e', 'f', 'g', 'h']);
    expect(poll(cursor, store, 2)).toEqual([]);
  });

  it('catches a transaction stored late with an older createdAt (within the look-back)', () => {
    const store = [tx('a', 10), tx('b', 20)];
    const cursor = new TailCursor(Number.NEGATIVE_INFINITY);
    cursor.baseline(pages(store, 100)(1));
    store.push(tx('c', 30));
    expect(poll(cursor, store, 100).map((t) => t.id)).toEqual(['c']);
    store.push(tx('late', 25));
    expect(poll(cursor, store, 100).map((t) => t.id)).toEqual(['late']);
  });

  it('with --since, starts from that time', () => {
    const store = [tx('a', 1), tx('b', 2), tx('c', 3)];
    const cursor = new TailCursor(Date.parse(at(2)));
    expect(poll(cursor, store, 1).map((t) => t.id)).toEqual(['b', 'c']);
    store.push(tx('d', 4));
    expect(poll(cursor, store, 1).map((t) => t.id)).toEqual(['d']);
  });

  it('--interval is seconds between 0.1 and 3600', () => {
    expect(parseInterval(undefined)).toBe(2000);
    expect(parseInterval('0.5')).toBe(500);
    for (const bad of ['0', '-1', 'x', '4000']) expect(() => parseInterval(bad)).toThrow(/--interval/);
  });
});
