import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createImportProgress, estimateRows } from '../../src/import/progress.js';

const stats = { imported: 40, exists: 2, invalid: 3, failed: 1, skipped: 0, rows: 46 };

describe('import progress', () => {
  it('draws a bar with rate and ETA on a terminal', async () => {
    let text = '';
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 160 });
    stream.on('data', (chunk) => (text += chunk));
    const progress = await createImportProgress({ enabled: true, stream, total: 100 });
    progress.update(stats);
    progress.stop();
    expect(text).toMatch(/46\/100 rows/);
    expect(text).toMatch(/rows\/s/);
    expect(text).toMatch(/ETA/);
    expect(text).toMatch(/invalid 3 failed 1/);
  });

  it('is silent when disabled (piped)', async () => {
    let text = '';
    const stream = new PassThrough();
    stream.on('data', (chunk) => (text += chunk));
    const progress = await createImportProgress({ enabled: false, stream, total: 100 });
    progress.update(stats);
    progress.stop();
    expect(text).toBe('');
  });

  it('estimates the rows of a file from its line count', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-progress-'));
    try {
      writeFileSync(join(dir, 'a.csv'), 'h\n1\n2\n3');
      expect(await estimateRows(join(dir, 'a.csv'), 1)).toBe(3);
      writeFileSync(join(dir, 'b.ndjson'), '{}\n{}\n');
      expect(await estimateRows(join(dir, 'b.ndjson'), 0)).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
