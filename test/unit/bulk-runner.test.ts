import { describe, expect, it } from 'vitest';
import { NetworkError, NotFoundError, RejectedError } from '../../src/core/errors.js';
import type { SourceRow } from '../../src/bulk/readers.js';
import type { BulkReportEntry } from '../../src/bulk/report.js';
import { planBulk, runBulk, type BulkAction, type BulkRunOptions } from '../../src/bulk/runner.js';

async function* rowsOf(values: unknown[]): AsyncGenerator<SourceRow> {
  for (const [i, value] of values.entries()) yield { line: i + 1, value };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i + 1}` }));

function action(apply: BulkAction<string>['apply']): BulkAction<string> {
  return {
    parse(value) {
      const id = (value as { id?: unknown }).id;
      if (typeof id !== 'string' || !id) throw new Error('id: is required');
      return id;
    },
    idOf: (id) => id,
    describe: (id) => `touch ${id}`,
    apply,
  };
}

function run(over: Partial<BulkRunOptions<string>> & Pick<BulkRunOptions<string>, 'action'>) {
  const entries: BulkReportEntry[] = [];
  const result = runBulk({
    rows: rowsOf(ids(10)),
    concurrency: 3,
    signal: new AbortController().signal,
    sleep: async () => {},
    report: { write: (e) => void entries.push(e), close() {} },
    ...over,
  });
  return result.then((r) => ({ ...r, entries: entries.sort((a, b) => a.row - b.row) }));
}

describe('runBulk', () => {
  it('settles every row once, in the report with its row number; a bad row fails as INVALID and is not sent', async () => {
    const sent: string[] = [];
    const { stats, entries } = await run({
      rows: rowsOf([{ id: 'a' }, { nope: 1 }, { id: 'b' }]),
      action: action(async (id) => (sent.push(id), { outcome: id === 'b' ? 'already' : 'done' })),
    });
    expect(sent.sort()).toEqual(['a', 'b']);
    expect(stats).toEqual({ done: 1, already: 1, skipped: 0, failed: 1, rows: 3 });
    expect(entries).toEqual([
      { row: 1, id: 'a', outcome: 'done' },
      { row: 2, outcome: 'failed', code: 'INVALID', message: 'id: is required' },
      { row: 3, id: 'b', outcome: 'already' },
    ]);
  });

  it('--shard K/N takes rows K, K+N, …; --resume skips the rows an earlier report records as done', async () => {
    const shard = await run({ shard: { index: 2, count: 3 }, action: action(async () => ({ outcome: 'done' })) });
    expect(shard.entries.map((e) => e.row)).toEqual([2, 5, 8]);
    const done = new Map([[5, { row: 5, id: 'c5', outcome: 'done' as const }]]);
    const resumed = await run({ shard: { index: 2, count: 3 }, done, action: action(async () => ({ outcome: 'done' })) });
    expect(resumed.entries).toEqual([{ row: 2, id: 'c2', outcome: 'done' }, { row: 5, id: 'c5', outcome: 'skipped' }, { row: 8, id: 'c8', outcome: 'done' }]);
  });

  it('--resume skips a row only when the report\'s line names the same row: another is a failed row, not sent', async () => {
    const sent: string[] = [];
    const done = new Map([
      [1, { row: 1, id: 'c1', outcome: 'done' as const }],
      [2, { row: 2, id: 'other', outcome: 'done' as const }],
      [3, { row: 3, outcome: 'already' as const }],
    ]);
    const resumed = await run({ rows: rowsOf(ids(4)), done, action: action(async (id) => (sent.push(id), { outcome: 'done' })) });
    expect(sent).toEqual(['c4']);
    expect(resumed.entries.map((e) => [e.row, e.outcome, e.code])).toEqual([[1, 'skipped', undefined], [2, 'failed', 'RESUME_MISMATCH'], [3, 'failed', 'RESUME_MISMATCH'], [4, 'done', undefined]]);
    expect(resumed.entries[1]!.message).toMatch(/the report records row 2 as other, but this row is c2/);
    const planned = [];
    for await (const p of planBulk({ rows: rowsOf(ids(2)), done, action: action(async () => { throw new Error('sent'); }) })) planned.push(p);
    expect(planned).toEqual([{ row: 1, id: 'c1', skipped: true }, { row: 2, id: 'c2', error: expect.stringMatching(/records row 2 as other/) }]);
  });

  it('after an attempt that may have applied, the next attempt is told to look first; an API refusal is not retried', async () => {
    const seen: Array<[string, boolean]> = [];
    const { entries } = await run({
      rows: rowsOf([{ id: 'lost' }, { id: 'gone' }]),
      action: action(async (id, { uncertain }) => {
        seen.push([id, uncertain]);
        if (id === 'gone') throw new NotFoundError('card gone not found', { status: 404 });
        if (!uncertain) throw new NetworkError('timeout');
        return { outcome: 'done' };
      }),
    });
    expect(seen).toEqual([['lost', false], ['gone', false], ['lost', true]]);
    expect(entries).toEqual([{ row: 1, id: 'lost', outcome: 'done' }, { row: 2, id: 'gone', outcome: 'failed', code: 'NOT_FOUND', message: 'card gone not found' }]);
  });

  it('a 429 pauses every row for its Retry-After and does not fail the row or use up its attempts', async () => {
    const slept: number[] = [];
    let limited = 0;
    const { stats } = await run({
      maxAttempts: 1,
      sleep: async (ms) => void slept.push(ms),
      action: action(async (id) => {
        if (id === 'c1' && limited++ < 3) throw new RejectedError('rate limited', { status: 429, code: 'RATE_LIMITED', retryAfterMs: 60_000 });
        return { outcome: 'done' };
      }),
    });
    expect(stats).toMatchObject({ done: 10, failed: 0 });
    // Rows waited for the pause (the sleep here returns at once, so each waiter sleeps what is left of it).
    expect(slept.length).toBeGreaterThan(0);
    expect(Math.max(...slept)).toBeGreaterThan(50_000);
  });

  it('--dry-run plans every row: what it would change, or why it cannot, sending nothing', async () => {
    const planned = [];
    for await (const p of planBulk({ rows: rowsOf([{ id: 'a' }, {}]), action: action(async () => { throw new Error('sent'); }) })) planned.push(p);
    expect(planned).toEqual([{ row: 1, id: 'a', change: 'touch a' }, { row: 2, id: undefined, error: 'id: is required' }]);
  });
});
