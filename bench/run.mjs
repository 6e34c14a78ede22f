#!/usr/bin/env node
// Runs benchmarks: `npm run bench` runs every bench/*.mjs (except this file), in name order;
// `npm run bench -- startup` or `node bench/run.mjs startup.mjs other.mjs` runs only those.
// Each benchmark is its own Node process, so one cannot warm the caches of the next.
// At the end it prints one table of every ratio the benchmarks reported (bench/lib/results.mjs):
// what was measured, the peer it was measured beside in the same run, the ratio and the aim.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
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

const resultsDir = mkdtempSync(join(tmpdir(), 'cardctl-bench-results-'));
const resultsFile = join(resultsDir, 'results.ndjson');
const startedAt = new Date();
let failed = 0;
for (const file of chosen) {
  console.log(`\n== ${file} ==`);
  const result = spawnSync(process.execPath, [join(here, file), ...passThrough], { stdio: 'inherit', env: { ...process.env, BENCH_RESULTS_FILE: resultsFile } });
  if (result.status !== 0) {
    failed++;
    console.error(`bench/${file} failed (exit ${result.status ?? result.signal})`);
  }
}
printSummary();
rmSync(resultsDir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);

function printSummary() {
  const results = existsSync(resultsFile)
    ? readFileSync(resultsFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
    : [];
  if (!results.length) return;
  const figure = (value, unit) => (value === undefined ? '' : `${Number(value.toFixed(value < 10 ? 2 : 1))}${unit ? ` ${unit}` : ''}`);
  const aimText = (aim) => (!aim ? '' : [aim.min !== undefined && `≥ ${aim.min}`, aim.max !== undefined && `≤ ${aim.max}`].filter(Boolean).join(', '));
  const rows = results.map((r) => [
    r.bench, r.name, figure(r.value, r.unit), r.peer, figure(r.peerValue, r.unit), `${r.ratio}`, aimText(r.aim), r.pass === undefined ? '' : r.pass ? 'ok' : 'MISSED',
  ]);
  const header = ['bench', 'measured', 'value', 'peer (same run)', 'peer value', 'ratio', 'aim', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
  console.log(`\n== summary: every ratio, with its peer ==`);
  console.log(`${cpus().length} CPUs, node ${process.version}, ${process.platform}-${process.arch}, started ${startedAt.toISOString()}, load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
  const missed = results.filter((r) => r.pass === false).length;
  console.log(missed ? `${missed} of ${results.filter((r) => r.pass !== undefined).length} aims missed (timings are not pass/fail in CI; see BENCHMARKS.md)` : 'every aim met');
}
