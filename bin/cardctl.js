#!/usr/bin/env node
// Thin entry: everything lives in the bundles (scripts/build.mjs): a route bundle per top-level
// command (dist/cli-<name>.cjs, run with V8's code cache by code-cache.js) and the whole CLI
// (dist/cli.js, ES modules), for any other command line and for what needs every command. This
// file is CommonJS (bin/package.json says so) because a CommonJS entry starts about 5 ms sooner
// than an ES module one, and the two calls scripts make most often are answered without loading
// a bundle (bench/startup.mjs measures both against `node -e 0`): `cardctl --version`, from
// package.json, and `cardctl [command…] --help`, from the help cache (help-cache.js). Everything
// else loads its bundle with the process set up for it (tuning.js) and runs its main(); the code
// cache is written once the command is done, so it holds all the command compiled.
'use strict';
const argv = process.argv.slice(2);
let page;

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { version } = JSON.parse(require('node:fs').readFileSync(`${__dirname}/../package.json`, 'utf8'));
  print(`${version}\n`);
} else if ((argv.at(-1) === '--help' || argv.at(-1) === '-h') && (page = require('./help-cache.js').cachedHelp(argv.slice(0, -1))) !== undefined) {
  print(page);
} else {
  const route = routeBundle(argv[0]);
  const tuning = require('./tuning.js');
  let saveCache = () => {};
  tuning.loadTuned(async () => {
    const whole = () => import('../dist/cli.js');
    if (!route) return whole();
    const loaded = require('./code-cache.js').requireWithCodeCache(route);
    saveCache = loaded.save;
    return { main: loaded.exports.default(whole) };
  })
    .then(({ main }) => main(argv))
    .then((code) => {
      process.exitCode = code;
      // V8 refuses a cache made under other flags than its own: one made after a command of many
      // requests set the heap flags would be refused by every one-request command after it.
      if (!tuning.changedFlags()) saveCache();
    });
}

/**
 * The route bundle of the top-level command `word` names, when the build made one
 * (dist/cli-<name>.cjs: one file where the whole CLI, dist/cli.js, loads ~50), else undefined.
 */
function routeBundle(word) {
  const file = /^[a-z]+$/.test(word ?? '') && `${__dirname}/../dist/cli-${word}.cjs`;
  return file && require('node:fs').existsSync(file) ? file : undefined;
}

/**
 * Writes the answers above to fd 1 directly: creating process.stdout (a pipe's stream) costs
 * ~2.5 ms on Node 24, `--version` 1.14× of `node -e 0` against 1.02× without it (BENCHMARKS.md,
 * "Node's floor"). A reader that went away (`cardctl --help | head -1`) is not an error; a
 * non-blocking descriptor that is full takes the stream for the rest, which waits for the reader.
 */
function print(text) {
  let rest = Buffer.from(text);
  try {
    while (rest.length > 0) rest = rest.subarray(require('node:fs').writeSync(1, rest));
  } catch (error) {
    if (error.code === 'EPIPE') process.exit(0);
    // `> /dev/full`: one line and exit 2, as every other output that cannot be written.
    if (error.code !== 'EAGAIN') cannotWrite(error);
    process.stdout.on('error', (streamError) => {
      if (streamError.code === 'EPIPE') process.exit(0);
      cannotWrite(streamError);
    });
    process.stdout.write(rest);
  }
}

function cannotWrite(error) {
  process.stderr.write(`error: cannot write output: ${error.code === 'ENOSPC' ? 'no space left on the device' : error.message} (${error.code})\n`);
  process.exit(2);
}
