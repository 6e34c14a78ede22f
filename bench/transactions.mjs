#!/usr/bin/env node
// `cardctl tx list --all -o ndjson` at three sizes (1,000, 10,000 and 100,000 transactions by
// default), beside a plain undici script that fetches the same pages and prints the same NDJSON,
// in the same run on the same sandbox. One sandbox grows from size to size: it is seeded up to
// the first size, measured, seeded up to the next, and so on.
//
//   npm run build && node bench/transactions.mjs [--sizes 1000,10000,100000] [--rounds 3] [--seeders 16]
//
// Page size: 100, the largest the API allows (`limit` 1-100; more is a 400). `tx list --all`
// asks for 100 a page by default; the plain script asks for the same.
// Wall time is measured here, from spawn to exit; peak RSS comes from /usr/bin/time -f '%e %M'
// (or process.resourceUsage().maxRSS through a preload where there is no /usr/bin/time). One
// warm-up of each client per size, then --rounds interleaved rounds, medians reported. Every run
// must print exactly as many lines as there are transactions.
//
// Seeding goes through the real API: POST /institutions/switch/simulate in stub mode (the sandbox
// checks, builds the message, stores the transaction and approves), --seeders requests in flight,
// spread over a few cards of a program without daily limits (a limit of 0 means none).
import { spawn } from 'node:child_process';
import { constants, publicEncrypt, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { median, reportRatio } from './lib/results.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const SIZES = String(option('sizes', '1000,10000,100000')).split(',').map(Number).sort((a, b) => a - b);
const ROUNDS = Number(option('rounds', 3));
const SEEDERS = Number(option('seeders', 16));
const CARDS = 8;
const PAGE = 100;
const RSS_BUDGET_MB = 120;
if (SIZES.some((n) => !Number.isInteger(n) || n < 1) || !(ROUNDS >= 1)) {
  console.error('usage: node bench/transactions.mjs [--sizes 1000,10000,100000] [--rounds 3] [--seeders 16]');
  process.exit(2);
}

const BIN = fileURLToPath(new URL('../bin/cardctl.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cardctl-bench-tx-'));
const children = [];
process.on('exit', () => {
  children.forEach((child) => child.kill('SIGKILL'));
  rmSync(work, { recursive: true, force: true });
});

// ---- sandbox, a program without limits, a few cards ----
const sandboxProcess = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--memory', '--json', '--quiet-log'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work, CI: '1' },
});
children.push(sandboxProcess);
const sandbox = JSON.parse(await new Promise((resolve, reject) => {
  createInterface({ input: sandboxProcess.stdout }).once('line', resolve);
  sandboxProcess.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
}));
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
  const clear = Buffer.from(`144826${randomBytes(5).toString('hex')}`, 'hex');
  const defaultPIN = {
    encryptedData: publicEncrypt({ key: pinKey.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, clear).toString('hex'),
    publicKeyFingerprint: sandbox.pinKeyFingerprint,
  };
  cardIds.push((await api('POST', '/institutions/cards', {
    cardProgram: program.id, referenceCode: `bench-tx-${i}`, pinEnabled: true, defaultPIN,
    account: { currency: '566', bankCode: '058', type: 'savings', number: String(3_000_000_000 + i) },
    customer: { firstName: 'Bench', lastName: `Holder${i}`, emailAddress: `bench${i}@example.com`, phoneNumber: '+2348000000000' },
    embossingName: `BENCH ${i}`, startDate, expiryDate,
  })).data.id);
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

// ---- the plain baseline: undici, same pages, same NDJSON ----
const plainScript = join(work, 'plain.mjs');
const undiciUrl = new URL('../node_modules/undici/index.js', import.meta.url).href;
writeFileSync(plainScript, `
import { request, Agent } from ${JSON.stringify(undiciUrl)};
const base = process.env.BASE_URL;
const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
for (let page = 1; ; page++) {
  const res = await request(base + '/institutions/transactions?page=' + page + '&limit=${PAGE}', {
    dispatcher, headers: { authorization: 'Bearer ' + process.env.TOKEN, accept: 'application/json' },
  });
  const body = JSON.parse(await res.body.text());
  let out = '';
  for (const tx of body.data) out += JSON.stringify(tx) + '\\n';
  if (!process.stdout.write(out)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  if (body.pagination ? page >= body.pagination.pages : body.data.length < ${PAGE}) break;
}
await dispatcher.close();
`);

// ---- measurement ----
const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const preload = join(work, 'rusage.mjs');
writeFileSync(preload, `
import { writeFileSync } from 'node:fs';
process.on('exit', () => writeFileSync(process.env.RUSAGE_FILE, String(process.resourceUsage().maxRSS)));
`);

/** Runs a node script, counting NDJSON lines on stdout; resolves wall ms, peak RSS in MB, lines. */
function measure(scriptArgs, env) {
  const rusageFile = join(work, `rusage-${randomBytes(4).toString('hex')}`);
  const timeFile = `${rusageFile}.time`;
  const nodeArgs = timeBin ? scriptArgs : ['--import', preload, ...scriptArgs];
  const command = timeBin ? timeBin : process.execPath;
  const argv = timeBin ? ['-f', '%e %M', '-o', timeFile, process.execPath, ...nodeArgs] : nodeArgs;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env, RUSAGE_FILE: rusageFile } });
    children.push(child);
    let lines = 0;
    child.stdout.on('data', (chunk) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    });
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      children.splice(children.indexOf(child), 1);
      if (code !== 0) return reject(new Error(`${scriptArgs.join(' ')} exited with ${code}`));
      const rssKb = timeBin ? Number(readFileSync(timeFile, 'utf8').trim().split(/\s+/).pop()) : Number(readFileSync(rusageFile, 'utf8'));
      resolve({ wallMs, rssMb: rssKb / 1024, lines });
    });
  });
}

const cliArgs = [BIN, 'tx', 'list', '--all', '-o', 'ndjson'];
const cliEnv = { CARDCTL_CONFIG_DIR: work, CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token, CI: '1' };
const plainEnv = { BASE_URL: sandbox.baseUrl, TOKEN: sandbox.token };
const fmt = (n) => n.toLocaleString('en-US');

const bySize = [];
for (const size of SIZES) {
  const seedSeconds = await seedTo(size);
  const results = { cardctl: [], plain: [] };
  // One warm-up of each (sandbox statement cache, JIT, page cache), then interleaved rounds.
  await measure(cliArgs, cliEnv);
  await measure([plainScript], plainEnv);
  for (let round = 0; round < ROUNDS; round++) {
    const a = await measure(cliArgs, cliEnv);
    const b = await measure([plainScript], plainEnv);
    for (const [name, r] of [['cardctl', a], ['plain', b]]) {
      if (r.lines !== size) throw new Error(`${name} printed ${r.lines} lines, expected ${size}`);
      results[name].push(r);
    }
  }
  const summary = Object.fromEntries(Object.entries(results).map(([name, rs]) => [name, {
    wallMs: median(rs.map((r) => r.wallMs)),
    rssMb: median(rs.map((r) => r.rssMb)),
    maxRssMb: Math.max(...rs.map((r) => r.rssMb)),
  }]));
  const { cardctl, plain } = summary;
  bySize.push({ size, seedSeconds, ...summary });
  const pages = Math.ceil(size / PAGE);
  console.log(`\n${fmt(size)} transactions, ${fmt(pages)} pages of ${PAGE}, ${ROUNDS} rounds (median), peak RSS via ${timeBin ? '/usr/bin/time' : 'process.resourceUsage'}`);
  console.log('| | wall time | tx/s | peak RSS (median / max) |');
  console.log('|---|---|---|---|');
  console.log(`| \`cardctl tx list --all -o ndjson\` | ${(cardctl.wallMs / 1000).toFixed(2)} s | ${fmt(Math.round(size / (cardctl.wallMs / 1000)))} | ${cardctl.rssMb.toFixed(1)} / ${cardctl.maxRssMb.toFixed(1)} MB |`);
  console.log(`| plain undici script | ${(plain.wallMs / 1000).toFixed(2)} s | ${fmt(Math.round(size / (plain.wallMs / 1000)))} | ${plain.rssMb.toFixed(1)} / ${plain.maxRssMb.toFixed(1)} MB |`);
  console.log(`| **ratio cardctl / plain** | **${(cardctl.wallMs / plain.wallMs).toFixed(2)}×** | | **${(cardctl.rssMb / plain.rssMb).toFixed(2)}×** |`);
  reportRatio({
    bench: 'transactions',
    name: `tx list --all -o ndjson, ${fmt(size)} tx (wall time)`,
    value: Math.round(cardctl.wallMs), unit: 'ms',
    peer: 'plain undici loop', peerValue: Math.round(plain.wallMs),
    ratio: cardctl.wallMs / plain.wallMs,
    aim: { max: 1.25 },
    note: `median of ${ROUNDS} interleaved rounds, pages of ${PAGE}`,
  });
}

const largest = bySize[bySize.length - 1];
console.log('\ncost curve (medians): size | cardctl wall | plain wall | cardctl RSS | plain RSS | seeding');
for (const r of bySize) {
  console.log(`  ${fmt(r.size).padStart(7)} | ${(r.cardctl.wallMs / 1000).toFixed(2).padStart(7)} s | ${(r.plain.wallMs / 1000).toFixed(2).padStart(7)} s | ${r.cardctl.rssMb.toFixed(1).padStart(6)} MB | ${r.plain.rssMb.toFixed(1).padStart(6)} MB | ${r.seedSeconds.toFixed(1)} s`);
}
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
const base = bySize.find((r) => r.size === 10_000) ?? bySize[bySize.length - 2];
if (base && base !== largest) {
  reportRatio({
    bench: 'transactions',
    name: `tx list --all -o ndjson, peak RSS at ${fmt(largest.size)} tx`,
    value: Number(largest.cardctl.rssMb.toFixed(1)), unit: 'MB',
    peer: `RSS at ${fmt(base.size)}`, peerValue: Number(base.cardctl.rssMb.toFixed(1)),
    ratio: largest.cardctl.rssMb / base.cardctl.rssMb,
    aim: { max: 1.15 },
    note: 'flatness: peak RSS as the list grows, medians',
  });
}
await pool.close();
process.exit(0);
