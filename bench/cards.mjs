#!/usr/bin/env node
// `cardctl cards list --all -o ndjson` at three sizes (1,000, 10,000 and 30,000 cards by default),
// beside a plain undici script that fetches the same pages (limit 100, the largest the API allows)
// and prints the same NDJSON, in the same run on the same sandbox. One sandbox grows from size to
// size: it is seeded up to the first size, measured, seeded up to the next, and so on.
// Wall time is measured here, from spawn to exit; peak RSS comes from /usr/bin/time -f '%e %M'
// (or process.resourceUsage().maxRSS through a preload where there is no /usr/bin/time). One
// warm-up of each client per size, then --rounds interleaved rounds, medians reported; every run
// must print exactly as many lines as there are cards.
//
//   npm run build && node bench/cards.mjs [--sizes 1000,10000,30000] [--rounds 3]
//
// Seeding goes straight to the sandbox over HTTP, 32 requests at a time, with one PIN block for
// every card (the sandbox decrypts and hashes it each time; that is most of the seeding cost:
// `defaultPIN` is required even with `pinEnabled: false`, so there is no cheaper way in).
import { listComparison } from './lib/lists.mjs';
import { makeWorkDir, startSandbox } from './lib/processes.mjs';
import { cardBody, defaultPinFor, postCard } from './lib/seed.mjs';
import { args, option } from './lib/args.mjs';

// --cards N: one size only (what this benchmark measured before it had three).
const SIZES = String(option('sizes', option('cards', '1000,10000,30000'))).split(',').map(Number).sort((a, b) => a - b);
const ROUNDS = Number(option('rounds', 3));
const PAGE = 100;
if (SIZES.some((n) => !Number.isInteger(n) || n < 1) || !(ROUNDS >= 1)) {
  console.error('usage: node bench/cards.mjs [--sizes 1000,10000,30000] [--rounds 3]');
  process.exit(2);
}

// ---- sandbox and seed ----
const work = makeWorkDir('cards');
const sandbox = await startSandbox({ CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work, CI: '1' });
const defaultPIN = await defaultPinFor(sandbox);
const startDate = new Date().toISOString();
const expiryDate = new Date(Date.now() + 3 * 365 * 86_400_000).toISOString();

let seeded = 0;
/** Creates cards until the sandbox holds `target`; resolves the seconds it took. */
async function seedTo(target) {
  const started = performance.now();
  const from = seeded;
  let next = seeded;
  async function seedWorker() {
    while (next < target) {
      const i = next++;
      await postCard(sandbox, cardBody(i, { cardProgram: sandbox.cardProgramId, defaultPIN, startDate, expiryDate }));
    }
  }
  await Promise.all(Array.from({ length: 32 }, seedWorker));
  seeded = target;
  const page = await (await fetch(`${sandbox.baseUrl}/institutions/cards?limit=1`, { headers: { authorization: `Bearer ${sandbox.token}` } })).json();
  if (page.pagination?.total !== target) throw new Error(`the sandbox lists ${page.pagination?.total} cards, expected ${target}`);
  const seconds = (performance.now() - started) / 1000;
  console.log(`seeded ${target - from} cards (to ${target}) in ${seconds.toFixed(1)} s, ${Math.round((target - from) / seconds)}/s`);
  return seconds;
}

// ---- cardctl beside the plain undici loop, size by size (tables and ratios: bench/lib/lists.mjs) ----
const list = listComparison({
  work, sandbox, bench: 'cards', args: ['cards', 'list', '--all', '-o', 'ndjson'],
  path: '/institutions/cards', noun: 'cards', rounds: ROUNDS, page: PAGE,
});
const bySize = [];
for (const size of SIZES) {
  const seedSeconds = await seedTo(size);
  bySize.push({ size, seedSeconds, ...(await list.compareAt(size)) });
}
list.printCostCurve(bySize);
// Flatness: peak RSS at the largest size against 10,000 (or the size before it).
list.reportFlatness(bySize);
process.exit(0);
