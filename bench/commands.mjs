#!/usr/bin/env node
// One-request commands against a minimal Node script doing the same request, in the same run:
// per round, `node -e 0`, a minimal undici script (GET /institutions/cards?limit=20, body to
// stdout), `cardctl cards list -o json` and `cardctl cards create --pin-stdin …`, interleaved so
// drifting machine load hits all four alike. 3 warm-up rounds, then --rounds (default 15, at
// least 10); prints medians and the ratios to the minimal script (aims: list ≤ 1.3×, create ≤ 1.5×).
//
//   npm run build && node bench/commands.mjs [--rounds 15] [--json]
//
// Every process is timed from spawn to exit. The sandbox (`cardctl sandbox serve --memory`) is
// seeded with 20 cards first, so every list prints a full page. cards create gets every required
// value by flag (no card-program lookup) and its PIN on stdin; its reference code is unique per run.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, makeWorkDir, startSandbox } from './lib/processes.mjs';
import { median, reportRatio } from './lib/results.mjs';
import { cardBody, defaultPinFor, postCard } from './lib/seed.mjs';
import { args, option } from './lib/args.mjs';

const ROUNDS = Math.max(10, Number(option('rounds', 15)));
const WARMUP = 3;
const SEED = 20;
const asJson = args.includes('--json');

if (!existsSync(fileURLToPath(new URL('../dist/cli.js', import.meta.url)))) {
  console.error('error: dist/cli.js is missing; run `npm run build` first');
  process.exit(2);
}
const work = makeWorkDir('commands');

// ---- sandbox and seed ----
const sandbox = await startSandbox({ CARDCTL_CONFIG_DIR: join(work, 'sandbox'), CARDCTL_DATA_DIR: join(work, 'sandbox'), CI: '1' });
const defaultPIN = await defaultPinFor(sandbox);
const startDate = new Date().toISOString();
const expiryDate = new Date(Date.now() + 2 * 365 * 86_400_000).toISOString();
for (let i = 0; i < SEED; i++) {
  await postCard(sandbox, cardBody(i, { cardProgram: sandbox.cardProgramId, defaultPIN, startDate, expiryDate, name: 'Seed' }));
}

// ---- the peer: one undici request, the body to stdout ----
const minimalScript = join(work, 'minimal.mjs');
const undiciUrl = new URL('../node_modules/undici/index.js', import.meta.url).href;
writeFileSync(minimalScript, `import { request } from ${JSON.stringify(undiciUrl)};
const res = await request(process.env.BASE_URL + '/institutions/cards?limit=20', {
  headers: { authorization: 'Bearer ' + process.env.TOKEN, accept: 'application/json' },
});
process.stdout.write(await res.body.text());
`);

// ---- the cases ----
const configDir = join(work, 'config');
// Config and data (the audit journal of the mutations measured) in the work directory, never the user's.
const cliEnv = { ...process.env, CARDCTL_CONFIG_DIR: configDir, CARDCTL_DATA_DIR: join(work, 'data'), CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token, CI: '1', NO_COLOR: '1' };
for (const name of Object.keys(cliEnv)) {
  if (name.startsWith('CARDCTL_') && !['CARDCTL_CONFIG_DIR', 'CARDCTL_DATA_DIR', 'CARDCTL_BASE_URL', 'CARDCTL_TOKEN'].includes(name)) delete cliEnv[name];
}
const runId = randomBytes(3).toString('hex');
let created = 0;

const cases = [
  { name: 'node -e 0', argv: () => ['-e', '0'] },
  {
    name: 'minimal undici script',
    argv: () => [minimalScript],
    env: { ...process.env, BASE_URL: sandbox.baseUrl, TOKEN: sandbox.token },
    check: (stdout) => JSON.parse(stdout).data.length === SEED,
  },
  {
    name: 'cardctl cards list -o json',
    argv: () => [BIN, 'cards', 'list', '-o', 'json'],
    env: cliEnv,
    check: (stdout) => JSON.parse(stdout).length === SEED,
  },
  {
    name: 'cardctl cards create --pin-stdin',
    argv: () => {
      const n = created++;
      return [BIN, 'cards', 'create', '--pin-stdin', '--program', sandbox.cardProgramId, '--reference', `bench-${runId}-${n}`,
        '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com', '--phone', '+2348012345678',
        '--account-number', String(4_000_000_000 + n), '--account-type', 'savings', '--bank-code', '058', '--currency', '566',
        '--embossing-name', 'ADA OBI', '--start-date', startDate.slice(0, 10), '--expiry-date', expiryDate.slice(0, 10), '-o', 'json'];
    },
    input: '4821\n',
    env: cliEnv,
    check: (stdout, argv) => JSON.parse(stdout).referenceCode === argv[argv.indexOf('--reference') + 1],
  },
];

function once(c) {
  const argv = c.argv();
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, argv, { env: c.env ?? process.env, input: c.input ?? '', stdio: 'pipe', maxBuffer: 16 << 20 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${c.name} exited ${result.status ?? result.signal}: ${result.stderr}`);
  if (c.check && !c.check(String(result.stdout), argv)) throw new Error(`${c.name}: unexpected output ${String(result.stdout).slice(0, 200)}`);
  return ms;
}

const samples = cases.map(() => []);
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  cases.forEach((c, i) => {
    const ms = once(c);
    if (round >= WARMUP) samples[i].push(ms);
  });
}

// ---- report ----
const peer = median(samples[1]);
const rows = cases.map((c, i) => ({
  name: c.name,
  medianMs: Number(median(samples[i]).toFixed(1)),
  minMs: Number(Math.min(...samples[i]).toFixed(1)),
  ratio: Number((median(samples[i]) / peer).toFixed(2)),
}));
const aims = { 'cardctl cards list -o json': 1.3, 'cardctl cards create --pin-stdin': 1.5 };
const note = `median of ${ROUNDS} interleaved rounds after ${WARMUP} warm-up rounds`;
for (const row of rows) {
  if (!(row.name in aims)) continue;
  reportRatio({
    bench: 'commands', name: row.name, value: row.medianMs, unit: 'ms',
    peer: 'minimal undici script', peerValue: rows[1].medianMs, ratio: median(samples[rows.indexOf(row)]) / peer,
    aim: { max: aims[row.name] }, note,
  });
}
const machine = { cpus: cpus().length, node: process.version, platform: `${process.platform}-${process.arch}`, rounds: ROUNDS, date: new Date().toISOString() };

if (asJson) {
  console.log(JSON.stringify({ machine, results: rows }));
} else {
  console.log(`one-request commands, ${note} (${machine.cpus} CPUs, node ${machine.node}, ${machine.platform})`);
  console.log(`${'command'.padEnd(36)}${'median'.padStart(11)}${'min'.padStart(11)}${'ratio'.padStart(8)}  aim`);
  for (const r of rows) {
    const aim = aims[r.name];
    const verdict = aim === undefined ? '' : `≤ ${aim}× ${r.ratio <= aim ? 'OK' : 'MISSED'}`;
    console.log(`${r.name.padEnd(36)}${`${r.medianMs} ms`.padStart(11)}${`${r.minMs} ms`.padStart(11)}${`${r.ratio}×`.padStart(8)}  ${verdict}`);
  }
  console.log('(ratios are to the minimal undici script)');
}
process.exit(0);
