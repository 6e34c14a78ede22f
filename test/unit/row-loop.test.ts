import { describe, expect, it } from 'vitest';
import { runRowLoop } from '../../src/bulk/loop.js';

async function* numbers(count: number, pulled: number[]): AsyncGenerator<number> {
  for (let i = 1; i <= count; i++) {
    pulled.push(i);
    yield i;
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the row loop', () => {
  it('keeps at most `concurrency` rows in flight and pulls a row only when a slot is free', async () => {
    const pulled: number[] = [];
    const finish = new Map<number, () => void>();
    let inFlight = 0;
    let most = 0;
    const loop = runRowLoop({
      rows: numbers(10, pulled), concurrency: 3, signal: new AbortController().signal, requests: new AbortController(),
      start: (row) => {
        most = Math.max(most, ++inFlight);
        return new Promise<void>((resolve) => finish.set(row, () => { inFlight--; resolve(); }));
      },
    });
    await tick();
    expect(pulled).toEqual([1, 2, 3]);
    finish.get(2)!();
    await tick();
    expect(pulled).toEqual([1, 2, 3, 4]);
    for (let row = 1; row <= 10; row++) {
      finish.get(row)?.();
      await tick();
    }
    await loop;
    expect(pulled).toHaveLength(10);
    expect(most).toBe(3);
  });

  it('rethrows the error of a row whose work threw, and pulls no more rows', async () => {
    const pulled: number[] = [];
    const loop = runRowLoop({
      rows: numbers(100, pulled), concurrency: 2, signal: new AbortController().signal, requests: new AbortController(),
      start: (row) => (row === 3 ? Promise.reject(new Error('bug in row 3')) : new Promise<void>((resolve) => setTimeout(resolve, 5))),
    });
    await expect(loop).rejects.toThrow('bug in row 3');
    expect(pulled.length).toBeLessThan(10);
  });
});
