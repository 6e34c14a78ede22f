// Bulk deactivation throughput and memory: `cardctl cards deactivate --from-file` of id files of
// 10,000 and 100,000 rows (the seeded cards over and over: deactivating is safe to repeat, so
// every row is a real request), beside the sandbox's own limit for that request measured with
// autocannon in the same run (right before and right after each run; the limit is their mean).
// Prints cards/s, the ratio, and the CLI's peak RSS per size: memory must stay flat (the rows
// are streamed, never loaded), within 10% from the smallest size to the largest. A second peer,
// the floor for one Node process: a minimal undici loop sending the same requests of the same
// file at the same concurrency and pipelined the same way (no parsing, report, journal or
// progress), run right after the CLI.
// The CLI pipelines these requests (8 in flight on a connection), which saves the server reads
// as well; so the sandbox's limit is also measured with autocannon pipelining the same way
// (CONNECTIONS / 8 connections, 8 requests in flight on each), beside the plain one.
// The CLI gets as many requests in flight (--concurrency) as autocannon has connections
// (--connections, 16): the same parallelism on both sides of the ratio. 16 is also the default of
// `cards deactivate --from-file` (src/bulk/defaults.ts); at 8 the 100,000-row ratio was 0.75-0.82
// where 16 gave 0.92 and 32 gave 0.90 (2026-11-24).
//   npm run build && node bench/bulk.mjs [--sizes 10000,100000] [--cards 2000] [--connections 16] [--concurrency N] [--duration 8]
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { option } from './lib/args.mjs';
import { autocannonRate } from './lib/limit.mjs';
import { BIN, makeWorkDir, startSandbox, track } from './lib/processes.mjs';
import { reportRatio } from './lib/results.mjs';

const SIZES = String(option('sizes', '10000,100000')).split(',').map(Number).sort((a, b) => a - b);
const CARDS = Number(option('cards', 2000));
const DURATION = Number(option('duration', 8));
const CONNECTIONS = Number(option('connections', 16));
const CONCURRENCY = Number(option('concurrency', CONNECTIONS));
/** Requests in flight on one connection, as the CLI pipelines them (src/api/client.ts). */
const PIPELINING = 8;
if ([...SIZES, CARDS, CONCURRENCY].some((n) => !Number.isInteger(n) || n < 1)) {
  console.error('error: --sizes, --cards and --concurrency take whole numbers, e.g. --sizes 10000,100000');
  process.exit(2);
}

const work = makeWorkDir('bulk');
const sandbox = await startSandbox({ CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work });
const env = { ...process.env, CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work, CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_API_KEY: sandbox.apiKey, CARDCTL_TOKEN: sandbox.token };

function cli(argv, extra = {}) {
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, ...extra } }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${argv.slice(1).join(' ')} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

// The cards: imported once (the quickest way to make many), then listed for their ids.
const HEADER = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,institutionId,'
  + 'card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';
const seedFile = join(work, 'seed.csv');
writeFileSync(seedFile, `${[HEADER, ...Array.from({ length: CARDS }, (_, i) => [`B-${i + 1}`, 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', 'ada@example.com', '1 Marina', '',
  'Lagos', 'Lagos', '100001', 'NG', '1990-01-31', '+2348012345678', sandbox.institutionId, '202812', '101', 'classic', 'ADA OBI', '4821', '506099', 'active', 'false'].join(','))].join('\n')}\n`);
await cli([BIN, 'import', '--from-file', seedFile, '--concurrency', '16', '-q']);
const ids = (await cli([BIN, 'cards', 'list', '--all', '-q'])).trim().split('\n');
console.log(`bulk bench: ${CARDS} cards; deactivate files of ${SIZES.join(', ')} rows at concurrency ${CONCURRENCY}; autocannon ${CONNECTIONS} connections × ${DURATION} s; node ${process.version}, ${cpus().length} CPUs`);

/**
 * The sandbox's own limit for GET /institutions/cards/{id}/deactivate: plain (a request at a time
 * on each connection), and pipelined as the CLI sends it. One card over and over: deactivating
 * a suspended card is a write like any other (the card service writes the card whatever its
 * status was), so it is the same work as the CLI's rows.
 */
async function limit(label) {
  const request = { url: `${sandbox.baseUrl}/institutions/cards/${ids[0]}/deactivate`, headers: { authorization: `Bearer ${sandbox.token}` }, duration: DURATION };
  const plain = await autocannonRate(label, { ...request, connections: CONNECTIONS });
  const pipelined = await autocannonRate(`${label}, pipelined`, { ...request, connections: Math.max(1, Math.round(CONNECTIONS / PIPELINING)), pipelining: PIPELINING });
  return { plain, pipelined };
}

async function idFile(rows) {
  const path = join(work, `ids-${rows}.txt`);
  const out = createWriteStream(path);
  for (let i = 0; i < rows; i++) if (!out.write(`${ids[i % ids.length]}\n`)) await new Promise((resolve) => out.once('drain', resolve));
  await new Promise((resolve) => out.end(resolve));
  return path;
}

// The CLI's own peak RSS, written by a preload when it exits.
const preload = join(work, 'rusage.mjs');
writeFileSync(preload, `import { writeFileSync } from 'node:fs';
process.on('exit', () => writeFileSync(process.env.BENCH_RUSAGE_FILE, JSON.stringify({ rssMb: process.resourceUsage().maxRSS / 1024 })));
`);

// ---- the floor: the same requests from a minimal undici loop, at the same concurrency, pipelined as the CLI does ----
const floorScript = join(work, 'floor.mjs');
const undiciUrl = new URL('../node_modules/undici/index.js', import.meta.url).href;
writeFileSync(floorScript, `import { readFileSync } from 'node:fs';
import { Agent, request } from ${JSON.stringify(undiciUrl)};
const ids = readFileSync(process.argv[2], 'utf8').trim().split('\\n');
const dispatcher = new Agent({ connections: ${Math.ceil(CONCURRENCY / PIPELINING)}, pipelining: ${PIPELINING} });
const headers = { authorization: 'Bearer ' + process.env.CARDCTL_TOKEN, accept: 'application/json' };
let next = 0;
const started = performance.now();
await Promise.all(Array.from({ length: ${CONCURRENCY} }, async () => {
  while (next < ids.length) {
    const res = await request(process.env.CARDCTL_BASE_URL + '/institutions/cards/' + ids[next++] + '/deactivate', { dispatcher, headers, blocking: false });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error('HTTP ' + res.statusCode);
  }
}));
process.stdout.write(String((performance.now() - started) / 1000));
await dispatcher.close();
`);

const results = [];
let previous = await limit('start');
console.log(`sandbox limit: ${previous.plain.toFixed(1)} deactivations/s (pipelined: ${previous.pipelined.toFixed(1)}/s)`);
for (const rows of SIZES) {
  const file = await idFile(rows);
  const rusageFile = join(work, `rusage-${rows}.json`);
  const started = performance.now();
  const summary = JSON.parse(await cli(['--import', preload, BIN, 'cards', 'deactivate', '--from-file', file, '--yes', '--concurrency', String(CONCURRENCY), '-o', 'json'], { BENCH_RUSAGE_FILE: rusageFile }));
  const seconds = (performance.now() - started) / 1000;
  if (summary.done !== rows) throw new Error(`deactivate of ${rows} rows: ${JSON.stringify(summary)}`);
  const floor = rows / Number(await cli([floorScript, file]));
  const next = await limit(`after-${rows}`);
  const result = {
    rows, seconds, cps: rows / seconds, limit: (previous.plain + next.plain) / 2, pipelinedLimit: (previous.pipelined + next.pipelined) / 2,
    floor, rssMb: JSON.parse(readFileSync(rusageFile, 'utf8')).rssMb,
  };
  result.ratio = result.cps / result.limit;
  result.pipelinedRatio = result.cps / result.pipelinedLimit;
  result.floorRatio = result.cps / result.floor;
  previous = next;
  results.push(result);
  console.log(`${String(rows).padStart(7)} rows: ${seconds.toFixed(1)} s = ${result.cps.toFixed(1)} cards/s; sandbox limit around it ${result.limit.toFixed(1)}/s, ratio ${result.ratio.toFixed(2)}; `
    + `pipelined ${result.pipelinedLimit.toFixed(1)}/s, ratio ${result.pipelinedRatio.toFixed(2)}; minimal undici loop ${floor.toFixed(1)}/s, ratio ${result.floorRatio.toFixed(2)}; CLI peak RSS ${result.rssMb.toFixed(1)} MB; load average ${loadavg()[0].toFixed(1)}`);
}

console.log('\n| rows | wall time | cards/s | sandbox limit (autocannon, around the run) | ratio | limit, pipelined | ratio | minimal undici loop | ratio | CLI peak RSS |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(`| ${r.rows.toLocaleString('en')} | ${r.seconds.toFixed(1)} s | ${r.cps.toFixed(1)} | ${r.limit.toFixed(1)} | ${r.ratio.toFixed(2)} | ${r.pipelinedLimit.toFixed(1)} | ${r.pipelinedRatio.toFixed(2)} | ${r.floor.toFixed(1)} | ${r.floorRatio.toFixed(2)} | ${r.rssMb.toFixed(1)} MB |`);
}

const largest = results.at(-1);
const smallest = results[0];
reportRatio({
  bench: 'bulk',
  name: `cards deactivate --from-file, ${largest.rows.toLocaleString('en')} rows, concurrency ${CONCURRENCY}`,
  value: Number(largest.cps.toFixed(1)), unit: 'cards/s',
  peer: 'sandbox autocannon limit, GET /institutions/cards/{id}/deactivate', peerValue: Number(largest.limit.toFixed(1)),
  ratio: largest.ratio, aim: { min: 0.9 },
  note: `limit = mean of autocannon runs (${CONNECTIONS} connections, ${DURATION} s) just before and after the run`,
});
reportRatio({
  bench: 'bulk',
  name: `cards deactivate --from-file, ${largest.rows.toLocaleString('en')} rows, against the pipelined limit`,
  value: Number(largest.cps.toFixed(1)), unit: 'cards/s',
  peer: `sandbox autocannon limit, the same request pipelined ${PIPELINING} deep as the CLI sends it`, peerValue: Number(largest.pipelinedLimit.toFixed(1)),
  ratio: largest.pipelinedRatio,
});
reportRatio({
  bench: 'bulk',
  name: `cards deactivate --from-file, ${largest.rows.toLocaleString('en')} rows, against one Node process's floor`,
  value: Number(largest.cps.toFixed(1)), unit: 'cards/s',
  peer: `minimal undici loop, the same requests at concurrency ${CONCURRENCY}`, peerValue: Number(largest.floor.toFixed(1)),
  ratio: largest.floorRatio,
});
reportRatio({
  bench: 'bulk',
  name: `peak RSS, ${largest.rows.toLocaleString('en')} rows`,
  value: Number(largest.rssMb.toFixed(1)), unit: 'MB',
  peer: `peak RSS, ${smallest.rows.toLocaleString('en')} rows`, peerValue: Number(smallest.rssMb.toFixed(1)),
  ratio: largest.rssMb / smallest.rssMb, aim: { max: 1.1 },
});
process.exit(0);
