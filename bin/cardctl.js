#!/usr/bin/env node
// The entry, and the one place for the process-wide settings cardctl runs with, each with what it
// buys; then the CLI (dist/cli.js, built by scripts/build.mjs). CommonJS (bin/package.json): a
// CommonJS entry starts a few milliseconds sooner than an ES module one.
'use strict';
const { enableCompileCache } = require('node:module');
const { statSync } = require('node:fs');
const { homedir } = require('node:os');
const { dirname, isAbsolute, join } = require('node:path');

// Node's compile cache (Node >= 22.1) in this user's cache directory: a start skips parsing and
// compiling the modules an earlier start compiled.
const cacheDir = compileCacheDir(process.env);
if (cacheDir && enableCompileCache) {
  try { enableCompileCache(cacheDir); } catch { /* not writable: run without it */ }
}

// A proxy in the environment makes the client take undici (src/api/client.ts), whose HTTP parser
// is WebAssembly: V8's baseline compiler alone spares the optimising one's work on it during the
// first answers, ~95 ms of a one-request command.
if (['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) => process.env[name])) {
  require('node:v8').setFlagsFromString('--liftoff-only');
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // The call scripts make most, answered without loading the CLI: 1.0× `node -e 0`, 1.8× through it.
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  import('../dist/cli.js')
    .then(({ main }) => main(argv))
    .then((code) => { process.exitCode = code; });
}

/**
 * This user's cache directory for cardctl ($XDG_CACHE_HOME/cardctl, or the platform's), never the
 * package folder, which may be read-only or shared. Undefined when the directory would be made in
 * one that belongs to another user (`sudo` keeping HOME or XDG_CACHE_HOME): root never leaves a
 * folder of its own in a user's home.
 */
function compileCacheDir(env) {
  const dir = process.platform === 'win32' ? join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'cardctl', 'Cache')
    : process.platform === 'darwin' ? join(homedir(), 'Library', 'Caches', 'cardctl')
    : join(env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), '.cache'), 'cardctl');
  return !process.getuid || ownedByThisUser(dir) ? dir : undefined;
}

/** Whether `path`, or the nearest folder above it that exists, belongs to this process's user. */
function ownedByThisUser(path) {
  for (let at = path; ; at = dirname(at)) {
    try {
      return statSync(at).uid === process.getuid();
    } catch (error) {
      if (error.code !== 'ENOENT' || at === dirname(at)) return false;
    }
  }
}
