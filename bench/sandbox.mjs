#!/usr/bin/env node
// Sandbox throughput: autocannon against POST /institutions/cards and
// GET /institutions/cards?limit=20 on `cardctl sandbox serve --memory` (with its page cache, and
// a second one with --no-list-cache, whose every request queries SQLite), and against a bare
// fastify route answering a fixed body, in the same run on the same machine. Prints req/s and
// the ratio to the bare route (the aim for the list endpoint is >= 0.5).
//
// The bare route answers two fixed bodies: the very bytes of a 20-card list page (~50 KB:
// every card carries its expanded program), which is the fair baseline for the list endpoint
// since moving those bytes costs the same on both sides, and a tiny body, shown as well.
//
//   npm run build && node bench/sandbox.mjs [--duration 5] [--connections 10] [--rounds 3]
//
// Both servers run in their own processes, so autocannon's own CPU use does not share a core
// with the server under test. Needs the built bundle (dist/).
import { constants, publicEncrypt, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { makeWorkDir, startProcess, startSandbox, stopChildren } from './lib/processes.mjs';
import { median, reportRatio } from './lib/results.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const DURATION = option('duration', 5);
// Rounds alternate the targets, so a burst of load from elsewhere on the machine hits all of
// them rather than one; ratios are taken per round and the median is reported.
const ROUNDS = option('rounds', 3);
const CONNECTIONS = option('connections', 10);
const SEED_CARDS = 200;

// The bare baseline: fastify, no hooks, no validation, fixed JSON bodies.
const BARE_SERVER = `
  import Fastify from 'fastify';
  import { readFileSync } from 'node:fs';
  const app = Fastify({ logger: false });
  const page = readFileSync(process.env.BENCH_PAGE_FILE, 'utf8');
  const tiny = JSON.stringify({ statusCode: 200, message: 'ok', data: [] });
  app.get('/fixed-page', (request, reply) => reply.type('application/json').send(page));
  app.get('/fixed-tiny', (request, reply) => reply.type('application/json').send(tiny));
  await app.listen({ port: 0, host: '127.0.0.1' });
  console.log('http://127.0.0.1:' + app.server.address().port);
`;

function run(name, options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: DURATION, ...options }, (error, result) => {
      if (error) return reject(error);
      const ok = result['2xx'];
      const bad = result.non2xx + result.errors + result.timeouts;
      if (bad > 0) console.error(`  ${name}: ${bad} non-2xx/errors of ${ok + bad}`);
      resolve({ name, rps: result.requests.average, p99: result.latency.p99, ok, bad });
    });
  });
}

function pinBlock(publicKey, fingerprint) {
  const clear = Buffer.from(`141234${randomBytes(5).toString('hex')}`, 'hex');
  const encrypted = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, clear);
  return { encryptedData: encrypted.toString('hex'), publicKeyFingerprint: fingerprint };
}

// Two sandboxes: one as `sandbox serve` runs by default, whose Get Cards answers a page asked for
// again from memory until the next write (what a client polling a list sees, and what repeating
// one URL measures), and one with --no-list-cache, where every request queries SQLite and
// assembles the page (what a list costs the first time it is asked for).
const benchDir = fileURLToPath(new URL('../node_modules/.cache/cardctl-bench', import.meta.url));
const serve = (...extra) => startSandbox({ CARDCTL_CONFIG_DIR: benchDir, CARDCTL_DATA_DIR: benchDir }, { args: extra });
const sandbox = await serve();
const uncachedSandbox = await serve('--no-list-cache');

const pinKey = await (await fetch(`${sandbox.baseUrl}/sandbox/pin-key`)).json();
const defaultPIN = pinBlock(pinKey.publicKey, pinKey.fingerprint);
const now = new Date();
const cardBody = (referenceCode, programId = sandbox.cardProgramId) => JSON.stringify({
  cardProgram: programId,
  referenceCode,
  pinEnabled: true,
  defaultPIN,
  account: { currency: '566', bankCode: '044', type: 'savings', number: '0123456789' },
  customer: {
    firstName: 'Ada', middleName: '', lastName: 'Lovelace', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678',
    address: { line1: '1 Marina', line2: '', city: 'Lagos', state: 'Lagos', country: 'NG', postalCode: '100001' },
  },
  embossingName: 'ADA LOVELACE',
  startDate: now.toISOString(),
  expiryDate: new Date(Date.UTC(now.getUTCFullYear() + 3, 0, 1)).toISOString(),
});
const headersOf = (server) => ({ authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });
const headers = headersOf(sandbox);

// Enough cards that every list page is full (the PIN key is the same only by chance, so each
// sandbox gets a PIN block for its own key).
for (const server of [sandbox, uncachedSandbox]) {
  const key = await (await fetch(`${server.baseUrl}/sandbox/pin-key`)).json();
  const pin = pinBlock(key.publicKey, key.fingerprint);
  for (let i = 0; i < SEED_CARDS; i++) {
    const body = JSON.stringify({ ...JSON.parse(cardBody(`seed-${i}`, server.cardProgramId)), defaultPIN: pin });
    const response = await fetch(`${server.baseUrl}/institutions/cards`, { method: 'POST', headers: headersOf(server), body });
    if (response.status !== 201) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
  }
}

const pageText = await (await fetch(`${sandbox.baseUrl}/institutions/cards?limit=20`, { headers })).text();
const pageFile = join(makeWorkDir('sandbox'), 'page.json');
writeFileSync(pageFile, pageText);
const bareUrl = await startProcess(process.execPath, ['--input-type=module', '-e', BARE_SERVER], { env: { BENCH_PAGE_FILE: pageFile } });

console.log(`autocannon: ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds, node ${process.version}; list page ${pageText.length} bytes`);
const rounds = [];
for (let round = 1; round <= ROUNDS; round++) {
  const bareTiny = await run('bare fastify GET /fixed-tiny (56 bytes)', { url: `${bareUrl}/fixed-tiny` });
  const bare = await run('bare fastify GET /fixed-page (same bytes as a list page)', { url: `${bareUrl}/fixed-page` });
  const list = await run('sandbox GET /institutions/cards?limit=20 (page cache)', { url: `${sandbox.baseUrl}/institutions/cards?limit=20`, headers });
  const uncached = await run('sandbox GET /institutions/cards?limit=20 (--no-list-cache)', { url: `${uncachedSandbox.baseUrl}/institutions/cards?limit=20`, headers: headersOf(uncachedSandbox) });
  rounds.push({ bareTiny, bare, list, uncached });
}
let counter = 0;
const create = await run('sandbox POST /institutions/cards', {
  url: `${sandbox.baseUrl}/institutions/cards`,
  method: 'POST',
  headers,
  requests: [{ setupRequest: (request) => ({ ...request, body: cardBody(`bench-${process.pid}-${counter++}`) }) }],
});

const rows = rounds.flatMap((r, i) => [r.bareTiny, r.bare, r.list, r.uncached].map((result) => ({
  round: i + 1,
  run: result.name,
  'req/s': Math.round(result.rps),
  'p99 ms': result.p99,
  'vs bare page': (result.rps / r.bare.rps).toFixed(2),
  failed: result.bad,
})));
rows.push({ round: '-', run: create.name, 'req/s': Math.round(create.rps), 'p99 ms': create.p99, 'vs bare page': '-', failed: create.bad });
console.table(rows);
const ratio = median(rounds.map((r) => r.list.rps / r.bare.rps));
const uncachedRatio = median(rounds.map((r) => r.uncached.rps / r.bare.rps));
const tinyRatio = median(rounds.map((r) => r.list.rps / r.bareTiny.rps));
for (const [key, name, value] of [['uncached', 'sandbox Get Cards ?limit=20, --no-list-cache (every request queries)', uncachedRatio], ['list', 'sandbox Get Cards ?limit=20, repeated page (page cache)', ratio]]) {
  reportRatio({
    bench: 'sandbox',
    name,
    value: Math.round(median(rounds.map((r) => r[key].rps))),
    unit: 'req/s',
    peer: 'bare fastify route, same bytes',
    peerValue: Math.round(median(rounds.map((r) => r.bare.rps))),
    ratio: value,
    aim: { min: 0.5 },
    note: `median of ${ROUNDS} interleaved rounds of ${DURATION} s, ${CONNECTIONS} connections; per-round ratios ${rounds.map((r) => (r[key].rps / r.bare.rps).toFixed(2)).join(', ')}`,
  });
}
console.log(`list / bare (same body), median of ${ROUNDS}: uncached ${uncachedRatio.toFixed(2)}, repeated page ${ratio.toFixed(2)} (aim >= 0.5)`);
console.log(`list / bare (tiny body), median of ${ROUNDS}: ${tinyRatio.toFixed(2)}`);
console.log(`POST /institutions/cards: ${Math.round(create.rps)} req/s (each one RSA-OAEP decrypts a PIN block and scrypt-hashes the PIN)`);
stopChildren('SIGTERM');
if (rounds.some((r) => r.list.bad > 0 || r.uncached.bad > 0) || create.bad > 0) process.exitCode = 1;
