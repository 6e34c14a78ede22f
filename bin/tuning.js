// The process-wide settings cardctl runs with, in one place. bin/cardctl.js loads the bundle
// through loadTuned(), which turns the compile cache on first. The V8 flags are set at run time,
// since cardctl is started as `cardctl …` by shells and scripts, where no node flags can be given,
// and each only once the work it is for begins (the bundle says so through src/core/tuning.ts):
// a flag changed at run time makes Node compile every built-in module it loads afterwards
// without their embedded code cache, ~2 ms of CPU on Node 20 and 24, and a command that makes one
// request gains nothing from them. Each flag is kept for what it buys, measured on Node 20 and 24
// (BENCHMARKS.md); test/unit/tuning.test.ts checks that the running V8 knows every one (an
// unknown flag would print an error in front of every command's output).
'use strict';
const nodeModule = require('node:module');

const FLAGS_FOR_WORK = {
  // WebAssembly by V8's baseline compiler only, set before undici is loaded. undici, the client's
  // transport behind a proxy (src/api/client.ts), the sandbox's for webhook calls, parses HTTP
  // with llhttp compiled to WebAssembly, which V8's optimising compiler otherwise works on during
  // the first responses of every process: a one-request command over undici took 288 ms and 97 MB
  // peak RSS without it, 193 ms and 62 MB with it.
  undici: ['--liftoff-only'],
  // A command's second request: a streamed list, a bulk run, an import, a load test.
  manyRequests: [
    // The old generation let grow by half its live size between full GCs, where V8 would let a
    // small heap grow by up to 4×: a bulk run's requests outlive a scavenge or two and are promoted,
    // then die there. `cards deactivate --from-file` peaked at 78 MB for 10,000 rows and 98 MB for
    // 100,000 (heap in use at the peak 24 and 43 MB, live after GC ~10 MB) without it, 74 and
    // 76 MB with it, for no more CPU (10.0 s against 11.9 s for the 100,000).
    '--heap-growing-percent=50',
  ],
  // A run over many rows (src/bulk/loop.ts: import, the bulk card verbs), many requests in flight.
  rowRun: [
    // The young generation kept at its first size: every request in flight is alive at each
    // scavenge, and V8 grows the young generation by what outlives scavenges. `cards deactivate
    // --from-file` peaked at 104-105 MB for 10,000 and 100,000 rows without it, 74 and 76 MB with
    // it, at the same throughput (16,416 and 16,645 cards/s). A streamed list does without: it
    // holds one record at a time (BENCHMARKS.md, "Streaming without a young-generation bound").
    // Node 20, 24 and 26 honour it when set at run time.
    '--semi-space-growth-factor=1',
  ],
};

// The servers (`sandbox serve`, `webhook listen`) make no requests of their own through the
// client, so they never get the heap settings: a server's garbage is made per request, and a young
// generation held at its first size only scavenges it more often (`sandbox serve` in forward mode
// spent 6.4% of its CPU in GC with them and 3.2% without; BENCHMARKS.md, Simulation).

/**
 * The function that sets the flags of a kind of work, each set at most once, with `setFlag`; its
 * `begun` holds the kinds of work whose flags it has set.
 */
function tuner(setFlag) {
  const begun = new Set();
  const begin = (work) => {
    if (begun.has(work) || !Object.hasOwn(FLAGS_FOR_WORK, work)) return;
    begun.add(work);
    for (const flag of FLAGS_FOR_WORK[work]) setFlag(flag);
  };
  begin.begun = begun;
  return begin;
}

// Where the bundle finds the tuner (src/core/tuning.ts); unset in tests, which run main() in
// their own process and set nothing.
const TUNER = Symbol.for('cardctl.tuner');

/** Whether this process has set any V8 flag (bin/code-cache.js: a cache made so is of no use to the next). */
function changedFlags() {
  return (globalThis[TUNER]?.begun.size ?? 0) > 0;
}

/**
 * Loads the bundle (`load()`) with the process set up for it. The compile cache has to be on
 * before the bundle is read; the tuner is handed to it for the V8 flags.
 */
async function loadTuned(load) {
  // Node >= 22.1 caches compiled code on disk, so later start-ups skip parsing the bundle
  // (~27 ms of every command on this machine); Node 20 has no such cache.
  if (typeof nodeModule.enableCompileCache === 'function' && !process.env.NODE_DISABLE_COMPILE_CACHE) {
    try { nodeModule.enableCompileCache(); } catch { /* cache directory not writable: run without it */ }
  }
  globalThis[TUNER] = tuner((flag) => require('node:v8').setFlagsFromString(flag));
  return load();
}

module.exports = { FLAGS_FOR_WORK, TUNER, changedFlags, loadTuned, tuner };
