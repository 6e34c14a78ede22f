#!/usr/bin/env node
// Bulk import throughput and its cost curve: `cardctl import --from-file` of fresh CSVs of
// --sizes rows (default 1,000, 3,000 and 10,000) at the CLI's default concurrency of 8, against
// `cardctl sandbox serve --memory`, each compared with the sandbox's own limit for
// POST /util/cards/import measured with autocannon in the same run (right before and right
// after each import run; the limit for a run is their mean). Prints, per run, cards/s, the
// ratio to the limit (aim >= 0.8 at 10,000 rows), and what the CLI process itself cost: CPU
// time per row and peak RSS.
//
//   npm run build && node bench/import.mjs [--sizes 1000,3000,10000] [--concurrency 8] [--duration 8] [--connections 16]
//
// --concurrency 1,8,32 adds runs at those concurrencies at the largest size (a sweep; off by
// default, it roughly doubles the run time). --rows N is short for --sizes N.
// cards/s is wall-clock from process start to exit (start-up, CSV parsing and validation
// included), over the rows imported. Needs the built bundle (dist/).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { autocannonRate } from './lib/limit.mjs';
import { BIN, makeWorkDir, startSandbox, track } from './lib/processes.mjs';
import { reportRatio } from './lib/results.mjs';
import { option } from './lib/args.mjs';

const list = (text) => String(text).split(',').map(Number);
const SIZES = list(option('sizes', option('rows', '1000,3000,10000')));
const DURATION = Number(option('duration', 8));
const CONNECTIONS = Number(option('connections', 16));
/** The CLI's default --concurrency: the curve is measured at it. */
const CURVE_CONCURRENCY = 8;
const SWEEP = list(option('concurrency', String(CURVE_CONCURRENCY)));
if ([...SIZES, ...SWEEP].some((n) => !Number.isInteger(n) || n < 1)) {
  console.error('error: --sizes and --concurrency take comma-separated whole numbers, e.g. --sizes 1000,3000,10000');
  process.exit(2);
}
const LARGEST = Math.max(...SIZES);

const work = makeWorkDir('import');
const sandbox = await startSandbox({ CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work });

function body(realId) {
  return {
    realId, active: true, startDate: '2024-01-01', endDate: '2028-12-31', firstName: 'Ada', lastName: 'Obi', middleName: '',
    email: 'ada@example.com', address1: '1 Marina', address2: '', city: 'Lagos', state: 'Lagos', zip: '100001', country: 'NG',
    birthDate: '1990-01-31', phone: '+2348012345678', institutionId: sandbox.institutionId,
    card: { expiration: '202812', serviceCode: '101', cardProduct: 'classic', embossingName: 'ADA OBI', defaultPIN: '4821', bin: '506099', cardState: 'active' },
    returnSecure: false,
  };
}

/** The sandbox's own limit: autocannon posting unique realIds ([<id>] is replaced per request). */
function limit(label) {
  return autocannonRate(label, {
    url: `${sandbox.baseUrl}/util/cards/import`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
    body: JSON.stringify(body(`AC-${label}-[<id>]`)),
    idReplacement: true,
    connections: CONNECTIONS,
    duration: DURATION,
  });
}

const HEADER = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,institutionId,'
  + 'card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';

function csvFile(prefix, rows) {
  const lines = [HEADER];
  for (let i = 1; i <= rows; i++) {
    lines.push([`${prefix}-${i}`, 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', `ada${i}@example.com`, '"1 Marina, Lagos"', '', 'Lagos', 'Lagos',
      '100001', 'NG', '1990-01-31', '+2348012345678', sandbox.institutionId, '202812', '101', 'classic', 'ADA OBI', '4821', '506099', 'active', 'false'].join(','));
  }
  const path = join(work, `${prefix}.csv`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

// The import's own CPU time and peak RSS, written by a preload when it exits.
const preload = join(work, 'rusage.mjs');
writeFileSync(preload, `import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
  writeFileSync(process.env.BENCH_RUSAGE_FILE, JSON.stringify({ cpuMs: (userCPUTime + systemCPUTime) / 1000, rssMb: maxRSS / 1024 }));
});
`);

function importRun(rows, concurrency) {
  const prefix = `R${rows}-C${concurrency}`;
  const file = csvFile(prefix, rows);
  const rusageFile = join(work, `${prefix}.rusage.json`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = track(spawn(process.execPath, ['--import', preload, BIN, 'import', '--from-file', file, '--concurrency', String(concurrency), '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env, CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work, CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_API_KEY: sandbox.apiKey, CARDCTL_TOKEN: sandbox.token,
        BENCH_RUSAGE_FILE: rusageFile,
      },
    }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`import of ${rows} rows at --concurrency ${concurrency} exited ${code}: ${stderr}`));
      const summary = JSON.parse(stdout);
      if (summary.imported !== rows) return reject(new Error(`import of ${rows} rows imported ${summary.imported}: ${stdout}`));
      const usage = JSON.parse(readFileSync(rusageFile, 'utf8'));
      resolve({ rows, concurrency, seconds, imported: summary.imported, cps: summary.imported / seconds, cpuMsPerRow: usage.cpuMs / rows, rssMb: usage.rssMb });
    });
  });
}

// The curve at the default concurrency, smallest first; then the sweep at the largest size.
const plan = [
  ...[...new Set(SIZES)].sort((a, b) => a - b).map((rows) => ({ rows, concurrency: CURVE_CONCURRENCY })),
  ...[...new Set(SWEEP)].filter((c) => c !== CURVE_CONCURRENCY).map((concurrency) => ({ rows: LARGEST, concurrency })),
];
console.log(`import bench: ${plan.map((p) => `${p.rows} rows at concurrency ${p.concurrency}`).join(', ')}; autocannon ${CONNECTIONS} connections × ${DURATION} s; node ${process.version}, ${cpus().length} CPUs`);
// The limit is measured right before and right after each import run and averaged, so that
// drifting machine load and the growing card table hit both sides of each ratio alike.
const results = [];
let previous = await limit('start');
console.log(`sandbox limit: ${previous.toFixed(1)} imports/s`);
for (const { rows, concurrency } of plan) {
  const result = await importRun(rows, concurrency);
  const next = await limit(`after-${rows}-${concurrency}`);
  result.limit = (previous + next) / 2;
  result.ratio = result.cps / result.limit;
  previous = next;
  results.push(result);
  console.log(`${String(rows).padStart(6)} rows, concurrency ${String(concurrency).padStart(2)}: ${result.seconds.toFixed(1)} s = ${result.cps.toFixed(1)} cards/s; `
    + `sandbox limit around it ${result.limit.toFixed(1)}/s (then ${next.toFixed(1)}/s); CLI ${result.cpuMsPerRow.toFixed(2)} ms CPU/row, ${result.rssMb.toFixed(1)} MB peak`);
}

const row = (r) => `| ${r.rows.toLocaleString('en')} | ${r.concurrency} | ${r.seconds.toFixed(1)} s | ${r.cps.toFixed(1)} | ${r.limit.toFixed(1)} | ${r.ratio.toFixed(2)} | ${r.cpuMsPerRow.toFixed(2)} ms | ${r.rssMb.toFixed(1)} MB |`;
console.log('\n| rows | concurrency | wall time | cards/s | sandbox limit (autocannon, around the run) | ratio | CLI CPU per row | CLI peak RSS |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of results) console.log(row(r));

const target = results.find((r) => r.rows === LARGEST && r.concurrency === CURVE_CONCURRENCY);
reportRatio({
  bench: 'import',
  name: `cardctl import, ${LARGEST.toLocaleString('en')} rows, concurrency ${CURVE_CONCURRENCY}`,
  value: Number(target.cps.toFixed(1)), unit: 'cards/s',
  peer: 'sandbox autocannon limit, POST /util/cards/import', peerValue: Number(target.limit.toFixed(1)),
  ratio: target.ratio, aim: { min: 0.8 },
  note: `limit = mean of autocannon runs (${CONNECTIONS} connections, ${DURATION} s) just before and after the import`,
});
console.log(`\n${LARGEST} rows at concurrency ${CURVE_CONCURRENCY}: ${target.cps.toFixed(1)} cards/s; ratio ${target.ratio.toFixed(2)} (aim >= 0.8) ${target.ratio >= 0.8 ? 'OK' : 'BELOW AIM'}`);
process.exit(0);
