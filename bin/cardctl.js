#!/usr/bin/env node
// The entry, and the one place for the process-wide settings cardctl runs with, each with what it
// buys; then the CLI (dist/cli.js, built by scripts/build.mjs). CommonJS (bin/package.json): a
// CommonJS entry starts a few milliseconds sooner than an ES module one. No V8 flags: the last
// one, --liftoff-only behind a proxy, now costs a one-request command ~45 ms of CPU on Node 22
// and 24 instead of saving ~95.
'use strict';
const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // The call scripts make most, answered without loading the CLI (~20 ms of CPU), and straight to
  // fd 1: making process.stdout costs ~2.5 ms, a tenth of a bare Node start.
  try {
    require('node:fs').writeSync(1, `${require('../package.json').version}\n`);
  } catch (error) {
    // A reader that went away is not an error; `> /dev/full` is one line and exit 2, as for any output.
    if (error.code !== 'EPIPE') {
      process.stderr.write(`error: cannot write output: ${error.code === 'ENOSPC' ? 'no space left on the device' : error.message} (${error.code})\n`);
      process.exitCode = 2;
    }
  }
} else {
  // Node's compile cache (Node >= 22.1) in this user's cache directory: a start skips compiling
  // what an earlier one compiled, ~10% of a one-request command's CPU on Node 24.
  const { enableCompileCache } = require('node:module');
  const cacheDir = compileCacheDir(process.env);
  if (cacheDir && enableCompileCache) {
    try { enableCompileCache(cacheDir); } catch { /* not writable: run without it */ }
  }
  import('../dist/cli.js')
    .then(({ main }) => main(argv))
    .then((code) => { process.exitCode = code; });
}

/**
 * This user's cache directory for cardctl (src/config/paths.ts, built as dist/paths.cjs), never
 * the package folder, which may be read-only or shared. Undefined when the directory would be made
 * in one that belongs to another user (`sudo` keeping HOME or XDG_CACHE_HOME): root never leaves a
 * folder of its own in a user's home.
 */
function compileCacheDir(env) {
  const dir = require('../dist/paths.cjs').userFolder('cache', env);
  return !process.getuid || ownedByThisUser(dir) ? dir : undefined;
}

/** Whether `path`, or the nearest folder above it that exists, belongs to this process's user. */
function ownedByThisUser(path) {
  const { statSync } = require('node:fs');
  const { dirname } = require('node:path');
  for (let at = path; ; at = dirname(at)) {
    try {
      return statSync(at).uid === process.getuid();
    } catch (error) {
      if (error.code !== 'ENOENT' || at === dirname(at)) return false;
    }
  }
}
