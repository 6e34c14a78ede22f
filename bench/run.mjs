#!/usr/bin/env node
// Runs benchmarks: `npm run bench` runs every bench/*.mjs (except this file), in name order;
// `npm run bench -- startup` or `node bench/run.mjs startup.mjs other.mjs` runs only those.
// Each benchmark is its own Node process, so one cannot warm the caches of the next.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const self = basename(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const passThrough = args.includes('--') ? args.slice(args.indexOf('--') + 1) : [];
const names = (args.includes('--') ? args.slice(0, args.indexOf('--')) : args).filter((a) => !a.startsWith('-'));

const all = readdirSync(here).filter((f) => f.endsWith('.mjs') && f !== self).sort();
const chosen = names.length
  ? names.map((n) => {
    const file = basename(n).endsWith('.mjs') ? basename(n) : `${basename(n)}.mjs`;
    if (!existsSync(join(here, file))) {
      console.error(`error: no benchmark bench/${file} (available: ${all.join(', ') || 'none'})`);
      process.exit(2);
    }
    return file;
  })
  : all;

let failed = 0;
for (const file of chosen) {
  console.log(`\n== ${file} ==`);
  const result = spawnSync(process.execPath, [join(here, file), ...passThrough], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.error(`bench/${file} failed (exit ${result.status ?? result.signal})`);
  }
}
process.exit(failed ? 1 : 0);
