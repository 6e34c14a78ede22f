// What `webhook listen` can be told about repeats, and its bounds, in a file of its own: the
// command's declaration and help (on the start-up path), the listener and the rules parser read it.

/** How the listener answers a repeat (the same STAN, RRN and message class again): as the first time, or otherwise. */
export const REPEAT_BEHAVIOURS = ['consistent', 'inconsistent'] as const;
export type RepeatBehaviour = (typeof REPEAT_BEHAVIOURS)[number];

/** The most the listener remembers (GET /exchanges, first answers for repeats): exchanges, and characters kept for them (about bytes). */
export const HISTORY_BOUND = { exchanges: 10_000, bytes: 8 * 1024 * 1024 } as const;

/** The largest message body read, bytes: past it the answer is 413 and the connection is closed. */
export const MAX_BODY_BYTES = 1024 * 1024;
