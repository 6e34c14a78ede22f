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
import { spawn } from 'node:child_process';
import { constants, createHash, createPublicKey, publicEncrypt, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { median, reportRatio } from './lib/results.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
// --cards N: one size only (what this benchmark measured before it had three).
const SIZES = String(option('sizes', option('cards', '1000,10000,30000'))).split(',').map(Number).sort((a, b) => a - b);
const ROUNDS = Number(option('rounds', 3));
const PAGE = 100;
if (SIZES.some((n) => !Number.isInteger(n) || n < 1) || !(ROUNDS >= 1)) {
  console.error('usage: node bench/cards.mjs [--sizes 1000,10000,30000] [--rounds 3]');
  process.exit(2);
}

const BIN = fileURLToPath(new URL('../bin/cardctl.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cardctl-bench-cards-'));
const children = [];
process.on('exit', () => {
  children.forEach((child) => child.kill('SIGKILL'));
  rmSync(work, { recursive: true, force: true });
});

// ---- sandbox and seed ----
const sandboxProcess = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--memory', '--json', '--quiet-log'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work, CI: '1' },
});
children.push(sandboxProcess);
const sandbox = JSON.parse(await new Promise((resolve, reject) => {
  createInterface({ input: sandboxProcess.stdout }).once('line', resolve);
  sandboxProcess.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
}));

const keyInfo = await (await fetch(`${sandbox.baseUrl}/sandbox/pin-key`)).json();
const key = createPublicKey(keyInfo.publicKey);
const fingerprint = createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex');
const clear = Buffer.from(`144821${randomBytes(5).toString('hex')}`, 'hex');
const defaultPIN = {
  encryptedData: publicEncrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, clear).toString('hex'),
  publicKeyFingerprint: fingerprint,
};
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
      const res = await fetch(`${sandbox.baseUrl}/institutions/cards`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          cardProgram: sandbox.cardProgramId, referenceCode: `bench-${i}`, pinEnabled: true, defaultPIN,
          account: { currency: '566', bankCode: '058', type: 'savings', number: String(3_000_000_000 + i) },
          customer: { firstName: 'Bench', lastName: `Holder${i}`, emailAddress: `bench${i}@example.com`, phoneNumber: '+2348000000000' },
          embossingName: `BENCH ${i}`, startDate, expiryDate,
        }),
      });
      if (res.status >= 300) throw new Error(`seeding card ${i}: HTTP ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
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

// ---- the plain baseline: undici, same pages, same NDJSON ----
const plainScript = join(work, 'plain.mjs');
const undiciUrl = new URL('../node_modules/undici/index.js', import.meta.url).href;
writeFileSync(plainScript, `
import { request, Agent } from ${JSON.stringify(undiciUrl)};
const base = process.env.BASE_URL;
const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
for (let page = 1; ; page++) {
  const res = await request(base + '/institutions/cards?page=' + page + '&limit=${PAGE}', {
    dispatcher, headers: { authorization: 'Bearer ' + process.env.TOKEN, accept: 'application/json' },
  });
  const body = JSON.parse(await res.body.text());
  let out = '';
  for (const card of body.data) out += JSON.stringify(card) + '\\n';
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

const cliArgs = [BIN, 'cards', 'list', '--all', '-o', 'ndjson'];
const cliEnv = { CARDCTL_CONFIG_DIR: work, CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token, CI: '1' };
const plainEnv = { BASE_URL: sandbox.baseUrl, TOKEN: sandbox.token };
const fmt = (n) => n.toLocaleString('en-US');

const bySize = [];
for (const size of SIZES) {
  const seedSeconds = await seedTo(size);
  const results = { cardctl: [], plain: [] };
  // One warm-up of each (sandbox caches, JIT, page cache), then interleaved rounds.
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
  console.log(`\n${fmt(size)} cards, ${fmt(Math.ceil(size / PAGE))} pages of ${PAGE}, ${ROUNDS} rounds (median), peak RSS via ${timeBin ? '/usr/bin/time' : 'process.resourceUsage'}`);
  console.log('| | wall time | cards/s | peak RSS (median / max) |');
  console.log('|---|---|---|---|');
  console.log(`| \`cardctl cards list --all -o ndjson\` | ${(cardctl.wallMs / 1000).toFixed(2)} s | ${fmt(Math.round(size / (cardctl.wallMs / 1000)))} | ${cardctl.rssMb.toFixed(1)} / ${cardctl.maxRssMb.toFixed(1)} MB |`);
  console.log(`| plain undici script | ${(plain.wallMs / 1000).toFixed(2)} s | ${fmt(Math.round(size / (plain.wallMs / 1000)))} | ${plain.rssMb.toFixed(1)} / ${plain.maxRssMb.toFixed(1)} MB |`);
  console.log(`| **ratio cardctl / plain** | **${(cardctl.wallMs / plain.wallMs).toFixed(2)}×** | | **${(cardctl.rssMb / plain.rssMb).toFixed(2)}×** |`);
  reportRatio({
    bench: 'cards',
    name: `cards list --all -o ndjson, ${fmt(size)} cards (wall time)`,
    value: Math.round(cardctl.wallMs), unit: 'ms',
    peer: 'plain undici loop', peerValue: Math.round(plain.wallMs),
    ratio: cardctl.wallMs / plain.wallMs,
    aim: { max: 1.25 },
    note: `median of ${ROUNDS} interleaved rounds, pages of ${PAGE}`,
  });
}

console.log('\ncost curve (medians): size | cardctl wall | plain wall | cardctl RSS | plain RSS | seeding');
for (const r of bySize) {
  console.log(`  ${fmt(r.size).padStart(7)} | ${(r.cardctl.wallMs / 1000).toFixed(2).padStart(7)} s | ${(r.plain.wallMs / 1000).toFixed(2).padStart(7)} s | ${r.cardctl.rssMb.toFixed(1).padStart(6)} MB | ${r.plain.rssMb.toFixed(1).padStart(6)} MB | ${r.seedSeconds.toFixed(1)} s`);
}
// Flatness: peak RSS at the largest size against 10,000 (or the size before it).
const largest = bySize[bySize.length - 1];
const base = bySize.find((r) => r.size === 10_000) ?? bySize[bySize.length - 2];
if (base && base !== largest) {
  reportRatio({
    bench: 'cards',
    name: `cards list --all -o ndjson, peak RSS at ${fmt(largest.size)} cards`,
    value: Number(largest.cardctl.rssMb.toFixed(1)), unit: 'MB',
    peer: `RSS at ${fmt(base.size)}`, peerValue: Number(base.cardctl.rssMb.toFixed(1)),
    ratio: largest.cardctl.rssMb / base.cardctl.rssMb,
    note: 'flatness: peak RSS as the list grows, medians',
  });
}
process.exit(0);
