// Progress of a run over many rows (`import`, and the bulk forms of the card verbs) on stderr:
// on a terminal a bar with rate and ETA; otherwise (CI logs) one line each time another 5% of
// the rows is settled, with the rate and ETA, or every 1,000 rows when the total is unknown
// (stdin, a pipe, a JSON array); nothing with --quiet.
import type { Writable } from 'node:stream';

export interface RowProgress {
  /** `rows` settled so far; `tally`: the counts shown after them, in order ("ok 12 failed 1"). */
  update(rows: number, tally: Readonly<Record<string, number>>): void;
  stop(): void;
}

export interface ProgressOptions {
  /** What is done to each row: "importing", "deactivating". */
  label: string;
  stream: Writable;
  /** A bar when stderr is a terminal, lines when it is not. */
  terminal: boolean;
  /** --quiet: neither. */
  quiet: boolean;
  /** Rows expected (0 when unknown). */
  total: number;
}

const LINES_WHEN_TOTAL_UNKNOWN = 1_000;

export async function createRowProgress(options: ProgressOptions): Promise<RowProgress> {
  if (options.quiet) return { update() {}, stop() {} };
  const started = Date.now();
  const perSecond = (rows: number) => rows / Math.max((Date.now() - started) / 1000, 0.001);
  const tallyText = (tally: Readonly<Record<string, number>>) => Object.entries(tally).map(([name, n]) => `${name} ${n}`).join(' ');
  const known = options.total > 0;
  if (!options.terminal) {
    let lastStep = 0;
    return {
      update(rows, tally) {
        // 100% once, also when the estimate (a count of lines) fell short of the rows.
        const step = known ? Math.min(20, Math.floor((rows * 20) / options.total)) : Math.floor(rows / LINES_WHEN_TOTAL_UNKNOWN);
        if (step <= lastStep) return;
        lastStep = step;
        const rate = perSecond(rows);
        const where = known ? `${step * 5}% (${rows}/${options.total} rows)` : `${rows} rows`;
        const eta = known ? `, ETA ${duration(Math.max(0, options.total - rows) / Math.max(rate, 0.001))}` : '';
        options.stream.write(`${options.label}: ${where}, ${rate.toFixed(0)} rows/s${eta}, ${tallyText(tally)}\n`);
      },
      stop() {},
    };
  }
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar({
    stream: options.stream as NodeJS.WritableStream,
    format: known
      ? `${options.label} {bar} {percentage}% | {value}/{total} rows | {rate} rows/s | ETA {eta_formatted} | {tally}`
      : `${options.label} {value} rows | {rate} rows/s | {tally}`,
    hideCursor: true,
    clearOnComplete: true,
    etaBuffer: 200,
    fps: 10,
  }, cliProgress.Presets.shades_classic);
  bar.start(known ? options.total : 0, 0, { rate: '0', tally: '' });
  return {
    update(rows, tally) {
      if (known && rows > options.total) bar.setTotal(rows);
      bar.update(rows, { rate: perSecond(rows).toFixed(0), tally: tallyText(tally) });
    },
    stop() {
      bar.stop();
    },
  };
}

/** "42 s", "3 min 5 s", "2 h 10 min". */
function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/**
 * The rows a regular file holds, for the progress total: its lines (a cheap count of newlines)
 * less the header's. 0 (unknown) for stdin, pipes and JSON arrays, or with --quiet.
 */
export async function expectedRows(path: string | undefined, format: string | undefined, skip: boolean): Promise<number> {
  if (skip || !path || !format || format === 'json') return 0;
  const { createReadStream } = await import('node:fs');
  let newlines = 0;
  let last = 0x0a;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) newlines++;
    if (chunk.length) last = chunk[chunk.length - 1]!;
  }
  const lines = newlines + (last === 0x0a ? 0 : 1);
  return Math.max(0, lines - (format === 'csv' ? 1 : 0));
}
