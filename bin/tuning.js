// The process-wide settings cardctl runs with, set once, by bin/cardctl.js, around loading the
// bundle (loadTuned). cardctl is started as `cardctl …` by shells and scripts, where no node flags can be
// given, so they are set here at run time. Each one is kept for what it buys on a path people run
// in loops, measured on Node 20 and 24 (BENCHMARKS.md); test/unit/tuning.test.ts checks that the running
// V8 knows every flag (an unknown one would print an error in front of every command's output).
'use strict';
const v8 = require('node:v8');
const nodeModule = require('node:module');

const V8_FLAGS = [
  // WebAssembly by V8's baseline compiler only. undici, the client's transport behind a proxy
  // (src/api/client.ts), parses HTTP with llhttp compiled to WebAssembly, which V8's optimising
  // compiler otherwise works on during the first responses of every process: a one-request
  // command over undici took 288 ms and 97 MB peak RSS without it, 193 ms and 62 MB with it.
  '--liftoff-only',
  // The young generation kept at its first size: a streamed list's pages are garbage as soon
  // as they are printed, but each page's text outlives the scavenges that run while it is, and
  // V8 grows the young generation to its maximum for them. `tx list --all` of 100,000
  // transactions peaks at 70 MB instead of 93-109 MB on Node 20, 80 instead of 231-250 MB on
  // Node 24, for 11-16 % more client CPU on Node 24 and none measured on Node 20 (BENCHMARKS.md,
  // "Streaming on Node 20 and 24"). Node 20, 24 and 26 honour it when set at run time.
  '--semi-space-growth-factor=1',
  // The old generation let grow by half its live size between full GCs, where V8 would let a
  // small heap grow by up to 4×: a bulk run's requests outlive a scavenge or two and are promoted,
  // then die there. `cards deactivate --from-file` peaked at 78 MB for 10,000 rows and 98 MB for
  // 100,000 (heap in use at the peak 24 and 43 MB, live after GC ~10 MB) without it, 74 and
  // 76 MB with it, for no more CPU (10.0 s against 11.9 s for the 100,000).
  '--heap-growing-percent=50',
];

// The two heap flags above keep a client's memory flat. A command that serves requests until it
// is stopped makes garbage per request instead, and a young generation held at its first size
// only scavenges it more often: `sandbox serve` in forward mode spent 6.4% of its CPU in GC with
// them and 3.2% without (profiles of the same load, BENCHMARKS.md, Simulation).
const CLIENT_HEAP_FLAGS = new Set(['--semi-space-growth-factor=1', '--heap-growing-percent=50']);
const SERVERS = [['sandbox', 'serve'], ['webhook', 'listen']];

/** The V8 flags of the command `argv` runs: all of them, but a server's without the client heap flags. */
function flagsFor(argv) {
  const server = SERVERS.some(([group, verb]) => argv.some((word, i) => word === group && argv[i + 1] === verb));
  return server ? V8_FLAGS.filter((flag) => !CLIENT_HEAP_FLAGS.has(flag)) : V8_FLAGS;
}

/**
 * Loads the bundle (`load()`) with the process set up for the command `argv` runs. The compile cache has to be on
 * before the bundle is read. The V8 flags come after: a flag changed at run time makes Node
 * compile every built-in module it loads afterwards without their embedded code cache (that
 * cache is only valid for the flags it was made with), ~7 ms of CPU a command when the flags
 * were set before the bundle loaded, ~2 ms after it; they are in place before the first request.
 */
async function loadTuned(load, argv = []) {
  // Node >= 22.1 caches compiled code on disk, so later start-ups skip parsing the bundle
  // (~27 ms of every command on this machine); Node 20 has no such cache.
  if (typeof nodeModule.enableCompileCache === 'function' && !process.env.NODE_DISABLE_COMPILE_CACHE) {
    try { nodeModule.enableCompileCache(); } catch { /* cache directory not writable: run without it */ }
  }
  const bundle = await load();
  for (const flag of flagsFor(argv)) v8.setFlagsFromString(flag);
  return bundle;
}

module.exports = { V8_FLAGS, flagsFor, loadTuned };
