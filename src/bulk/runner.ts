// The bulk runner of the card verbs (`cards deactivate --from-file …`): each input row is parsed
// by the verb's action, sent with up to `concurrency` rows in flight (the row loop of
// src/bulk/loop.ts, shared with `import`), and settled once in the report as done, already,
// skipped or failed.
//
// Exactly once: after an attempt that may have applied (a timeout, a reset, a 5xx) the action is
// told so, and checks the card before sending again (a renewal already at its target expiry is
// not renewed twice). A 429 slows the whole run: every row waits out its Retry-After before its
// next request, and the rate-limited row is tried again without using up an attempt.
import { AuthError, ExitCode, type CliError } from '../core/errors.js';
import { backoffMs, rowRun, type RowRunOptions } from './loop.js';
import type { BulkOutcome, BulkReportEntry } from './report.js';
import { inShard, type Shard } from './shard.js';

/** One verb's work on one row. */
export interface BulkAction<T> {
  /** Checks a row (`row`: its number) and turns it into the verb's input; throws an Error whose message says why not. */
  parse(value: unknown, row: number): T | Promise<T>;
  /** The card (or reference) the row is about, for the report. */
  idOf(item: T): string | undefined;
  /**
   * What an earlier report's line names its row by, to compare with idOf before the row is
   * skipped on a --resume (default: the line's id).
   */
  reportedIdOf?(entry: BulkReportEntry): string | undefined;
  /** What the row would change, for --dry-run: "deactivate 6650c0ffee". */
  describe(item: T): string;
  /**
   * Carries the row out. `uncertain`: an earlier attempt may have applied, so look before
   * sending again. Details go into the report entry.
   */
  apply(item: T, attempt: { signal: AbortSignal; uncertain: boolean }): Promise<{ outcome: 'done' | 'already'; id?: string; details?: Record<string, unknown> }>;
}

export type { Shard } from './shard.js';

export interface BulkStats {
  done: number;
  already: number;
  skipped: number;
  failed: number;
  /** Rows settled (all outcomes). */
  rows: number;
}

/** What a bulk run of a card verb prints with -o json: its counts, its time, its report. */
export type BulkSummary = BulkStats & { seconds: number; report?: string };

export interface BulkRunOptions<T> extends RowRunOptions<BulkReportEntry> {
  action: BulkAction<T>;
  shard?: Shard;
  /** Rows an earlier run's report records as done (--resume). */
  done?: ReadonlyMap<number, BulkReportEntry>;
  onSettled?(entry: BulkReportEntry, stats: BulkStats): void;
}

export interface BulkRunResult {
  stats: BulkStats;
  /** Rows read from the input, in this shard or not (all of them when the run read it to the end). */
  inputRows: number;
  interrupted: boolean;
  /** A failure every row would meet (bad credentials): the run stopped. */
  fatal?: CliError;
  /** The first failed rows, for the summary. */
  problems: BulkReportEntry[];
  readerError?: unknown;
}

const MAX_PROBLEMS_KEPT = 20;
/** A row rate-limited this many times in a row fails: the service is refusing, not pacing. */
const MAX_RATE_LIMITED = 50;

export async function runBulk<T>(options: BulkRunOptions<T>): Promise<BulkRunResult> {
  const stats: BulkStats = { done: 0, already: 0, skipped: 0, failed: 0, rows: 0 };
  const problems: BulkReportEntry[] = [];
  const { requests, maxAttempts, sleep, loop } = rowRun(options);
  let fatal: CliError | undefined;
  let pausedUntil = 0;
  let ordinal = 0;

  const settle = (entry: BulkReportEntry) => {
    stats.rows++;
    stats[entry.outcome]++;
    if (entry.outcome === 'failed' && problems.length < MAX_PROBLEMS_KEPT) problems.push(entry);
    options.report?.write(entry);
    options.onSettled?.(entry, stats);
  };
  const failed = (row: number, id: string | undefined, code: string, message: string): BulkReportEntry => ({ row, ...(id ? { id } : {}), outcome: 'failed', code, message });

  // Waits out the pause, and again when a 429 met meanwhile has pushed it further.
  const waitForRateLimit = async () => {
    for (let until = 0; pausedUntil > until && !requests.signal.aborted;) {
      until = pausedUntil;
      const wait = until - Date.now();
      if (wait > 0) await sleep(wait);
    }
  };

  const applyRow = async (row: number, item: T): Promise<void> => {
    const id = options.action.idOf(item);
    let uncertain = false;
    let rateLimited = 0;
    for (let attempt = 1; ;) {
      await waitForRateLimit();
      try {
        const result = await options.action.apply(item, { signal: requests.signal, uncertain });
        const outcome: BulkOutcome = result.outcome;
        const settledId = result.id ?? id;
        return settle(settledId ? { row, id: settledId, outcome, ...result.details } : { row, outcome, ...result.details });
      } catch (caught) {
        const error = caught as CliError & { status?: number; code?: string; retryAfterMs?: number };
        const code = error.code ?? (error.status ? `HTTP_${error.status}` : 'ERROR');
        if (error instanceof AuthError) {
          fatal ??= error;
          return settle(failed(row, id, code, error.message));
        }
        if (requests.signal.aborted) return settle(failed(row, id, 'INTERRUPTED', error.message));
        if (error.status === 429 && ++rateLimited < MAX_RATE_LIMITED) {
          pausedUntil = Math.max(pausedUntil, Date.now() + (error.retryAfterMs ?? 1_000));
          continue;
        }
        const network = error.exitCode === ExitCode.Network && error.code !== 'ABORTED';
        const maybeApplied = network || (error.status !== undefined && error.status >= 500);
        if (!maybeApplied || attempt >= maxAttempts) return settle(failed(row, id, code, error.message));
        uncertain = true;
        await sleep(backoffMs(attempt++));
      }
    }
  };

  const { readerError } = await loop({
    stop: () => fatal !== undefined,
    start(source) {
      const row = ++ordinal;
      if (!inShard(row, options.shard)) return;
      if (source.error !== undefined) return settle(failed(row, undefined, 'INVALID', source.error));
      const invalid = (error: unknown) => settle(failed(row, idOfValue(source.value), 'INVALID', (error as Error).message));
      let item: T | Promise<T>;
      try {
        item = options.action.parse(source.value, row);
      } catch (error) {
        return invalid(error);
      }
      // A row the report records as done is skipped only when it is the row the report names.
      const earlier = options.done?.get(row);
      const next = (parsed: T) => {
        if (!earlier) return applyRow(row, parsed);
        const mismatch = resumeMismatch(row, options.action, parsed, earlier);
        return settle(mismatch ? failed(row, options.action.idOf(parsed), 'RESUME_MISMATCH', mismatch) : { ...earlier, row, outcome: 'skipped' });
      };
      // Most verbs parse a row at once: its request goes out without a turn through a promise.
      return item instanceof Promise ? item.then(next, invalid) : next(item);
    },
  });
  return { stats, inputRows: ordinal, interrupted: options.signal.aborted, fatal, problems, readerError };
}

/**
 * Why a row the report records as done is not skipped, or undefined when it is the same row: the
 * report's line names what this row is about (a card id, a derived reference).
 */
export function resumeMismatch<T>(row: number, action: BulkAction<T>, item: T, earlier: BulkReportEntry): string | undefined {
  const id = action.idOf(item);
  const reported = action.reportedIdOf ? action.reportedIdOf(earlier) : earlier.id;
  if (reported !== undefined && reported === id) return undefined;
  return `the report records row ${row} as ${reported ?? 'a row without an id'}, but this row is ${id ?? 'without one'}: not skipped, not sent (the report is of other rows or other flags)`;
}

/** Every row parsed, none sent (--dry-run): what each would change, or why it cannot. */
export async function* planBulk<T>(options: Pick<BulkRunOptions<T>, 'rows' | 'action' | 'shard' | 'done'>): AsyncGenerator<{ row: number; id?: string; change?: string; skipped?: boolean; error?: string }> {
  let row = 0;
  for await (const source of options.rows) {
    row++;
    if (!inShard(row, options.shard)) continue;
    if (source.error !== undefined) {
      yield { row, error: source.error };
      continue;
    }
    try {
      const item = await options.action.parse(source.value, row);
      const id = options.action.idOf(item);
      const earlier = options.done?.get(row);
      const mismatch = earlier && resumeMismatch(row, options.action, item, earlier);
      if (mismatch) yield { row, id, error: mismatch };
      else if (earlier) yield { row, id, skipped: true };
      else yield { row, id, change: options.action.describe(item) };
    } catch (error) {
      yield { row, id: idOfValue(source.value), error: (error as Error).message };
    }
  }
}

function idOfValue(value: unknown): string | undefined {
  const id = value && typeof value === 'object' ? (value as Record<string, unknown>).id : undefined;
  return typeof id === 'string' && id.trim() ? id.trim().slice(0, 128) : undefined;
}
