// Progress of a bulk import on stderr: a cli-progress bar with rate and ETA when stderr is a
// terminal, nothing when it is piped (the summary line says it all).
import type { Writable } from 'node:stream';
import type { ImportStats } from './runner.js';

export interface ImportProgress {
  update(stats: ImportStats): void;
  stop(): void;
}

const SILENT: ImportProgress = { update() {}, stop() {} };

/** `total` is the number of rows expected (0 when unknown, e.g. stdin). */
export async function createImportProgress(options: { enabled: boolean; stream: Writable; total: number }): Promise<ImportProgress> {
  if (!options.enabled) return SILENT;
  const { default: cliProgress } = await import('cli-progress');
  const started = Date.now();
  const known = options.total > 0;
  const bar = new cliProgress.SingleBar({
    stream: options.stream as NodeJS.WritableStream,
    format: known
      ? 'importing {bar} {percentage}% | {value}/{total} rows | {rate} rows/s | ETA {eta_formatted} | ok {ok} invalid {invalid} failed {failed}'
      : 'importing {value} rows | {rate} rows/s | ok {ok} invalid {invalid} failed {failed}',
    hideCursor: true,
    clearOnComplete: true,
    etaBuffer: 200,
    fps: 10,
  }, cliProgress.Presets.shades_classic);
  bar.start(known ? options.total : 0, 0, { rate: '0', ok: 0, invalid: 0, failed: 0 });
  return {
    update(stats) {
      const seconds = Math.max((Date.now() - started) / 1000, 0.001);
      const payload = {
        rate: (stats.rows / seconds).toFixed(0),
        ok: stats.imported + stats.exists + stats.skipped,
        invalid: stats.invalid,
        failed: stats.failed,
      };
      if (known && stats.rows > options.total) bar.setTotal(stats.rows);
      bar.update(stats.rows, payload);
    },
    stop() {
      bar.stop();
    },
  };
}

/** Counts the data rows of a file cheaply (newlines), for the progress bar's total. */
export async function estimateRows(path: string, headerLines: number): Promise<number> {
  const { createReadStream } = await import('node:fs');
  let newlines = 0;
  let last = 0x0a;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) newlines++;
    if (chunk.length) last = chunk[chunk.length - 1]!;
  }
  const lines = newlines + (last === 0x0a ? 0 : 1);
  return Math.max(0, lines - headerLines);
}
