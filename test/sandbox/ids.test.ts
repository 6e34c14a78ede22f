import { describe, expect, test } from 'vitest';
import { newId } from '../../src/sandbox/ids.js';

describe('newId', () => {
  test('24 hex, unique, and in creation order within a process', () => {
    const ids = Array.from({ length: 10_000 }, () => newId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // The random part too (40 bits: a repeat among 10,000 has odds of about 1 in 20,000), across
    // the refills of its pool: a pool handed out twice would repeat it.
    expect(new Set(ids.map((id) => id.slice(14))).size).toBe(ids.length);
  });

  test('the middle of an id is the time, not a count: records made by others in between leave no trace', () => {
    const start = Date.UTC(2031, 0, 1, 12, 0, 0, 250);
    const before = newId(start);
    for (let i = 0; i < 5_000; i++) newId(start);   // another institution's busy millisecond
    const after = newId(start + 1);
    expect(before.slice(0, 8)).toBe(Math.floor(start / 1000).toString(16));
    expect(parseInt(before.slice(8, 14), 16)).toBe(250 << 14);
    expect(parseInt(after.slice(8, 14), 16)).toBe(251 << 14);
  });
});
