#!/usr/bin/env node
// `cardctl cards list --all -o ndjson` over 10,000 cards, beside a plain undici script that fetches
// the same pages (limit 100) and prints the same NDJSON, in the same run on the same sandbox.
// Reports wall time and peak RSS (from /usr/bin/time -v when present, else process.resourceUsage
// through a preload) for each, the median of the rounds, and the ratios cardctl/plain.
//
//   npm run build && node bench/cards.mjs [--cards 10000] [--rounds 5]
//
// Seeding goes straight to the sandbox over HTTP, 32 requests at a time, with one PIN block for
// every card (the sandbox decrypts and hashes it each time; that is most of the seeding cost).
import { spawn } from 'node:child_process';
import { constants, createHash, createPublicKey, publicEncrypt, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const CARDS = option('cards', 10_000);
const ROUNDS = option('rounds', 5);
const PAGE = 100;

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

const seedStarted = performance.now();
let next = 0;
async function seedWorker() {
  while (next < CARDS) {
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
console.log(`seeded ${CARDS} cards in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

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
      if (code !== 0) return reject(new Error(`${scriptArgs.join(' ')} exited with ${code}`));
      const rssKb = timeBin ? Number(readFileSync(timeFile, 'utf8').trim().split(/\s+/).pop()) : Number(readFileSync(rusageFile, 'utf8'));
      resolve({ wallMs, rssMb: rssKb / 1024, lines });
    });
  });
}

const cliEnv = { CARDCTL_CONFIG_DIR: work, CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token, CI: '1' };
const plainEnv = { BASE_URL: sandbox.baseUrl, TOKEN: sandbox.token };
const results = { cardctl: [], plain: [] };
// One warm-up of each (sandbox caches, page cache), then interleaved rounds.
await measure([BIN, 'cards', 'list', '--all', '-o', 'ndjson'], cliEnv);
await measure([plainScript], plainEnv);
for (let round = 0; round < ROUNDS; round++) {
  const a = await measure([BIN, 'cards', 'list', '--all', '-o', 'ndjson'], cliEnv);
  const b = await measure([plainScript], plainEnv);
  for (const [name, r] of [['cardctl', a], ['plain', b]]) {
    if (r.lines !== CARDS) throw new Error(`${name} printed ${r.lines} lines, expected ${CARDS}`);
    results[name].push(r);
  }
}

const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const summary = Object.fromEntries(Object.entries(results).map(([name, rs]) => [name, {
  wallMs: median(rs.map((r) => r.wallMs)),
  rssMb: median(rs.map((r) => r.rssMb)),
  maxRssMb: Math.max(...rs.map((r) => r.rssMb)),
}]));
console.log(`\n${CARDS} cards, ${CARDS / PAGE} pages of ${PAGE}, ${ROUNDS} rounds (median), peak RSS via ${timeBin ? '/usr/bin/time' : 'process.resourceUsage'}`);
console.log('| | wall time | peak RSS (median / max) |');
console.log('|---|---|---|');
console.log(`| \`cardctl cards list --all -o ndjson\` | ${(summary.cardctl.wallMs / 1000).toFixed(2)} s | ${summary.cardctl.rssMb.toFixed(1)} / ${summary.cardctl.maxRssMb.toFixed(1)} MB |`);
console.log(`| plain undici script | ${(summary.plain.wallMs / 1000).toFixed(2)} s | ${summary.plain.rssMb.toFixed(1)} / ${summary.plain.maxRssMb.toFixed(1)} MB |`);
console.log(`| **ratio cardctl / plain** | **${(summary.cardctl.wallMs / summary.plain.wallMs).toFixed(2)}×** | **${(summary.cardctl.rssMb / summary.plain.rssMb).toFixed(2)}×** |`);
process.exit(0);
