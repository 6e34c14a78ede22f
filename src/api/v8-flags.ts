// V8 settings for cardctl's own client process, set at run time through node:v8 because cardctl
// is started as `cardctl …` by shells and scripts, where no node flags can be passed. Both flags
// exist in every V8 since Node 20's (test/unit/v8-flags.test.ts checks that setting them prints
// nothing: V8 prints "unrecognized flag" to stderr for a flag it does not know).
import { setFlagsFromString } from 'node:v8';

export const BASELINE_WASM_FLAG = '--liftoff-only';
export const BOUNDED_YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1';

let baselineWasm = false;
let boundedYoungGeneration = false;

/**
 * WebAssembly compiled by V8's baseline compiler (Liftoff) only. undici parses HTTP with llhttp
 * compiled to WebAssembly, and V8's optimising compiler works on its large state machine during
 * the first responses: on Node 20 that is about 100 ms of wall time and 35 MB of peak memory in
 * every command that makes a request (bench/commands.mjs, BENCHMARKS.md), paid again by every
 * process, for a parser that parses an API's answers fast enough unoptimised (a 100,000-row
 * `tx list --all` also got faster). Call before undici's parser is first used.
 */
export function useBaselineWasmCompiler(): void {
  if (baselineWasm) return;
  baselineWasm = true;
  setFlagsFromString(BASELINE_WASM_FLAG);
}

/**
 * Keeps V8's young generation at its starting size while pages stream (`cards list --all`,
 * `tx list --all`): each page is parsed, printed and dropped, so a larger young generation only
 * holds more garbage. On Node 20 this keeps peak RSS flat (about 106 MB at 10,000 and at 100,000
 * transactions instead of 113 → 139 MB) for about 10 % more CPU in the client. V8 versions that
 * clamp the factor to 2 ignore it.
 */
export function boundYoungGeneration(): void {
  if (boundedYoungGeneration) return;
  boundedYoungGeneration = true;
  setFlagsFromString(BOUNDED_YOUNG_GENERATION_FLAG);
}
