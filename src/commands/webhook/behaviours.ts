// What `webhook listen` can be told about repeats, in a file of its own: the command's flag
// declaration (on the start-up path) and the rules parser both read it.

/** How the listener answers a repeat (the same STAN, RRN and message class again): as the first time, or otherwise. */
export const REPEAT_BEHAVIOURS = ['consistent', 'inconsistent'] as const;
export type RepeatBehaviour = (typeof REPEAT_BEHAVIOURS)[number];
