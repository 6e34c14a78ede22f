// The defaults of a run over many rows (import and the bulk card verbs), kept apart so the help
// text can name them without loading the runner.

/** Rows in flight unless --concurrency says otherwise. */
export const DEFAULT_CONCURRENCY = 8;

/**
 * Rows in flight unless --concurrency says otherwise, for the verbs whose requests are pipelined
 * (`cards activate | deactivate --from-file`: ApiClient.pipelined). 30,000 deactivations, interleaved (2026-11-24, load 8-12): 5,862-7,248 rows/s at
 * 16 against 4,405-5,761 at 8, the same CPU a row; 2,000 under the sandbox's faults (429s,
 * resets, held answers): 42 s against 83 s, every row done at both.
 */
export const PIPELINED_CONCURRENCY = 16;

/** The help of --concurrency, with the default a verb has. */
export function concurrencyHelp(defaultConcurrency: number): string {
  return `bulk: requests in flight (default ${defaultConcurrency})`;
}

/** The most rows in flight --concurrency accepts. */
export const MAX_CONCURRENCY = 256;
