#!/usr/bin/env node
// One-request commands against the floor, on each Node line measured (bench/lib/nodes.mjs: the
// machine's Node and the newest LTS, or --node PATH …). The floor (bench/floor.cjs) is a CommonJS
// script that makes the same GET with node:http and prints the data: what any Node process
// answering the same question must pay. Per round, on each Node: `node -e 0`, then each command
// and the floor doing that command's request, interleaved so drifting load hits all alike.
// 3 warm-up rounds, then --rounds (default 15, at least 10); medians, and each command's ratio to
// its floor per Node version (aims: cards list and cards get ≤ 1.5×), by wall time and by CPU
// time (user + system: what a busy machine's wait for a core does not blur).
//
//   npm run build && node bench/one-request.mjs [--rounds 15] [--node PATH]… [--json]
//
// The commands: `cards list --limit 20 -o json`, `cards get ID -o json`, `tx show ID -o json` and
// `cards activate ID -o json` (the API has no GET /cards/{id}: cards get is GET /cards?cardId=;
// activate on an active card: the sandbox writes it again and answers the card,
// the same request every time). The sandbox (on the machine's Node) holds 20 cards and one
// transaction.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, makeWorkDir, startSandbox } from './lib/processes.mjs';
import { benchNodes } from './lib/nodes.mjs';
import { cpuProbe } from './lib/cpu.mjs';
import { median, reportRatio } from './lib/results.mjs';
import { cardBody, defaultPinFor, postCard } from './lib/seed.mjs';
import { args, option } from './lib/args.mjs';

const ROUNDS = Math.max(10, Number(option('rounds', 15)));
const WARMUP = 3;
const SEED = 20;
const FLOOR = fileURLToPath(new URL('./floor.cjs', import.meta.url));
const asJson = args.includes('--json');

if (!existsSync(fileURLToPath(new URL('../dist/cli.js', import.meta.url)))) {
  console.error('error: dist/cli.js is missing; run `npm run build` first');
  process.exit(2);
}
const nodes = benchNodes(args);
const work = makeWorkDir('one-request');

// ---- sandbox and seed ----
const sandbox = await startSandbox({ CARDCTL_CONFIG_DIR: join(work, 'sandbox'), CARDCTL_DATA_DIR: join(work, 'sandbox'), CI: '1' });
const api = async (method, path, body) => {
  const res = await fetch(`${sandbox.baseUrl}${path}`, {
    method, headers: { authorization: `Bearer ${sandbox.token}`, ...(body && { 'content-type': 'application/json' }) }, body: body && JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
};
const defaultPIN = await defaultPinFor(sandbox);
const startDate = new Date().toISOString();
const expiryDate = new Date(Date.now() + 2 * 365 * 86_400_000).toISOString();
for (let i = 0; i < SEED; i++) {
  await postCard(sandbox, cardBody(i, { cardProgram: sandbox.cardProgramId, defaultPIN, startDate, expiryDate, name: 'Seed' }));
}
const cardId = (await api('GET', '/institutions/cards?limit=1')).data[0].id;
await api('POST', '/institutions/switch/simulate', { intent: 'authorization', processingFlow: 'purchase', amount: 12.5, cardId, responseMode: 'stub' });
const txId = (await api('GET', '/institutions/transactions?limit=1')).data[0].id;

// ---- the cases: each command beside the floor making its request ----
// Config and data (the audit journal of the activations) in the work directory, never the user's.
const cliEnv = { ...process.env, NO_COLOR: '1', CI: '1' };
for (const name of Object.keys(cliEnv)) if (name.startsWith('CARDCTL_')) delete cliEnv[name];
Object.assign(cliEnv, { CARDCTL_CONFIG_DIR: join(work, 'config'), CARDCTL_DATA_DIR: join(work, 'data'), CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token });

// Each check reads the command's output and the floor's (the floor prints the API's data as is).
const commands = [
  { name: 'cards list --limit 20 -o json', argv: ['cards', 'list', '--limit', '20', '-o', 'json'], path: '/institutions/cards?limit=20', aim: 1.5, check: (out) => JSON.parse(out).length === SEED },
  { name: 'cards get -o json', argv: ['cards', 'get', cardId, '-o', 'json'], path: `/institutions/cards?cardId=${cardId}&limit=1`, aim: 1.5, check: (out) => [JSON.parse(out)].flat()[0].id === cardId },
  { name: 'tx show -o json', argv: ['tx', 'show', txId, '-o', 'json'], path: `/institutions/transactions/${txId}`, check: (out) => JSON.parse(out).id === txId },
  { name: 'cards activate -o json', argv: ['cards', 'activate', cardId, '-o', 'json'], path: `/institutions/cards/${cardId}/activate`, check: (out) => JSON.parse(out).status === 'active' },
];
const cases = [{ name: 'node -e 0', argv: ['-e', '0'], env: process.env }];
for (const command of commands) {
  cases.push({ name: `floor: GET ${command.path.replace(cardId, '{card}').replace(txId, '{tx}')}`, argv: [FLOOR], env: { ...process.env, URL: `${sandbox.baseUrl}${command.path}`, TOKEN: sandbox.token }, check: command.check });
  cases.push({ name: `cardctl ${command.name}`, argv: [BIN, ...command.argv], env: cliEnv, check: command.check, aim: command.aim, floor: cases.length - 1 });
}

/** One run of case `c` on `node`: its wall time and its CPU time (bench/lib/cpu.mjs), in ms. */
function once(node, c) {
  const cpu = cpuProbe();
  const started = process.hrtime.bigint();
  const result = spawnSync(node.path, [...cpu.args, ...c.argv], { env: { ...c.env, ...cpu.env }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 << 20 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${node.label} ${c.name} exited ${result.status ?? result.signal}: ${result.stderr}`);
  if (c.check && !c.check(String(result.stdout))) throw new Error(`${node.label} ${c.name}: unexpected output ${String(result.stdout).slice(0, 200)}`);
  return { ms, cpuMs: cpu.readMs() };
}

const loadAtStart = loadavg()[0];
const samples = nodes.map(() => cases.map(() => []));
const cpuSamples = nodes.map(() => cases.map(() => []));
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  nodes.forEach((node, n) => cases.forEach((c, i) => {
    const { ms, cpuMs } = once(node, c);
    if (round >= WARMUP) samples[n][i].push(ms);
    if (round >= WARMUP) cpuSamples[n][i].push(cpuMs);
  }));
}
const loadAtEnd = loadavg()[0];

// ---- report ----
const note = `median of ${ROUNDS} interleaved rounds after ${WARMUP} warm-up rounds, load average ${loadAtStart.toFixed(1)} → ${loadAtEnd.toFixed(1)}`;
const results = nodes.map((node, n) => {
  const rows = cases.map((c, i) => ({
    name: c.name,
    medianMs: Number(median(samples[n][i]).toFixed(1)),
    minMs: Number(Math.min(...samples[n][i]).toFixed(1)),
    cpuMs: Number(median(cpuSamples[n][i]).toFixed(1)),
    cpuRatio: c.floor === undefined ? undefined : Number((median(cpuSamples[n][i]) / median(cpuSamples[n][c.floor])).toFixed(2)),
    floorRatio: c.floor === undefined ? undefined : Number((median(samples[n][i]) / median(samples[n][c.floor])).toFixed(2)),
    nodeRatio: Number((median(samples[n][i]) / median(samples[n][0])).toFixed(2)),
  }));
  cases.forEach((c, i) => {
    if (c.floor === undefined) return;
    reportRatio({
      bench: 'one-request', name: `${c.name} (${node.label})`, value: rows[i].medianMs, unit: 'ms',
      peer: `floor.cjs, same GET (${node.label})`, peerValue: rows[c.floor].medianMs, ratio: median(samples[n][i]) / median(samples[n][c.floor]),
      aim: c.aim && { max: c.aim }, note,
    });
    reportRatio({
      bench: 'one-request', name: `${c.name} (${node.label}), CPU`, value: rows[i].cpuMs, unit: 'ms',
      peer: `floor.cjs, same GET (${node.label}), CPU`, peerValue: rows[c.floor].cpuMs, ratio: median(cpuSamples[n][i]) / median(cpuSamples[n][c.floor]),
      aim: c.aim && { max: c.aim }, note,
    });
  });
  return { node: node.version, rows };
});
const machine = { cpus: cpus().length, platform: `${process.platform}-${process.arch}`, rounds: ROUNDS, date: new Date().toISOString(), load: [loadAtStart, loadAtEnd] };

if (asJson) {
  console.log(JSON.stringify({ machine, results }));
} else {
  console.log(`one-request commands, ${note} (${machine.cpus} CPUs, ${machine.platform})`);
  for (const { node, rows } of results) {
    console.log(`\nnode ${node}`);
    console.log(`${'command'.padEnd(54)}${'median'.padStart(11)}${'min'.padStart(11)}${'/floor'.padStart(8)}${'/node -e 0'.padStart(11)}${'CPU'.padStart(10)}${'/floor'.padStart(8)}  aim`);
    rows.forEach((r, i) => {
      const aim = cases[i].aim;
      const verdict = aim === undefined ? '' : `≤ ${aim}× ${r.floorRatio <= aim ? 'OK' : 'MISSED'}`;
      console.log(`${r.name.padEnd(54)}${`${r.medianMs} ms`.padStart(11)}${`${r.minMs} ms`.padStart(11)}${(r.floorRatio === undefined ? '' : `${r.floorRatio}×`).padStart(8)}${`${r.nodeRatio}×`.padStart(11)}${`${r.cpuMs} ms`.padStart(10)}${(r.cpuRatio === undefined ? '' : `${r.cpuRatio}×`).padStart(8)}  ${verdict}`);
    });
  }
}
process.exit(0);
