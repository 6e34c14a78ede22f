#!/usr/bin/env node
// `cardctl cards list --all --jq '.[].id'` beside `cardctl cards list --all -o json | jq '.[].id'`
// (the system's jq), on the same sandbox in the same run: --jq must keep at least half the
// throughput of piping into jq (aim: peer time / --jq time ≥ 0.5). Both fetch the same pages; the
// difference is jq-wasm in a worker thread against a native jq in its own process.
// Wall time from spawn to exit (of both processes, for the pipe); every run must print one line
// per card. One warm-up of each, then --rounds interleaved rounds, medians reported.
//
//   npm run build && node bench/jq.mjs [--cards 1000] [--rounds 5]
//
// Skipped (exit 0, with the reason) when there is no `jq` on PATH (Debian: apt-get install jq).
import { spawn, spawnSync } from 'node:child_process';
import { BIN, makeWorkDir, startSandbox, track } from './lib/processes.mjs';
import { median, reportRatio } from './lib/results.mjs';
import { cardBody, defaultPinFor, postCard } from './lib/seed.mjs';
import { option } from './lib/args.mjs';

const CARDS = Number(option('cards', 1000));
const ROUNDS = Number(option('rounds', 5));
if (!Number.isInteger(CARDS) || CARDS < 1 || !(ROUNDS >= 1)) {
  console.error('usage: node bench/jq.mjs [--cards 1000] [--rounds 5]');
  process.exit(2);
}

const probe = spawnSync('jq', ['--version'], { encoding: 'utf8' });
if (probe.error || probe.status !== 0) {
  console.log('skipped: no jq on PATH to compare --jq with (install it, e.g. `apt-get install jq`)');
  process.exit(0);
}
const jqVersion = probe.stdout.trim();

// ---- sandbox and seed ----
const work = makeWorkDir('jq');
const sandbox = await startSandbox({ CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work, CI: '1' });
const defaultPIN = await defaultPinFor(sandbox);
const startDate = new Date().toISOString();
const expiryDate = new Date(Date.now() + 3 * 365 * 86_400_000).toISOString();
let next = 0;
const seedStarted = performance.now();
await Promise.all(Array.from({ length: 32 }, async () => {
  while (next < CARDS) {
    const i = next++;
    await postCard(sandbox, cardBody(i, { cardProgram: sandbox.cardProgramId, defaultPIN, startDate, expiryDate }));
  }
}));
console.log(`seeded ${CARDS} cards in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

const env = { ...process.env, CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work, CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token, CI: '1' };

/** Resolves { wallMs, lines } once every process of the pipeline has exited 0. */
function run(pipeline) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const children = pipeline.map(([command, argv]) => track(spawn(command, argv, { stdio: ['pipe', 'pipe', 'inherit'], env })));
    for (let i = 0; i + 1 < children.length; i++) children[i].stdout.pipe(children[i + 1].stdin);
    children[0].stdin.end();
    let lines = 0;
    children.at(-1).stdout.on('data', (chunk) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    });
    let running = children.length;
    for (const [i, child] of children.entries()) {
      child.once('exit', (code) => {
        if (code !== 0) reject(new Error(`${pipeline[i].join(' ')} exited with ${code}`));
        if (--running === 0) resolve({ wallMs: performance.now() - started, lines });
      });
    }
  });
}

const cardctlJq = [[process.execPath, [BIN, 'cards', 'list', '--all', '--jq', '.[].id']]];
const pipedJq = [[process.execPath, [BIN, 'cards', 'list', '--all', '-o', 'json']], ['jq', ['.[].id']]];
const samples = { cardctl: [], piped: [] };
for (let round = 0; round <= ROUNDS; round++) {
  for (const [name, pipeline] of [['cardctl', cardctlJq], ['piped', pipedJq]]) {
    const { wallMs, lines } = await run(pipeline);
    if (lines !== CARDS) throw new Error(`${name}: ${lines} lines for ${CARDS} cards`);
    if (round > 0) samples[name].push(wallMs); // round 0 warms up
  }
}

const ours = median(samples.cardctl);
const peer = median(samples.piped);
const ratio = peer / ours;
console.log(`\n${CARDS} cards, ${ROUNDS} rounds (medians), ${jqVersion}:`);
console.log(`  cardctl cards list --all --jq '.[].id'           ${ours.toFixed(0)} ms`);
console.log(`  cardctl cards list --all -o json | jq '.[].id'   ${peer.toFixed(0)} ms`);
console.log(`  throughput of --jq against the pipe: ${ratio.toFixed(2)}× (aim ≥ 0.5)`);
reportRatio({
  bench: 'jq',
  name: `cards list --all --jq '.[].id', ${CARDS} cards: throughput`,
  value: ours, unit: 'ms',
  peer: `-o json | ${jqVersion} '.[].id'`, peerValue: peer,
  ratio, aim: { min: 0.5 },
  note: `median of ${ROUNDS} interleaved runs; ratio = peer time / --jq time`,
});
process.exit(0);
