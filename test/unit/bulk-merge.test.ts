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

const DIGEST = `sha256:${'aa'.repeat(32)}`;
const run = (shard?: string, over: Record<string, unknown> = {}) => ({ run: { verb: 'deactivate', input: DIGEST, ...(shard ? { shard } : {}), source: 'ids.txt', ...over } });
const end = (rows: number) => ({ end: { rows } });

describe('merging the reports of a bulk run\'s shards', () => {
  it('one line per row in row order; within a report the last outcome that is not "skipped" wins', async () => {
    const one = write('s1.ndjson', [
      run('1/2'),
      { row: 5, id: 'e', outcome: 'failed', code: 'HTTP_503', message: 'down' },
      { row: 1, id: 'a', outcome: 'done' },
      { row: 3, id: 'c', outcome: 'done' },
      '{"row":7,"id":"g","outc', // torn by a kill; the --resume appended after it
      { row: 1, id: 'a', outcome: 'skipped' },
      { row: 3, id: 'c', outcome: 'skipped' },
      { row: 5, id: 'e', outcome: 'done' },
      { row: 7, id: 'g', outcome: 'already' },
      end(7),
    ]);
    const two = write('s2.ndjson', [run('2/2'), { row: 4, id: 'd', outcome: 'failed', code: 'NOT_FOUND', message: 'no card' }, { row: 2, id: 'b', outcome: 'done', expiration: '203106' }, { row: 6, id: 'f', outcome: 'done' }, end(7)]);
    const merged = await mergeBulkReports([one, two]);
    expect(merged.entries).toEqual([
      { row: 1, id: 'a', outcome: 'done' },
      { row: 2, id: 'b', outcome: 'done', expiration: '203106' },
      { row: 3, id: 'c', outcome: 'done' },
      { row: 4, id: 'd', outcome: 'failed', code: 'NOT_FOUND', message: 'no card' },
      { row: 5, id: 'e', outcome: 'done' },
      { row: 6, id: 'f', outcome: 'done' },
      { row: 7, id: 'g', outcome: 'already' },
    ]);
    expect(merged.counts).toEqual({ done: 5, already: 1, skipped: 0, failed: 1, rows: 7, reports: 2, missing: 0, torn: 1 });
    expect(merged.unfinished).toEqual([]);
  });

  it('refuses reports that share a row, a shard given twice, a row outside its shard, and files that are not bulk reports', async () => {
    const a = write('a.ndjson', [run('1/2'), { row: 1, outcome: 'done' }, { row: 3, outcome: 'done' }]);
    const b = write('b.ndjson', [run('2/2'), { row: 2, outcome: 'done' }, { row: 3, outcome: 'failed' }]);
    await expect(mergeBulkReports([a, b])).rejects.toThrow(/b\.ndjson: row 3 is not a row of shard 2\/2/);
    await expect(mergeBulkReports([a, a])).rejects.toThrow(/a\.ndjson and .*a\.ndjson are both the report of shard 1\/2/);
    const single = write('single.ndjson', [run(), { row: 1, outcome: 'done' }]);
    await expect(mergeBulkReports([single, single])).rejects.toThrow(/both the report of shard 1\/1/);
    const imported = write('import.ndjson', [run(undefined, { verb: 'import' }), { line: 2, realId: 'X', outcome: 'imported' }]);
    await expect(mergeBulkReports([imported])).rejects.toThrow(/line 2 is not a line of a bulk report/);
    const odd = write('odd.ndjson', [run(), { row: 1, outcome: 'maybe' }]);
    await expect(mergeBulkReports([odd])).rejects.toThrow(/not a line of a bulk report/);
    const older = write('older.ndjson', [{ row: 2, outcome: 'done' }]);
    await expect(mergeBulkReports([older])).rejects.toThrow(/first line does not name one/);
    const late = write('late.ndjson', [run('2/2'), { row: 2, outcome: 'done' }, run('2/2')]);
    await expect(mergeBulkReports([late])).rejects.toThrow(/line 3 is not a line of a bulk report/);
  });

  it('refuses the shard reports of different runs even when they share no row', async () => {
    const one = write('run-1.ndjson', [run('1/2'), { row: 1, outcome: 'done' }, { row: 3, outcome: 'done' }, end(3)]);
    const two = write('run-2.ndjson', [run('2/2'), { row: 2, outcome: 'done' }, end(3)]);
    const merged = await mergeBulkReports([two, one]);
    expect(merged.entries).toEqual([{ row: 1, outcome: 'done' }, { row: 2, outcome: 'done' }, { row: 3, outcome: 'done' }]);
    expect(merged.counts).toMatchObject({ rows: 3, reports: 2, missing: 0, torn: 0 });
    const otherFile = write('other-2.ndjson', [run('2/2', { input: `sha256:${'bb'.repeat(32)}` }), { row: 2, outcome: 'done' }]);
    await expect(mergeBulkReports([one, otherFile])).rejects.toThrow(/other-2\.ndjson is a report of another run than .*run-1\.ndjson: deactivate, shard 2\/2 of ids\.txt \(sha256:b{8}…\), not deactivate, shard 1\/2/);
    const otherVerb = write('verb-2.ndjson', [run('2/2', { verb: 'activate' }), { row: 2, outcome: 'done' }]);
    await expect(mergeBulkReports([one, otherVerb])).rejects.toBeInstanceOf(ReportMergeError);
    const otherCount = write('count-2.ndjson', [run('2/3'), { row: 2, outcome: 'done' }]);
    await expect(mergeBulkReports([one, otherCount])).rejects.toThrow(/another run/);
    const otherRows = write('rows-2.ndjson', [run('2/2'), { row: 2, outcome: 'done' }, end(5)]);
    await expect(mergeBulkReports([one, otherRows])).rejects.toThrow(/counts 5 rows in the input/);
  });

  it('a shard not given is refused, naming it; rows a shard did not settle are counted and named', async () => {
    const one = write('m-1.ndjson', [run('1/3'), { row: 1, outcome: 'done' }, { row: 4, outcome: 'done' }, end(5)]);
    const three = write('m-3.ndjson', [run('3/3'), { row: 3, outcome: 'done' }, end(5)]);
    await expect(mergeBulkReports([one, three])).rejects.toThrow(/^shard 2\/3 of the run \(deactivate of ids\.txt \(sha256:a{8}…\)\) missing: give every shard's report \(given: 1\/3, 3\/3\)$/);
    // Shard 2 stopped after its first row: row 5 is missing, and shard 2 did not finish.
    const two = write('m-2.ndjson', [run('2/3'), { row: 2, outcome: 'done' }]);
    const merged = await mergeBulkReports([one, two, three]);
    expect(merged.counts).toMatchObject({ rows: 4, missing: 1 });
    expect(merged.missingRows).toEqual([5]);
    expect(merged.unfinished).toEqual(['2/3']);
  });

  it('no rows, no division: a report of an empty input merges to nothing; an empty file is not a report', async () => {
    const none = write('none.ndjson', [run(), end(0)]);
    expect(await mergeBulkReports([none])).toEqual({ entries: [], counts: { done: 0, already: 0, skipped: 0, failed: 0, rows: 0, reports: 1, missing: 0, torn: 0 }, missingRows: [], unfinished: [] });
    const empty = join(dir, 'empty.ndjson');
    writeFileSync(empty, '');
    await expect(mergeBulkReports([empty])).rejects.toThrow(/is empty: not the report of a run/);
  });
});
