#!/usr/bin/env node
// Sandbox: the first page of Get Cards (`GET /institutions/cards?limit=20`) on an institution of
// 1,000 cards and on one of 100,000, with autocannon, in interleaved rounds on the same machine.
// The page is read along the newest-first index and the unfiltered total is kept by the
// database, so the two should answer alike: the aim is 100k / 1k >= 0.9 (flat). Also prints
// POST /institutions/cards req/s (each one decrypts an RSA-OAEP PIN block and scrypt-hashes it).
//
//   npm run build && node bench/sandbox.mjs [--duration 5] [--connections 10] [--rounds 3]
//
// Each sandbox runs in its own process on its own database file, so autocannon's CPU does not
// share a core with the server under test. Needs the built bundle (dist/). The cards are copies
// of one card made over HTTP, written straight into the file: 100,000 cards through POST would
// spend minutes scrypt-hashing PINs, and the list does not read PINs.
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'libsql';
import { BIN, makeWorkDir, startProcess, stopChildren } from './lib/processes.mjs';
import { median, reportRatio } from './lib/results.mjs';
import { cardBody, defaultPinFor, postCard } from './lib/seed.mjs';
import { option } from './lib/args.mjs';

const DURATION = Number(option('duration', 5));
// Rounds alternate the targets, so a burst of load from elsewhere on the machine hits both
// rather than one; ratios are taken per round and the median is reported.
const ROUNDS = Number(option('rounds', 3));
const CONNECTIONS = Number(option('connections', 10));
const SIZES = { small: 1_000, large: 100_000 };

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

const work = makeWorkDir('sandbox');
const now = new Date();
const dates = { startDate: now.toISOString(), expiryDate: new Date(Date.UTC(now.getUTCFullYear() + 3, 0, 1)).toISOString() };
const headersOf = (server) => ({ authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });

/** A sandbox on its own database file whose institution holds `size` cards. */
async function sandboxWith(size) {
  const file = join(work, `cards-${size}.db`);
  const env = { CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work };
  const server = JSON.parse(await startProcess(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--db', file, '--json', '--quiet-log'], { env }));
  await postCard(server, cardBody(0, { cardProgram: server.cardProgramId, defaultPIN: await defaultPinFor(server), ...dates }));
  copyCard(file, size - 1);
  const page = await fetch(`${server.baseUrl}/institutions/cards?limit=20`, { headers: headersOf(server) });
  const { pagination } = await page.json();
  if (pagination.total !== size) throw new Error(`seeding: the sandbox lists ${pagination.total} cards, not ${size}`);
  return server;
}

/** `copies` copies of the file's one card, each older than the last, with its own id, number and reference. */
function copyCard(file, copies) {
  const db = new Database(file);
  db.exec('PRAGMA busy_timeout = 5000');
  // Card numbers of the copies start with 9, which no card program of the sandbox issues.
  const id = "printf('%024x', n.i)";
  const ref = "printf('bench-copy-%d', n.i)";
  const at = "strftime('%Y-%m-%dT%H:%M:%fZ', c.created_at, printf('-%d seconds', n.i))";
  db.prepare(`
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    INSERT INTO cards (id, institution_id, program_id, reference_code, real_id, pan, status, pin_hash, search_text, created_at, record)
    SELECT ${id}, c.institution_id, c.program_id, ${ref}, NULL, '9' || substr(c.pan, 2, 5) || printf('%010d', n.i), c.status, c.pin_hash,
           c.search_text, ${at}, json_set(c.record, '$._id', ${id}, '$.id', ${id}, '$.referenceCode', ${ref}, '$.createdAt', ${at}, '$.updatedAt', ${at})
    FROM n, cards c`).run(copies);
  db.close();
}

const small = await sandboxWith(SIZES.small);
const large = await sandboxWith(SIZES.large);
const firstPage = (server) => ({ url: `${server.baseUrl}/institutions/cards?limit=20`, headers: headersOf(server) });

console.log(`autocannon: ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds, node ${process.version}`);
const rounds = [];
for (let round = 1; round <= ROUNDS; round++) {
  const smallRun = await run(`Get Cards ?limit=20, ${SIZES.small.toLocaleString('en-US')} cards`, firstPage(small));
  const largeRun = await run(`Get Cards ?limit=20, ${SIZES.large.toLocaleString('en-US')} cards`, firstPage(large));
  rounds.push({ small: smallRun, large: largeRun });
}
const defaultPIN = await defaultPinFor(small);
let counter = 0;
const create = await run('POST /institutions/cards', {
  url: `${small.baseUrl}/institutions/cards`,
  headers: headersOf(small),
  method: 'POST',
  requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify(cardBody(counter, { cardProgram: small.cardProgramId, defaultPIN, ...dates, referenceCode: `bench-${process.pid}-${counter++}` })) }) }],
});

const rows = rounds.flatMap((r, i) => [r.small, r.large].map((result) => ({
  round: i + 1, run: result.name, 'req/s': Math.round(result.rps), 'p99 ms': result.p99, failed: result.bad,
})));
rows.push({ round: '-', run: create.name, 'req/s': Math.round(create.rps), 'p99 ms': create.p99, failed: create.bad });
console.table(rows);
const ratio = median(rounds.map((r) => r.large.rps / r.small.rps));
reportRatio({
  bench: 'sandbox',
  name: `sandbox Get Cards first page (?limit=20), ${SIZES.large.toLocaleString('en-US')} cards`,
  value: Math.round(median(rounds.map((r) => r.large.rps))),
  unit: 'req/s',
  peer: `the same page at ${SIZES.small.toLocaleString('en-US')} cards`,
  peerValue: Math.round(median(rounds.map((r) => r.small.rps))),
  ratio,
  aim: { min: 0.9 },
  note: `median of ${ROUNDS} interleaved rounds of ${DURATION} s, ${CONNECTIONS} connections; per-round ratios ${rounds.map((r) => (r.large.rps / r.small.rps).toFixed(2)).join(', ')}`,
});
console.log(`first page at ${SIZES.large} / at ${SIZES.small} cards, median of ${ROUNDS}: ${ratio.toFixed(2)} (aim >= 0.9)`);
console.log(`POST /institutions/cards: ${Math.round(create.rps)} req/s (each one RSA-OAEP decrypts a PIN block and scrypt-hashes the PIN)`);
stopChildren('SIGTERM');
if (rounds.some((r) => r.small.bad > 0 || r.large.bad > 0) || create.bad > 0) process.exitCode = 1;
