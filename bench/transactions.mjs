#!/usr/bin/env node
// `cardctl tx list --all -o ndjson` at three sizes (1,000, 10,000 and 100,000 transactions by
// default), beside a plain undici script that fetches the same pages and prints the same NDJSON,
// in the same run on the same sandbox. One sandbox grows from size to size: it is seeded up to
// the first size, measured, seeded up to the next, and so on.
//
//   npm run build && node bench/transactions.mjs [--sizes 1000,10000,100000] [--rounds 3] [--seeders 16] [--baseline OTHER/bin/cardctl.js]
//
// Page size: 100, the largest the API allows (`limit` 1-100; more is a 400). `tx list --all`
// asks for 100 a page by default; the plain script asks for the same.
// Wall time is measured here, from spawn to exit; peak RSS comes from /usr/bin/time -f '%e %M'
// (or process.resourceUsage().maxRSS through a preload where there is no /usr/bin/time). One
// warm-up of each client per size, then --rounds interleaved rounds, medians reported. Every run
// must print exactly as many lines as there are transactions. --baseline measures another build's
// cardctl in the same rounds (bench/lib/lists.mjs).
//
// Seeding goes through the real API: POST /institutions/switch/simulate in stub mode (the sandbox
// checks, builds the message, stores the transaction and approves), --seeders requests in flight,
// spread over a few cards of a program without daily limits (a limit of 0 means none).
import { Pool } from 'undici';
import { fmt, listComparison } from './lib/lists.mjs';
import { reportRatio } from './lib/results.mjs';
import { makeWorkDir, startSandbox } from './lib/processes.mjs';
import { cardBody, pinBlock } from './lib/seed.mjs';
import { args, option } from './lib/args.mjs';

const SIZES = String(option('sizes', '1000,10000,100000')).split(',').map(Number).sort((a, b) => a - b);
const ROUNDS = Number(option('rounds', 3));
const SEEDERS = Number(option('seeders', 16));
const BASELINE = option('baseline', undefined);
const CARDS = 8;
const PAGE = 100;
const RSS_BUDGET_MB = 120;
if (SIZES.some((n) => !Number.isInteger(n) || n < 1) || !(ROUNDS >= 1)) {
  console.error('usage: node bench/transactions.mjs [--sizes 1000,10000,100000] [--rounds 3] [--seeders 16] [--baseline OTHER/bin/cardctl.js]');
  process.exit(2);
}

// ---- sandbox, a program without limits, a few cards ----
const work = makeWorkDir('tx');
const sandbox = await startSandbox({ CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work, CI: '1' });
const pool = new Pool(sandbox.baseUrl, { connections: SEEDERS });
const auth = { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' };

async function api(method, path, body) {
  const res = await pool.request({ method, path, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.body.json();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: HTTP ${res.statusCode} ${JSON.stringify(json)}`);
  return json;
}

const unlimited = { enabled: true, dailyLimit: { count: 0, amount: 0 } };
const program = (await api('POST', '/sandbox/card-programs', {
  name: 'bench, no limits',
  channels: { pos: unlimited, atm: unlimited, web: unlimited },
})).data;
const pinKey = await api('GET', '/sandbox/pin-key');
const startDate = new Date().toISOString();
const expiryDate = new Date(Date.now() + 3 * 365 * 86_400_000).toISOString();
const cardIds = [];
for (let i = 0; i < CARDS; i++) {
  const defaultPIN = pinBlock(pinKey.publicKey, sandbox.pinKeyFingerprint, '4826');
  cardIds.push((await api('POST', '/institutions/cards', cardBody(i, {
    cardProgram: program.id, referenceCode: `bench-tx-${i}`, defaultPIN, startDate, expiryDate,
  }))).data.id);
}

let seeded = 0;
/** Simulates approved authorizations until the sandbox holds `target` transactions. */
async function seedTo(target) {
  const started = performance.now();
  const from = seeded;
  let next = seeded;
  const worker = async () => {
    while (next < target) {
      const i = next++;
      const answer = await api('POST', '/institutions/switch/simulate', {
        intent: 'authorization', processingFlow: 'purchase', amount: (100 + (i % 5000)) / 100,
        cardId: cardIds[i % CARDS], responseMode: 'stub',
      });
      if (answer.data?.responseCode !== '00') throw new Error(`simulation ${i} was not approved: ${JSON.stringify(answer.data)}`);
    }
  };
  await Promise.all(Array.from({ length: SEEDERS }, worker));
  seeded = target;
  const { pagination } = await api('GET', '/institutions/transactions?limit=1');
  if (pagination?.total !== target) throw new Error(`the sandbox lists ${pagination?.total} transactions, expected ${target}`);
  const seconds = (performance.now() - started) / 1000;
  console.log(`seeded ${target - from} transactions (to ${target}) in ${seconds.toFixed(1)} s, ${Math.round((target - from) / seconds)}/s`);
  return seconds;
}

// ---- cardctl beside the plain undici loop, size by size (tables and ratios: bench/lib/lists.mjs) ----
const list = listComparison({
  work, sandbox, bench: 'transactions', args: ['tx', 'list', '--all', '-o', 'ndjson'],
  path: '/institutions/transactions', noun: 'transactions', short: 'tx', rounds: ROUNDS, page: PAGE, baseline: BASELINE,
});
const bySize = [];
for (const size of SIZES) {
  const seedSeconds = await seedTo(size);
  bySize.push({ size, seedSeconds, ...(await list.compareAt(size)) });
}

const largest = bySize[bySize.length - 1];
list.printCostCurve(bySize);
reportRatio({
  bench: 'transactions',
  name: `tx list --all -o ndjson, ${fmt(largest.size)} tx (peak RSS)`,
  value: Number(largest.cardctl.rssMb.toFixed(1)), unit: 'MB',
  peer: `${RSS_BUDGET_MB} MB budget`, peerValue: RSS_BUDGET_MB,
  ratio: largest.cardctl.rssMb / RSS_BUDGET_MB,
  aim: { max: 1 },
  note: `median of ${ROUNDS} rounds; plain script ${largest.plain.rssMb.toFixed(1)} MB`,
});
// Flatness against 10,000 (or the size before the largest when 10,000 was not measured).
list.reportFlatness(bySize, { max: 1.15 });
await pool.close();
process.exit(0);
