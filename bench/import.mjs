#!/usr/bin/env node
// Bulk import throughput: `cardctl import --from-file` of a 10,000-row CSV at --concurrency 1, 8
// and 32 against `cardctl sandbox serve --memory`, compared with the sandbox's own limit for
// POST /util/cards/import measured with autocannon in the same run (right before and right
// after each import run; the limit for a run is their mean). Prints cards/s and the ratio to the limit (aim >= 0.8 at
// the best concurrency).
//
//   npm run build && node bench/import.mjs [--rows 10000] [--duration 8] [--connections 16] [--concurrency 1,8,32]
//
// cards/s is wall-clock from process start to exit (start-up, CSV parsing and validation
// included), over the rows imported. Needs the built bundle (dist/).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const ROWS = Number(option('rows', 10_000));
const DURATION = Number(option('duration', 8));
const CONNECTIONS = Number(option('connections', 16));
const CONCURRENCY = String(option('concurrency', '1,8,32')).split(',').map(Number);

const BIN = fileURLToPath(new URL('../bin/cardctl.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cardctl-bench-import-'));
const children = [];
process.on('exit', () => {
  children.forEach((child) => child.kill('SIGKILL'));
  rmSync(work, { recursive: true, force: true });
});

const sandboxProcess = spawn('node', [BIN, 'sandbox', 'serve', '--port', '0', '--memory', '--json', '--quiet-log'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work },
});
children.push(sandboxProcess);
const sandbox = JSON.parse(await new Promise((resolve, reject) => {
  createInterface({ input: sandboxProcess.stdout }).once('line', resolve);
  sandboxProcess.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
}));

function body(realId) {
  return {
    realId, active: true, startDate: '2024-01-01', endDate: '2028-12-31', firstName: 'Ada', lastName: 'Obi', middleName: '',
    email: 'ada@example.com', address1: '1 Marina', address2: '', city: 'Lagos', state: 'Lagos', zip: '100001', country: 'NG',
    birthDate: '1990-01-31', phone: '+2348012345678', institutionId: sandbox.institutionId,
    card: { expiration: '202812', serviceCode: '101', cardProduct: 'classic', embossingName: 'ADA OBI', defaultPIN: '1234', bin: '506099', cardState: 'active' },
    returnSecure: false,
  };
}

/** The sandbox's own limit: autocannon posting unique realIds ([<id>] is replaced per request). */
function limit(label) {
  return new Promise((resolve, reject) => {
    autocannon({
      url: `${sandbox.baseUrl}/util/cards/import`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
      body: JSON.stringify(body(`AC-${label}-[<id>]`)),
      idReplacement: true,
      connections: CONNECTIONS,
      duration: DURATION,
    }, (error, result) => {
      if (error) return reject(error);
      const bad = result.non2xx + result.errors + result.timeouts;
      if (bad > 0) console.error(`  autocannon ${label}: ${bad} non-2xx/errors of ${result['2xx'] + bad}`);
      resolve(result['2xx'] / (result.duration || DURATION));
    });
  });
}

const HEADER = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,institutionId,'
  + 'card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';

function csvFile(prefix) {
  const lines = [HEADER];
  for (let i = 1; i <= ROWS; i++) {
    lines.push([`${prefix}-${i}`, 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', `ada${i}@example.com`, '"1 Marina, Lagos"', '', 'Lagos', 'Lagos',
      '100001', 'NG', '1990-01-31', '+2348012345678', sandbox.institutionId, '202812', '101', 'classic', 'ADA OBI', '1234', '506099', 'active', 'false'].join(','));
  }
  const path = join(work, `${prefix}.csv`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function importAt(concurrency) {
  const file = csvFile(`C${concurrency}`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('node', [BIN, 'import', '--from-file', file, '--concurrency', String(concurrency), '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CARDCTL_CONFIG_DIR: work, CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_API_KEY: sandbox.apiKey, CARDCTL_TOKEN: sandbox.token },
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`import --concurrency ${concurrency} exited ${code}: ${stderr}`));
      const summary = JSON.parse(stdout);
      resolve({ concurrency, seconds, imported: summary.imported, cps: summary.imported / seconds });
    });
  });
}

console.log(`import bench: ${ROWS} rows per run, concurrency ${CONCURRENCY.join(', ')}; autocannon ${CONNECTIONS} connections × ${DURATION} s; node ${process.version}, ${(await import('node:os')).cpus().length} CPUs`);
// The limit is measured right before and right after each import run and averaged, so that
// drifting machine load and the growing card table hit both sides of each ratio alike.
const results = [];
let previous = await limit('start');
console.log(`sandbox limit: ${previous.toFixed(1)} imports/s`);
for (const concurrency of CONCURRENCY) {
  const result = await importAt(concurrency);
  const next = await limit(`after-${concurrency}`);
  result.limit = (previous + next) / 2;
  previous = next;
  results.push(result);
  console.log(`concurrency ${String(concurrency).padStart(2)}: ${result.imported} cards in ${result.seconds.toFixed(1)} s = ${result.cps.toFixed(1)} cards/s; sandbox limit around it ${result.limit.toFixed(1)}/s (then ${next.toFixed(1)}/s)`);
}

console.log('\n| concurrency | cards/s | sandbox limit (autocannon, around the run) | ratio |');
console.log('|---|---|---|---|');
for (const r of results) console.log(`| ${r.concurrency} | ${r.cps.toFixed(1)} | ${r.limit.toFixed(1)} | ${(r.cps / r.limit).toFixed(2)} |`);
const best = results.reduce((a, b) => (b.cps / b.limit > a.cps / a.limit ? b : a));
const ratio = best.cps / best.limit;
console.log(`\nbest: concurrency ${best.concurrency}, ${best.cps.toFixed(1)} cards/s; ratio ${ratio.toFixed(2)} (aim >= 0.8) ${ratio >= 0.8 ? 'OK' : 'BELOW AIM'}`);
process.exit(0);
