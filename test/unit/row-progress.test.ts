import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRowProgress, expectedRows } from '../../src/bulk/progress.js';

const tally = { ok: 42, invalid: 3, failed: 1 };

function capture(tty: boolean) {
  const chunks: string[] = [];
  const stream = Object.assign(new PassThrough(), tty ? { isTTY: true, columns: 160 } : {});
  stream.on('data', (chunk) => chunks.push(String(chunk)));
  return { stream, text: () => chunks.join('') };
}

describe('row progress (import and the bulk card verbs)', () => {
  it('draws a bar with rate and ETA on a terminal', async () => {
    const out = capture(true);
    const progress = await createRowProgress({ label: 'importing', stream: out.stream, terminal: true, quiet: false, total: 100 });
    progress.update(46, tally);
    progress.stop();
    expect(out.text()).toMatch(/46\/100 rows/);
    expect(out.text()).toMatch(/rows\/s/);
    expect(out.text()).toMatch(/ETA/);
    expect(out.text()).toMatch(/ok 42 invalid 3 failed 1/);
  });

  it('is silent with --quiet, on a terminal or not', async () => {
    for (const terminal of [true, false]) {
      const out = capture(terminal);
      const progress = await createRowProgress({ label: 'importing', stream: out.stream, terminal, quiet: true, total: 100 });
      for (let rows = 1; rows <= 100; rows++) progress.update(rows, tally);
      progress.stop();
      expect(out.text()).toBe('');
    }
  });

  it('when not a terminal, a line per 5% of the rows with the rate and ETA', async () => {
    const out = capture(false);
    const progress = await createRowProgress({ label: 'deactivating', stream: out.stream, terminal: false, quiet: false, total: 200 });
    for (let rows = 1; rows <= 200; rows++) progress.update(rows, { ok: rows, failed: 0 });
    progress.stop();
    const lines = out.text().trim().split('\n');
    expect(lines).toHaveLength(20);
    expect(lines.map((l) => /: (\d+)% \(/.exec(l)?.[1])).toEqual(Array.from({ length: 20 }, (_, i) => String((i + 1) * 5)));
    expect(lines[0]).toMatch(/^deactivating: 5% \(10\/200 rows\), \d+ rows\/s, ETA \d+ (s|min)/);
    expect(lines[19]).toMatch(/100% \(200\/200 rows\), \d+ rows\/s, ETA 0 s, ok 200 failed 0$/);
  });

  it('one row is one line at 100%; rows beyond the estimate stay at 100%; an unknown total gives a line per 1,000 rows', async () => {
    const one = capture(false);
    const single = await createRowProgress({ label: 'renewing', stream: one.stream, terminal: false, quiet: false, total: 1 });
    single.update(1, { ok: 1, failed: 0 });
    expect(one.text()).toMatch(/^renewing: 100% \(1\/1 rows\), \d+ rows\/s, ETA 0 s, ok 1 failed 0\n$/);
    const over = capture(false);
    const estimate = await createRowProgress({ label: 'renewing', stream: over.stream, terminal: false, quiet: false, total: 20 });
    for (let rows = 1; rows <= 22; rows++) estimate.update(rows, { ok: rows });
    expect(over.text().trim().split('\n')).toHaveLength(20);
    expect(over.text()).not.toMatch(/NaN|Infinity/);
    const unknown = capture(false);
    const streamed = await createRowProgress({ label: 'importing', stream: unknown.stream, terminal: false, quiet: false, total: 0 });
    for (let rows = 1; rows <= 2_500; rows++) streamed.update(rows, { ok: rows });
    expect(unknown.text().trim().split('\n').map((l) => l.replace(/, \d+ rows\/s/, ''))).toEqual(['importing: 1000 rows, ok 1000', 'importing: 2000 rows, ok 2000']);
  });

  it('expects the rows of a file from its line count (less a CSV header); none for JSON, pipes or --quiet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-progress-'));
    try {
      writeFileSync(join(dir, 'a.csv'), 'h\n1\n2\n3');
      expect(await expectedRows(join(dir, 'a.csv'), 'csv', false)).toBe(3);
      writeFileSync(join(dir, 'b.ndjson'), '{}\n{}\n');
      expect(await expectedRows(join(dir, 'b.ndjson'), 'ndjson', false)).toBe(2);
      writeFileSync(join(dir, 'empty.csv'), 'h\n');
      expect(await expectedRows(join(dir, 'empty.csv'), 'csv', false)).toBe(0);
      expect(await expectedRows(join(dir, 'b.ndjson'), 'json', false)).toBe(0);
      expect(await expectedRows(undefined, 'csv', false)).toBe(0);
      expect(await expectedRows(join(dir, 'b.ndjson'), 'ndjson', true)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
