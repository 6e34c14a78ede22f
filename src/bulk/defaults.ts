// The defaults of a run over many rows (import and the bulk card verbs), kept apart so the help
// text can name them without loading the runner.

/** Rows in flight unless --concurrency says otherwise. */
export const DEFAULT_CONCURRENCY = 8;

/** The most rows in flight --concurrency accepts. */
export const MAX_CONCURRENCY = 256;
