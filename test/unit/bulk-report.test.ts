// The rules that bind a bulk run to its input: `--shard K/N` as one canonical spelling, and the
// report's header (its run: verb, input digest, shard), read strictly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseShard } from '../../src/commands/bulk-command.js';
import { UsageError } from '../../src/core/errors.js';
import { parseRunHeader, parseRunEnd, readBulkReport, resumeRefusal, runHeaderLine, RunReportError, type RunHeader } from '../../src/bulk/report.js';
import { formatShard, parseShardText } from '../../src/bulk/shard.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

describe('--shard K/N', () => {
  it.each([
    ['1/1', { index: 1, count: 1 }],
    ['2/4', { index: 2, count: 4 }],
    ['4/4', { index: 4, count: 4 }],
    ['999/1000', { index: 999, count: 1000 }],
    ['1000/1000', { index: 1000, count: 1000 }],
  ])('%s is shard %o', (text, shard) => {
    expect(parseShardText(text)).toEqual(shard);
    expect(parseShard(text)).toEqual(shard);
    expect(formatShard(shard)).toBe(text);
  });

  it.each([
    '01/2', '1/02', '0/2', '3/2', '1/0', '1/1001', '1001/1001', '+1/2', '-1/2', '1.0/2', '1/2.0', ' 1/2', '1/2 ', '1 /2', '1/ 2',
    '1//2', '1/2/3', '1', '/2', '1/', 'a/b', '１/２', '1e0/2', '0x1/2', '', '99999999999999999999/99999999999999999999',
  ])('%j is refused with a usage error naming the rule', (text) => {
    expect(parseShardText(text)).toBeUndefined();
    expect(() => parseShard(text)).toThrow(UsageError);
    expect(() => parseShard(text)).toThrow(/expected K\/N, whole numbers with 1 ≤ K ≤ N ≤ 1000/);
  });
});

describe('a report\'s header', () => {
  const run = (over: Record<string, unknown> = {}) => ({ run: { verb: 'renew', input: DIGEST, shard: '1/2', source: 'renew.csv', ...over } });
  it.each<[string, unknown, RunHeader | undefined]>([
    ['a sharded run', run(), { verb: 'renew', input: DIGEST, shard: '1/2', source: 'renew.csv' }],
    ['an unsharded run', { run: { verb: 'create', input: DIGEST, source: 'stdin' } }, { verb: 'create', input: DIGEST, source: 'stdin' }],
    ['a verb of two words', run({ verb: 'customer update' }), { verb: 'customer update', input: DIGEST, shard: '1/2', source: 'renew.csv' }],
    ['no input', { run: { verb: 'renew', shard: '1/2', source: 'x' } }, undefined],
    ['an input that is not a SHA-256', run({ input: 'sha256:abcd' }), undefined],
    ['an input in capitals', run({ input: DIGEST.toUpperCase() }), undefined],
    ['a shard spelled otherwise', run({ shard: '01/2' }), undefined],
    ['a shard past its count', run({ shard: '3/2' }), undefined],
    ['a shard as a number', run({ shard: 1 }), undefined],
    ['no verb', run({ verb: undefined }), undefined],
    ['a verb that is not a word', run({ verb: '{}' }), undefined],
    ['no source', run({ source: undefined }), undefined],
    ['a field more', run({ extra: 1 }), undefined],
    ['a key beside run', { ...run(), row: 1 }, undefined],
    ['a row', { row: 1, outcome: 'done' }, undefined],
    ['an array', [run()], undefined],
    ['null', null, undefined],
  ])('%s', (_name, value, header) => {
    expect(parseRunHeader(JSON.parse(JSON.stringify(value)))).toEqual(header);
  });

  it('is written as one line it reads back', () => {
    const header = { verb: 'renew', input: DIGEST, shard: '2/3', source: 'a b.csv' };
    const line = runHeaderLine(header);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/\n/);
    expect(parseRunHeader(JSON.parse(line))).toEqual(header);
    expect(parseRunEnd({ end: { rows: 30 } })).toEqual({ rows: 30 });
    expect(parseRunEnd({ end: { rows: -1 } })).toBeUndefined();
  });

  it('a resume is refused for another verb, input or shard, and allowed for the same run', () => {
    const header = { verb: 'renew', input: DIGEST, shard: '1/2', source: 'renew.csv' };
    expect(resumeRefusal('r.ndjson', header, { ...header, source: 'elsewhere/renew.csv' })).toBeUndefined();
    expect(resumeRefusal('r.ndjson', header, { ...header, verb: 'deactivate' })).toMatch(/its verb is renew, not deactivate/);
    expect(resumeRefusal('r.ndjson', header, { ...header, input: `sha256:${'cd'.repeat(32)}` })).toMatch(/its input is another/);
    expect(resumeRefusal('r.ndjson', header, { verb: 'renew', input: DIGEST, source: 'renew.csv' })).toMatch(/its shard is 1\/2, not none/);
  });
});

describe('reading a report for --resume', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-report-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const header = runHeaderLine({ verb: 'renew', input: DIGEST, source: 'renew.csv' });

  it('keeps the rows done, already or skipped; a line torn by a killed run is passed over', async () => {
    const path = write('ok.ndjson', `${header}{"row":1,"id":"a","outcome":"done"}\n{"row":2,"id":"b","outcome":"fai\n{"row":2,"id":"b","outcome":"failed","code":"X"}\n{"row":3,"id":"c","outcome":"already"}\n{"end":{"rows":3}}\n`);
    const { done, run } = await readBulkReport(path);
    expect(run).toEqual({ verb: 'renew', input: DIGEST, source: 'renew.csv' });
    expect([...done.keys()]).toEqual([1, 3]);
    expect(await readBulkReport(join(dir, 'absent.ndjson'))).toEqual({ done: new Map() });
  });

  it.each([
    ['no header', '{"row":1,"id":"a","outcome":"done"}\n', /its first line does not name one/],
    ['the input file (CSV)', 'id,expiration\nc1,203001\n', /line 1 is not JSON/],
    ['a CSV line among the rows', `${header}{"row":1,"id":"a","outcome":"done"}\nc1,203001\n`, /line 3 is not JSON/],
    ['an import report', `${runHeaderLine({ verb: 'import', input: DIGEST, source: 'x' })}{"line":2,"realId":"A","outcome":"imported"}\n`, /line 2 is not a line of a bulk report/],
    ['a second header', `${header}${header}`, /line 2 is not a line of a bulk report/],
    ['an unknown outcome', `${header}{"row":1,"outcome":"maybe"}\n`, /line 2 is not a line/],
    ['blank lines only', '\n\n  \n', /it has only blank lines/],
  ])('refuses %s', async (_name, text, message) => {
    const error = await readBulkReport(write('bad.ndjson', text)).catch((e) => e);
    expect(error).toBeInstanceOf(RunReportError);
    expect(error.message).toMatch(message);
  });
});
