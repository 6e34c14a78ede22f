#!/usr/bin/env node
// Thin entry: everything lives in the bundle. The two calls scripts make most often are answered
// here without loading it (bench/startup.mjs measures both against `node -e 0`):
// - `cardctl --version`, from package.json;
// - `cardctl [command…] --help`, from dist/help-cache.json, the pages the bundle rendered when it
//   was built (src/help/help-cache.ts), when stdout is a pipe or exactly as wide as they were
//   rendered. Anything else, or a missing cache, takes the full path.
// The V8 compile cache (Node >= 22.1) makes later start-ups skip parsing; on Node 20 it is absent.
import { readFileSync } from 'node:fs';
import module from 'node:module';

const argv = process.argv.slice(2);
// `cardctl --help | head -1`: the reader going away is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else if (!cachedHelp(argv)) {
  if (typeof module.enableCompileCache === 'function' && !process.env.NODE_DISABLE_COMPILE_CACHE) {
    try { module.enableCompileCache(); } catch { /* cache dir not writable: run without it */ }
  }
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(argv);
}

/** Prints the cached page for `cardctl WORD… --help` (or -h) and returns true, if there is one. */
function cachedHelp(args) {
  const last = args[args.length - 1];
  if (last !== '--help' && last !== '-h') return false;
  const words = args.slice(0, -1);
  if (!words.every((word) => /^[a-z][a-z0-9-]*$/.test(word))) return false;
  let cache;
  try {
    cache = JSON.parse(readFileSync(new URL('../dist/help-cache.json', import.meta.url), 'utf8'));
  } catch {
    return false;
  }
  if (process.stdout.isTTY && process.stdout.columns !== cache.width) return false;
  const page = Object.hasOwn(cache.pages, words.join(' ')) ? cache.pages[words.join(' ')] : undefined;
  if (typeof page !== 'string') return false;
  process.stdout.write(page);
  return true;
}
