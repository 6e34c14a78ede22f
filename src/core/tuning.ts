// The kinds of work that bin/tuning.js sets V8 flags for, said by the code that begins them: a
// flag set at run time costs every command ~2 ms, so each is set only when its work begins (the
// flags, and what each buys, are in bin/tuning.js). In tests, and wherever main() runs without
// bin/cardctl.js, nothing is set.
export type Work = 'undici' | 'manyRequests' | 'rowRun';

const TUNER = Symbol.for('cardctl.tuner');

/** Says that `work` begins: bin/tuning.js sets its flags, once. */
export function beginWork(work: Work): void {
  (globalThis as { [TUNER]?: (work: Work) => void })[TUNER]?.(work);
}
