#!/usr/bin/env node
// Thin entry: everything lives in the bundle (dist/cli.js, an ES module). This file is CommonJS
// (bin/package.json says so) because a CommonJS entry starts about 5 ms sooner than an ES module
// one, and the two calls scripts make most often are answered here without loading the bundle
// (bench/startup.mjs measures both against `node -e 0`):
// - `cardctl --version`, from package.json;
// - `cardctl [command…] --help`, from dist/help-cache.json, the pages the bundle rendered when it
//   was built (src/help/help-cache.ts), when stdout is a pipe or exactly as wide as they were
//   rendered. Anything else, or a missing cache, takes the full path.
// The V8 compile cache (Node >= 22.1) makes later start-ups skip parsing; on Node 20 it is absent.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const argv = process.argv.slice(2);
// `cardctl --help | head -1`: the reader going away is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
  process.stdout.write(`${version}\n`);
} else if (!printCachedHelp(argv)) {
  const module = require('node:module');
  if (typeof module.enableCompileCache === 'function' && !process.env.NODE_DISABLE_COMPILE_CACHE) {
    try { module.enableCompileCache(); } catch { /* cache dir not writable: run without it */ }
  }
  import('../dist/cli.js')
    .then(({ main }) => main(argv))
    .then((code) => { process.exitCode = code; });
}

/** Prints the cached page for `cardctl WORD… --help` (or -h) and returns true, if there is one. */
function printCachedHelp(args) {
  const last = args[args.length - 1];
  if (last !== '--help' && last !== '-h') return false;
  const words = args.slice(0, -1);
  if (!words.every((word) => /^[a-z][a-z0-9-]*$/.test(word))) return false;
  let cache;
  try {
    cache = JSON.parse(readFileSync(join(__dirname, '..', 'dist', 'help-cache.json'), 'utf8'));
  } catch {
    return false;
  }
  if (process.stdout.isTTY && process.stdout.columns !== cache.width) return false;
  const key = words.join(' ');
  const page = Object.hasOwn(cache.pages, key) ? cache.pages[key] : undefined;
  if (typeof page !== 'string') return false;
  process.stdout.write(page);
  return true;
}
