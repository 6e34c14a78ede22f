#!/usr/bin/env node
// Thin entry: everything lives in the bundle (dist/cli.js, an ES module). This file is CommonJS
// (bin/package.json says so) because a CommonJS entry starts about 5 ms sooner than an ES module
// one, and the two calls scripts make most often are answered without loading the bundle
// (bench/startup.mjs measures both against `node -e 0`): `cardctl --version`, from package.json,
// and `cardctl [command…] --help`, from the help cache (help-cache.js). Everything else loads the
// bundle with the process set up for it (tuning.js) and runs its main().
'use strict';
const { print } = require('./print.js');
const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync } = require('node:fs');
  const { version } = JSON.parse(readFileSync(`${__dirname}/../package.json`, 'utf8'));
  print(`${version}\n`);
} else if (!require('./help-cache.js').printCachedHelp(argv)) {
  require('./tuning.js').loadTuned(() => import('../dist/cli.js'), argv)
    .then(({ main }) => main(argv))
    .then((code) => { process.exitCode = code; });
}
