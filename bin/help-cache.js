// `cardctl WORD… --help` (or -h) answered from dist/help-cache.json without loading the bundle:
// the pages main() printed into a buffer when the bundle was built (src/help/help-cache.ts).
// The lookup is the command path as typed; anything else (an unknown word, a flag, a terminal of
// another width than the pages were rendered at, no cache) has no page and takes the full path.
// It buys `--help` at 1.06× of `node -e 0` instead of 1.64-1.78× (BENCHMARKS.md, "Start-up").
'use strict';
const { fstatSync, readFileSync } = require('node:fs');

/** The cached page of `cardctl WORDS… --help`, if there is one (bin/cardctl.js prints it). */
function cachedHelp(words) {
  if (!words.every((word) => /^[a-z][a-z0-9-]*$/.test(word))) return undefined;
  let cache;
  try {
    cache = JSON.parse(readFileSync(`${__dirname}/../dist/help-cache.json`, 'utf8'));
  } catch {
    return undefined;
  }
  if (isTerminal() && process.stdout.columns !== cache.width) return undefined;
  const key = words.join(' ');
  const page = Object.hasOwn(cache.pages, key) ? cache.pages[key] : undefined;
  return typeof page === 'string' ? page : undefined;
}

/**
 * Whether stdout is a terminal. Not process.stdout.isTTY, which creates the stdout stream
 * (bin/cardctl.js says why not), and node:tty only for a character device (a terminal or
 * /dev/null): loading it costs ~2 ms on Node 24, 1.08× of `node -e 0`.
 */
function isTerminal() {
  try {
    return fstatSync(1).isCharacterDevice() && require('node:tty').isatty(1);
  } catch {
    return false;
  }
}

module.exports = { cachedHelp };
