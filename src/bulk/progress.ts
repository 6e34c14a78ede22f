// Progress of a bulk card run on stderr: on a terminal a bar with rate and ETA; otherwise (CI
// logs) one line each time another 5% of the rows is settled, or every 1,000 rows when the total
// is unknown (stdin).
import type { Writable } from 'node:stream';
import type { BulkStats } from './runner.js';

export interface BulkProgress {
  update(stats: BulkStats): void;
  stop(): void;
}

export interface ProgressOptions {
  /** What is done to each row, for the labels: "deactivating". */
  label: string;
  stream: Writable;
  /** A bar (a terminal) or lines (a log); neither when quiet. */
  mode: 'bar' | 'lines' | 'off';
  /** Rows expected (0 when unknown). */
  total: number;
}

const LINES_WHEN_TOTAL_UNKNOWN = 1_000;

export async function createBulkProgress(options: ProgressOptions): Promise<BulkProgress> {
  const started = Date.now();
  const rate = (rows: number) => (rows / Math.max((Date.now() - started) / 1000, 0.001)).toFixed(0);
  const ok = (s: BulkStats) => s.done + s.already + s.skipped;
  if (options.mode === 'off') return { update() {}, stop() {} };
  if (options.mode === 'lines') {
    let lastStep = 0;
    return {
      update(stats) {
        const step = options.total > 0 ? Math.floor((stats.rows * 20) / options.total) : Math.floor(stats.rows / LINES_WHEN_TOTAL_UNKNOWN);
        if (step <= lastStep) return;
        lastStep = step;
        const where = options.total > 0 ? `${Math.min(100, step * 5)}% (${stats.rows}/${options.total} rows)` : `${stats.rows} rows`;
        options.stream.write(`${options.label}: ${where}, ${rate(stats.rows)} rows/s, ok ${ok(stats)} failed ${stats.failed}\n`);
      },
      stop() {},
    };
  }
  const { default: cliProgress } = await import('cli-progress');
  const known = options.total > 0;
  const bar = new cliProgress.SingleBar({
    stream: options.stream as NodeJS.WritableStream,
    format: known
      ? `${options.label} {bar} {percentage}% | {value}/{total} rows | {rate} rows/s | ETA {eta_formatted} | ok {ok} failed {failed}`
      : `${options.label} {value} rows | {rate} rows/s | ok {ok} failed {failed}`,
    hideCursor: true,
    clearOnComplete: true,
    etaBuffer: 200,
    fps: 10,
  }, cliProgress.Presets.shades_classic);
  bar.start(known ? options.total : 0, 0, { rate: '0', ok: 0, failed: 0 });
  return {
    update(stats) {
      if (known && stats.rows > options.total) bar.setTotal(stats.rows);
      bar.update(stats.rows, { rate: rate(stats.rows), ok: ok(stats), failed: stats.failed });
    },
    stop() {
      bar.stop();
    },
  };
}
