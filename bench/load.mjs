// Load: the sandbox (built binary, SQLite file) holds N concurrent clients for D seconds with
// autocannon: three card listings and one card creation per round on every connection.
// Checks: zero 5xx, zero lost writes (every 201 is in the count afterwards, nothing extra),
// and RSS of the sandbox process sampled through the run.
//   node bench/load.mjs [--connections 200] [--duration 30] [--json]
// Exit 1 when a check fails. `npm run build` first.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { constants, publicEncrypt, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { args, option } from './lib/args.mjs';

const connections = Number(option('connections', 200));
const duration = Number(option('duration', 30));
const asJson = args.includes('--json');
const BIN = fileURLToPath(new URL('../bin/cardctl.js', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'cardctl-load-'));
const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--json', '--quiet-log', '--db', join(dir, 'load.db')], {
  env: { ...process.env, CARDCTL_CONFIG_DIR: dir, CARDCTL_DATA_DIR: dir, CI: '1' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const info = JSON.parse(await new Promise((resolve, reject) => {
  createInterface({ input: child.stdout }).once('line', resolve);
  child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
}));
const rss = () => {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
};

const auth = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' };
const api = async (path, init = {}) => (await fetch(`${info.baseUrl}${path}`, { ...init, headers: { ...auth, ...init.headers } })).json();
const pinKey = await api('/sandbox/pin-key');
// ISO 9564 format 1 block for PIN 4821 under the sandbox's key (RSA-OAEP SHA-256); reused by every creation.
const clear = Buffer.concat([Buffer.from([0x14, 0x48, 0x21]), randomBytes(5)]);
const defaultPIN = {
  encryptedData: publicEncrypt({ key: pinKey.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, clear).toString('hex'),
  publicKeyFingerprint: pinKey.fingerprint,
};
const countCards = async () => (await api('/institutions/cards?limit=1')).pagination.total;

const start = new Date();
const expiry = new Date(Date.UTC(start.getUTCFullYear() + 3, start.getUTCMonth(), 28)).toISOString();
let sequence = 0;
const createdRefs = new Set();
const sentRefs = new Set();
const cardBody = () => JSON.stringify({
  cardProgram: info.cardProgramId, referenceCode: sent(`load-${process.pid}-${++sequence}`), pinEnabled: true, defaultPIN,
  account: { currency: '566', bankCode: '044', type: 'savings', number: '0123456789' },
  customer: { firstName: 'Load', middleName: '', lastName: 'Test', emailAddress: 'load@example.com', phoneNumber: '+2348012345678', dateOfBirth: '1990-01-01T00:00:00.000Z',
    address: { line1: '1 Marina', line2: '', city: 'Lagos', state: 'Lagos', country: 'NG', postalCode: '100001' } },
  embossingName: 'LOAD TEST', startDate: start.toISOString(), expiryDate: expiry,
});

function sent(reference) {
  sentRefs.add(reference);
  return reference;
}
/** The card count once it is the same twice, 500 ms apart (at most 30 s). */
async function settledCount() {
  let previous = await countCards();
  for (let tries = 0; tries < 60; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await countCards();
    if (now === previous) return now;
    previous = now;
  }
  return previous;
}

async function allReferences() {
  const refs = [];
  for (let page = 1; ; page++) {
    const body = await api(`/institutions/cards?limit=100&page=${page}`);
    refs.push(...body.data.map((card) => card.referenceCode));
    if (page >= body.pagination.pages) return refs;
  }
}

const before = await countCards();
const samples = [{ at: 0, rss: rss() }];
const started = Date.now();
const sampler = setInterval(() => samples.push({ at: Math.round((Date.now() - started) / 1000), rss: rss() }), 1_000);
let posts2xx = 0;
let postsFailed = 0;
const list = { method: 'GET', path: '/institutions/cards?limit=20', headers: auth };
const result = await autocannon({
  url: info.baseUrl,
  connections,
  duration,
  timeout: 60,
  requests: [list, { ...list, path: '/institutions/transactions?limit=20' }, list, {
    method: 'POST', path: '/institutions/cards', headers: auth,
    setupRequest: (request) => ({ ...request, body: cardBody() }),
    onResponse: (status, body) => {
      if (status === 201) {
        posts2xx++;
        createdRefs.add(JSON.parse(body).data.referenceCode);
      } else {
        if (postsFailed++ === 0) console.error(`first failed creation: ${status} ${body}`);
      }
    },
  }],
});
clearInterval(sampler);
samples.push({ at: Math.round((Date.now() - started) / 1000), rss: rss() });
// Creations sent just before autocannon stopped may still be committing (each one scrypt-hashes
// a PIN); the list pages by offset, so a commit between two pages would shift a card onto the
// next page and count it twice. Wait until the count holds still before reading.
const after = await settledCount();
const stored = await allReferences();
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
rmSync(dir, { recursive: true, force: true });

// Memory: median RSS of the first third of the run (after warm-up) vs of the last third.
const third = Math.max(1, Math.floor(samples.length / 3));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const early = median(samples.slice(1, 1 + third).map((s) => s.rss));
const late = median(samples.slice(-third).map((s) => s.rss));
const summary = {
  connections, duration,
  requests: result.requests.total, requestsPerSecond: Math.round(result.requests.average),
  latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
  status: { '2xx': result['2xx'], '4xx': result['4xx'], '5xx': result['5xx'] }, errors: result.errors, timeouts: result.timeouts,
  writes: {
    sent: sentRefs.size, created201: posts2xx, notCreated: postsFailed, countBefore: before, countAfter: after,
    // Sent when autocannon stopped: committed by the server, answer never read.
    unansweredAtCutoff: after - before - posts2xx,
    lost: [...createdRefs].filter((ref) => !stored.includes(ref)).length,
    duplicated: stored.length - new Set(stored).size,
    unknown: stored.filter((ref) => !sentRefs.has(ref)).length,
  },
  rssMB: { start: Math.round(samples[0].rss / 2 ** 20), early: Math.round(early / 2 ** 20), late: Math.round(late / 2 ** 20), max: Math.round(Math.max(...samples.map((s) => s.rss)) / 2 ** 20) },
};
const failures = [];
if (result['5xx'] !== 0) failures.push(`${result['5xx']} answers were 5xx`);
if (result.errors !== 0 || result.timeouts !== 0) failures.push(`${result.errors} errors, ${result.timeouts} timeouts`);
if (summary.writes.lost !== 0) failures.push(`${summary.writes.lost} created cards (201) are missing`);
if (summary.writes.duplicated !== 0 || summary.writes.unknown !== 0) failures.push(`${summary.writes.duplicated} duplicated and ${summary.writes.unknown} unknown cards`);
if (summary.writes.unansweredAtCutoff < 0 || summary.writes.unansweredAtCutoff > connections) failures.push(`count after (${after}) does not match before (${before}) + 201s (${posts2xx}) + at most one in flight per connection`);
if (posts2xx === 0) failures.push('no card was created: the write half of the load did not run');
if (createdRefs.size !== posts2xx) failures.push('a reference was created twice');
if (late > early * 1.5 + 64 * 2 ** 20) failures.push(`RSS grew from ${summary.rssMB.early} MB to ${summary.rssMB.late} MB`);
summary.ok = failures.length === 0;
summary.failures = failures;
if (asJson) process.stdout.write(`${JSON.stringify(summary)}\n`);
else console.log(JSON.stringify(summary, null, 2));
process.exitCode = failures.length ? 1 : 0;
