#!/usr/bin/env node
// Start-up time of the built CLI against a bare Node start, measured in the same run:
// `node -e 0`, `cardctl --version`, `cardctl --help` and `cardctl cards list --help` (answered by
// bin/cardctl.js from package.json and the help cache), and `cardctl alias list` (the full path:
// bundle, command tree, config read; no network), interleaved (one of each per round, so drift
// in machine load hits all alike), median of RUNS rounds (default 20, env BENCH_RUNS), after
// WARMUP rounds that are not counted. Prints medians and ratios to `node -e 0`.
// `--json` prints the figures as one JSON object. Needs a build (npm run build).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, reportRatio } from './lib/results.mjs';

const bin = fileURLToPath(new URL('../bin/cardctl.js', import.meta.url));
const dist = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
if (!existsSync(dist)) {
  console.error('error: dist/cli.js is missing; run `npm run build` first');
  process.exit(2);
}
const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 20));
const WARMUP = 3;
const asJson = process.argv.includes('--json');

const configDir = mkdtempSync(join(tmpdir(), 'cardctl-bench-'));
const env = { ...process.env, NO_COLOR: '1' };
for (const key of Object.keys(env)) if (key.startsWith('CARDCTL_')) delete env[key];
// Config and data both in the work directory: a benchmark never touches the user's.
Object.assign(env, { CARDCTL_CONFIG_DIR: configDir, CARDCTL_DATA_DIR: configDir });

const cases = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'cardctl --version', args: [bin, '--version'], aim: { max: 1.2 } },
  { name: 'cardctl --help', args: [bin, '--help'], aim: { max: 1.2 } },
  { name: 'cardctl cards list --help', args: [bin, 'cards', 'list', '--help'], aim: { max: 1.2 } },
  { name: 'cardctl alias list', args: [bin, 'alias', 'list'] },
];

function once(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const samples = cases.map(() => []);
try {
  for (let round = 0; round < WARMUP + RUNS; round++) {
    cases.forEach((c, i) => {
      const ms = once(c.args);
      if (round >= WARMUP) samples[i].push(ms);
    });
  }
} finally {
  rmSync(configDir, { recursive: true, force: true });
}

const baseline = median(samples[0]);
const rows = cases.map((c, i) => ({
  name: c.name,
  medianMs: Number(median(samples[i]).toFixed(1)),
  minMs: Number(Math.min(...samples[i]).toFixed(1)),
  ratio: Number((median(samples[i]) / baseline).toFixed(2)),
}));
for (const [i, row] of rows.entries()) {
  if (i === 0) continue;
  reportRatio({ bench: 'startup', name: row.name, value: row.medianMs, unit: 'ms', peer: 'node -e 0', peerValue: rows[0].medianMs, ratio: row.ratio, aim: cases[i].aim, note: `median of ${RUNS} interleaved runs` });
}
const machine = { cpus: cpus().length, node: process.version, platform: `${process.platform}-${process.arch}`, runs: RUNS, date: new Date().toISOString() };

if (asJson) {
  console.log(JSON.stringify({ machine, results: rows }));
} else {
  console.log(`start-up, median of ${RUNS} interleaved runs (${machine.cpus} CPUs, node ${machine.node}, ${machine.platform})`);
  console.log(`${'command'.padEnd(28)}${'median'.padStart(10)}${'min'.padStart(10)}${'ratio'.padStart(8)}`);
  for (const r of rows) console.log(`${r.name.padEnd(28)}${`${r.medianMs} ms`.padStart(10)}${`${r.minMs} ms`.padStart(10)}${`${r.ratio}×`.padStart(8)}`);
  for (const [i, row] of rows.entries()) {
    if (cases[i].aim && row.ratio > cases[i].aim.max) console.log(`note: ${row.name} is ${row.ratio}× a bare node start (aim: ≤ ${cases[i].aim.max}×)`);
  }
}
