// The one loop every bulk run goes through (`import`, and the bulk forms of the card verbs): it
// pulls a row from the reader only when a request slot is free, so memory stays flat however
// large the input; starts the row's work; and at the end waits for the work in flight (after
// Ctrl-C only for a while, then it aborts the requests). What a row's work is, and how its
// outcome is recorded, belongs to the caller.
import { setMaxListeners } from 'node:events';
import type { SourceRow } from './readers.js';
import type { ReportWriter } from './import-report.js';

/**
 * What a run over many rows is given, whoever runs it (`import`, a bulk card verb): the rows, how
 * many go at once, where each settled row is written, and when to stop.
 */
export interface RowRunOptions<Entry> {
  rows: AsyncIterable<SourceRow>;
  concurrency: number;
  report?: ReportWriter<Entry>;
  /** Ctrl-C: stop sending, let requests in flight finish. */
  signal: AbortSignal;
  /** Work in flight after Ctrl-C gets this long before its requests are aborted. */
  drainTimeoutMs?: number;
  /** Attempts per row for failures that may pass on a retry. */
  maxAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** What a runner derives from those options: the defaults, and the row loop over its rows. */
export function rowRun<Entry>(options: RowRunOptions<Entry>) {
  // Every request in flight (and every lookup) listens on this one signal.
  const requests = new AbortController();
  return {
    requests,
    maxAttempts: options.maxAttempts ?? 5,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
    loop: (work: Pick<RowLoopOptions<SourceRow>, 'start' | 'stop'>) => runRowLoop<SourceRow>({
      rows: options.rows, concurrency: options.concurrency, signal: options.signal, drainTimeoutMs: options.drainTimeoutMs, requests, ...work,
    }),
  };
}

export interface RowLoopOptions<R> {
  rows: AsyncIterable<R>;
  concurrency: number;
  /** Handles one row: a promise while its requests are in flight, nothing when it was settled at once. */
  start(row: R): Promise<void> | void;
  /** Ctrl-C. */
  signal: AbortSignal;
  /** Another reason to stop pulling rows (a failure every row would meet). */
  stop?: () => boolean;
  /** Work in flight after Ctrl-C gets this long before its requests are aborted. */
  drainTimeoutMs?: number;
  /** Aborted when draining times out; every request in flight listens on it. */
  requests: AbortController;
}

/** Returns the error that stopped the reader, when one did (rows before it were handled). */
export async function runRowLoop<R>(options: RowLoopOptions<R>): Promise<{ readerError?: unknown }> {
  // Every row in flight listens on both (the client's retry waits on the Ctrl-C one): no limit of 10.
  setMaxListeners(0, options.requests.signal, options.signal);
  // Rows in flight: a count, and two callbacks shared by every row (not a promise and closures each).
  let inflight = 0;
  const stopped = () => options.signal.aborted || (options.stop?.() ?? false);
  const iterator = options.rows[Symbol.asyncIterator]();
  // Resolved by the next row that settles. (Promise.race over the rows in flight would add a
  // reaction to every one of them for each row started: concurrency² per row's lifetime.)
  let slotFreed: (() => void) | undefined;
  /** Resolved when the last row in flight settles, while draining. */
  let allSettled: (() => void) | undefined;
  /** A row's work that threw (its caller settles every outcome, so this is a bug): rethrown here. */
  let thrown: { error: unknown } | undefined;
  const settled = () => {
    inflight--;
    slotFreed?.();
    slotFreed = undefined;
    if (inflight === 0) allSettled?.();
  };
  const threw = (error: unknown) => {
    thrown ??= { error };
    settled();
  };
  let readerError: unknown;
  try {
    while (!stopped()) {
      // Wait for a free slot before pulling the next row: the reader never runs ahead.
      while (inflight >= options.concurrency && !stopped() && !thrown) await new Promise<void>((resolve) => (slotFreed = resolve));
      if (thrown) throw thrown.error;
      if (stopped()) break;
      let next: IteratorResult<R>;
      try {
        next = await iterator.next();
      } catch (error) {
        readerError = error;
        break;
      }
      if (next.done) break;
      const work = options.start(next.value);
      if (!work) continue;
      inflight++;
      work.then(settled, threw);
    }
  } finally {
    if (stopped()) await iterator.return?.(undefined).catch(() => undefined);
  }
  if (inflight > 0) {
    const all = new Promise<void>((resolve) => (allSettled = resolve));
    await drain(all, options.signal.aborted ? options.drainTimeoutMs ?? 4_000 : Infinity, options.requests);
  }
  if (thrown) throw thrown.error;
  return { readerError };
}

/** Waits for every row in flight (`all`); after `timeoutMs`, aborts their requests first. */
async function drain(all: Promise<void>, timeoutMs: number, requests: AbortController): Promise<void> {
  if (!Number.isFinite(timeoutMs)) {
    await all;
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const winner = await Promise.race([all.then(() => 'done' as const), timeout]);
  clearTimeout(timer);
  if (winner === 'timeout') {
    requests.abort();
    await all;
  }
}

/** Jittered exponential backoff between attempts of one row. */
export function backoffMs(attempt: number): number {
  const base = Math.min(5_000, 200 * 2 ** (attempt - 1));
  return Math.round(base / 2 + Math.random() * (base / 2));
}
