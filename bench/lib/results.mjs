// One way for every benchmark to report a ratio against the peer it was measured beside, so that
// `npm run bench` (bench/run.mjs) can end with one table of every target (BENCHMARKS.md).
//
//   import { reportRatio } from './lib/results.mjs';
//   reportRatio({
//     bench: 'startup',                        // the file, without .mjs
//     name: 'cardctl --help',                  // what was measured
//     value: 48.1, unit: 'ms',                 // its median
//     peer: 'node -e 0', peerValue: 41.0,      // what it was measured beside, in the same run
//     ratio: 1.17,                             // value / peerValue (or the bench's own definition)
//     aim: { max: 1.2 },                       // or { min: 0.8 }; omit when there is no target
//     note: 'median of 20 interleaved runs',   // optional
//   });
//
// Each call prints nothing; it appends one JSON line to the file named by BENCH_RESULTS_FILE
// (set by bench/run.mjs), and does nothing when that variable is unset, so a benchmark run on
// its own prints only its own report.
import { appendFileSync } from 'node:fs';

/** @param {{bench: string, name: string, value?: number, unit?: string, peer: string, peerValue?: number, ratio: number, aim?: {max?: number, min?: number}, note?: string}} result */
export function reportRatio(result) {
  const file = process.env.BENCH_RESULTS_FILE;
  if (!file) return;
  const pass = result.aim === undefined
    ? undefined
    : (result.aim.max === undefined || result.ratio <= result.aim.max) && (result.aim.min === undefined || result.ratio >= result.aim.min);
  appendFileSync(file, `${JSON.stringify({ ...result, ratio: Number(result.ratio.toFixed(2)), pass })}\n`);
}

/** Median of a list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
