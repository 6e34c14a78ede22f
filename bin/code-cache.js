// Runs a route bundle (dist/cli-<name>.cjs, CommonJS) with V8's code cache: the bytecode of every
// function the bundle's last run without a cache compiled, kept on disk and handed to V8 when
// the bundle is compiled again, so a command skips parsing and compiling most of what it runs.
// Node's own compile cache (enableCompileCache, Node >= 22.1) keeps only a file's top level, as
// compiled before it ran; this one is made after the command has run, and works on Node 20 too:
// `cards list -o json` took 42.4 ms of CPU on Node 24 with it against 49.9 from the ES module
// bundle with Node's, 68.7 against 81.6 on Node 20 (BENCHMARKS.md, "Node's floor").
//
// The cache lives beside the bundles, in dist/cache/<node version>-<arch>/, one file per bundle
// named by the bundle's size and modification time (V8 checks a cache against the length of its
// source only). So it is as private as the installation: where the installation is not writable
// (a global install by root), commands run without it. Any failure to read or write it is the same
// as no cache; a cache V8 rejects (another V8, other flags) is made again, by a run that changed
// no V8 flag (bin/cardctl.js), since V8 refuses a cache made under other flags.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire, wrap } = require('node:module');

/**
 * Loads the CommonJS file `file` with the code cache; returns its exports and save(), which
 * writes the cache when there was none or V8 refused it. Call save() once the command has run.
 */
function requireWithCodeCache(file) {
  const { size, mtimeMs } = fs.statSync(file);
  const cacheDir = path.join(path.dirname(file), 'cache', `${process.version}-${process.arch}`);
  const cacheFile = path.join(cacheDir, `${path.basename(file)}.${size}-${Math.trunc(mtimeMs)}`);
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch { /* none yet */ }
  // No import() in the bundle (scripts/build.mjs makes them require() calls): V8 would need a
  // callback for it, which Node 20 and 22 have only as an experimental feature.
  const script = new vm.Script(wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData });
  const module = { exports: {}, filename: file, loaded: false };
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
  module.loaded = true;
  const stale = cachedData === undefined || script.cachedDataRejected;
  return { exports: module.exports, save: stale ? () => writeCache(cacheDir, cacheFile, () => script.createCachedData()) : () => {} };
}

/** Writes the cache atomically, owner-only, and removes the same bundle's older caches. */
function writeCache(cacheDir, cacheFile, data) {
  try {
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, data(), { mode: 0o600 });
    fs.renameSync(temporary, cacheFile);
    const bundle = `${path.basename(cacheFile).replace(/\.[^.]*$/, '')}.`;
    for (const name of fs.readdirSync(cacheDir)) {
      if (name.startsWith(bundle) && path.join(cacheDir, name) !== cacheFile && !name.endsWith('.tmp')) fs.rmSync(path.join(cacheDir, name), { force: true });
    }
  } catch { /* not writable: the next run compiles again */ }
}

module.exports = { requireWithCodeCache };
