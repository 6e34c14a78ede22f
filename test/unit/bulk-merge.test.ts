import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeBulkReports, ReportMergeError } from '../../src/bulk/merge.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-merge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, lines: Array<Record<string, unknown> | string>) => {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return path;
};

describe('merging the reports of a bulk run\'s shards', () => {
  it('one line per row in row order; within a report the last outcome that is not "skipped" wins', async () => {
    const one = write('s1.ndjson', [
      { row: 5, id: 'e', outcome: 'failed', code: 'HTTP_503', message: 'down' },
      { row: 1, id: 'a', outcome: 'done' },
      { row: 3, id: 'c', outcome: 'done' },
      '{"row":7,"id":"g","outc', // torn by a kill; the --resume appended after it
      { row: 1, id: 'a', outcome: 'skipped' },
      { row: 3, id: 'c', outcome: 'skipped' },
      { row: 5, id: 'e', outcome: 'done' },
      { row: 7, id: 'g', outcome: 'already' },
    ]);
    const two = write('s2.ndjson', [{ row: 4, id: 'd', outcome: 'failed', code: 'NOT_FOUND', message: 'no card' }, { row: 2, id: 'b', outcome: 'done', expiration: '203106' }]);
    const merged = await mergeBulkReports([one, two]);
    expect(merged.entries).toEqual([
      { row: 1, id: 'a', outcome: 'done' },
      { row: 2, id: 'b', outcome: 'done', expiration: '203106' },
      { row: 3, id: 'c', outcome: 'done' },
      { row: 4, id: 'd', outcome: 'failed', code: 'NOT_FOUND', message: 'no card' },
      { row: 5, id: 'e', outcome: 'done' },
      { row: 7, id: 'g', outcome: 'already' },
    ]);
    expect(merged.counts).toEqual({ done: 4, already: 1, skipped: 0, failed: 1, rows: 6, reports: 2, missing: 1, torn: 1 });
  });

  it('refuses reports that share a row (the same shard twice, different counts, different runs) and files that are not bulk reports', async () => {
    const a = write('a.ndjson', [{ row: 1, outcome: 'done' }, { row: 3, outcome: 'done' }]);
    const b = write('b.ndjson', [{ row: 2, outcome: 'done' }, { row: 3, outcome: 'failed' }]);
    await expect(mergeBulkReports([a, b])).rejects.toThrow(/row 3 is in both .*a\.ndjson and .*b\.ndjson/);
    await expect(mergeBulkReports([a, a])).rejects.toBeInstanceOf(ReportMergeError);
    const imported = write('import.ndjson', [{ line: 2, realId: 'X', outcome: 'imported' }]);
    await expect(mergeBulkReports([imported])).rejects.toThrow(/line 1 is not a row of a bulk report/);
    const odd = write('odd.ndjson', [{ row: 1, outcome: 'maybe' }]);
    await expect(mergeBulkReports([odd])).rejects.toThrow(/not a row of a bulk report/);
  });

  it('refuses the shard reports of different runs even when they share no row; reports without a run line merge as before', async () => {
    const run = (shard: string, input?: string, verb = 'deactivate') => ({ run: { verb, shard, source: 'ids.txt', ...(input ? { input } : {}) } });
    const one = write('run-1.ndjson', [run('1/2', 'sha256:aaaa'), { row: 1, outcome: 'done' }, { row: 3, outcome: 'done' }]);
    const two = write('run-2.ndjson', [run('2/2', 'sha256:aaaa'), { row: 2, outcome: 'done' }]);
    const merged = await mergeBulkReports([two, one]);
    expect(merged.entries).toEqual([{ row: 1, outcome: 'done' }, { row: 2, outcome: 'done' }, { row: 3, outcome: 'done' }]);
    expect(merged.counts).toMatchObject({ rows: 3, reports: 2, missing: 0, torn: 0 });
    const otherFile = write('other-2.ndjson', [run('2/2', 'sha256:bbbb'), { row: 2, outcome: 'done' }]);
    await expect(mergeBulkReports([one, otherFile])).rejects.toThrow(/other-2\.ndjson is a report of another run than .*run-1\.ndjson: deactivate, shard 2\/2 of ids\.txt \(sha256:bbbb…\), not deactivate, shard 1\/2/);
    const otherVerb = write('verb-2.ndjson', [run('2/2', 'sha256:aaaa', 'activate'), { row: 2, outcome: 'done' }]);
    await expect(mergeBulkReports([one, otherVerb])).rejects.toBeInstanceOf(ReportMergeError);
    const otherCount = write('count-2.ndjson', [run('2/3', 'sha256:aaaa'), { row: 2, outcome: 'done' }]);
    await expect(mergeBulkReports([one, otherCount])).rejects.toThrow(/another run/);
    // From stdin no input is known: the verb and the count still have to agree.
    const piped = write('piped-2.ndjson', [run('2/2'), { row: 2, outcome: 'done' }]);
    expect((await mergeBulkReports([one, piped])).counts.rows).toBe(3);
    const older = write('older-2.ndjson', [{ row: 2, outcome: 'done' }]);
    expect((await mergeBulkReports([one, older])).counts.rows).toBe(3);
    // A run line is a report's first line only.
    const late = write('late.ndjson', [{ row: 2, outcome: 'done' }, run('2/2', 'sha256:aaaa')]);
    await expect(mergeBulkReports([late])).rejects.toThrow(/line 2 is not a row of a bulk report/);
  });

  it('no rows, no division: an empty report merges to nothing', async () => {
    const empty = join(dir, 'empty.ndjson');
    writeFileSync(empty, '');
    expect(await mergeBulkReports([empty])).toEqual({ entries: [], counts: { done: 0, already: 0, skipped: 0, failed: 0, rows: 0, reports: 1, missing: 0, torn: 0 } });
  });
});
