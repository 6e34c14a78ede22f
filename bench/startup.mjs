#!/usr/bin/env node
// Start-up time of the built CLI against a bare Node start, measured in the same run:
// `node -e 0`, `cardctl --version` (answered by bin/cardctl.js from package.json), `cardctl
// --help` and `cardctl cards list --help` (the CLI and the command tree), and `cardctl alias list`
// (the full path: CLI, command tree, config read; no network), interleaved (one of each per round, so drift
// in machine load hits all alike), median of RUNS rounds (default 20, env BENCH_RUNS), after
// WARMUP rounds that are not counted. Prints medians and ratios to `node -e 0`, per Node line
// measured (bench/lib/nodes.mjs: the machine's Node and the newest LTS, or `--node PATH`…),
// every Node's runs interleaved in the same rounds; by wall time and by CPU time (user + system,
// which a busy machine's wait for a core does not blur). BENCH_WRANGLER=PATH (wrangler's
// bin/wrangler.js, e.g. from `npm i --prefix /tmp/wr wrangler --ignore-scripts`) adds
// `wrangler --version` on each Node: another Node CLI's start, as a peer.
// `--json` prints the figures as one JSON object. Needs a build (npm run build).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchNodes } from './lib/nodes.mjs';
import { cpuProbe } from './lib/cpu.mjs';
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
const nodes = benchNodes(process.argv.slice(2));

const configDir = mkdtempSync(join(tmpdir(), 'cardctl-bench-'));
const env = { ...process.env, NO_COLOR: '1' };
for (const key of Object.keys(env)) if (key.startsWith('CARDCTL_')) delete env[key];
// Config and data both in the work directory: a benchmark never touches the user's.
Object.assign(env, { CARDCTL_CONFIG_DIR: configDir, CARDCTL_DATA_DIR: configDir });

const cases = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'cardctl --version', args: [bin, '--version'], aim: { max: 1.1 } },
  { name: 'cardctl --help', args: [bin, '--help'], aim: { max: 2 } },
  { name: 'cardctl cards list --help', args: [bin, 'cards', 'list', '--help'], aim: { max: 1.5 } },
  { name: 'cardctl alias list', args: [bin, 'alias', 'list'], aim: { max: 1.3 } },
  ...(process.env.BENCH_WRANGLER ? [{ name: 'wrangler --version (peer)', args: [process.env.BENCH_WRANGLER, '--version'] }] : []),
];

/** One run: its wall time and its CPU time (bench/lib/cpu.mjs), in ms. */
function once(node, args) {
  const cpu = cpuProbe();
  const started = process.hrtime.bigint();
  const result = spawnSync(node.path, [...cpu.args, ...args], { env: { ...env, ...cpu.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${node.label} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms, cpuMs: cpu.readMs() };
}

const loadAtStart = loadavg()[0];
const samples = nodes.map(() => cases.map(() => []));
const cpuSamples = nodes.map(() => cases.map(() => []));
try {
  for (let round = 0; round < WARMUP + RUNS; round++) {
    nodes.forEach((node, n) => cases.forEach((c, i) => {
      const { ms, cpuMs } = once(node, c.args);
      if (round >= WARMUP) samples[n][i].push(ms);
      if (round >= WARMUP) cpuSamples[n][i].push(cpuMs);
    }));
  }
} finally {
  rmSync(configDir, { recursive: true, force: true });
}
const loadAtEnd = loadavg()[0];

const note = `median of ${RUNS} interleaved runs, load average ${loadAtStart.toFixed(1)} → ${loadAtEnd.toFixed(1)}`;
const results = nodes.map((node, n) => {
  const baseline = median(samples[n][0]);
  const rows = cases.map((c, i) => ({
    name: c.name,
    medianMs: Number(median(samples[n][i]).toFixed(1)),
    minMs: Number(Math.min(...samples[n][i]).toFixed(1)),
    ratio: Number((median(samples[n][i]) / baseline).toFixed(2)),
    cpuMs: Number(median(cpuSamples[n][i]).toFixed(1)),
    cpuRatio: Number((median(cpuSamples[n][i]) / median(cpuSamples[n][0])).toFixed(2)),
  }));
  for (const [i, row] of rows.entries()) {
    if (i === 0) continue;
    reportRatio({ bench: 'startup', name: `${row.name} (${node.label})`, value: row.medianMs, unit: 'ms', peer: `node -e 0 (${node.label})`, peerValue: rows[0].medianMs, ratio: median(samples[n][i]) / baseline, aim: cases[i].aim, note });
    reportRatio({ bench: 'startup', name: `${row.name} (${node.label}), CPU`, value: row.cpuMs, unit: 'ms', peer: `node -e 0 (${node.label}), CPU`, peerValue: rows[0].cpuMs, ratio: median(cpuSamples[n][i]) / median(cpuSamples[n][0]), aim: cases[i].aim, note });
  }
  return { node: node.version, rows };
});
const machine = { cpus: cpus().length, platform: `${process.platform}-${process.arch}`, runs: RUNS, date: new Date().toISOString(), load: [loadAtStart, loadAtEnd] };

if (asJson) {
  console.log(JSON.stringify({ machine, results }));
} else {
  console.log(`start-up, ${note} (${machine.cpus} CPUs, ${machine.platform})`);
  for (const { node, rows } of results) {
    console.log(`\nnode ${node}`);
    console.log(`${'command'.padEnd(28)}${'median'.padStart(10)}${'min'.padStart(10)}${'ratio'.padStart(8)}${'CPU'.padStart(10)}${'ratio'.padStart(8)}`);
    for (const r of rows) console.log(`${r.name.padEnd(28)}${`${r.medianMs} ms`.padStart(10)}${`${r.minMs} ms`.padStart(10)}${`${r.ratio}×`.padStart(8)}${`${r.cpuMs} ms`.padStart(10)}${`${r.cpuRatio}×`.padStart(8)}`);
    for (const [i, row] of rows.entries()) {
      if (cases[i].aim && row.ratio > cases[i].aim.max) console.log(`note: ${row.name} is ${row.ratio}× a bare node start (aim: ≤ ${cases[i].aim.max}×)`);
    }
  }
}
