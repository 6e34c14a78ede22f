#!/usr/bin/env node
// Switch simulation throughput: simulations per second through POST /institutions/switch/simulate
// on `cardctl sandbox serve --memory`, in stub mode (the sandbox approves) and in forward mode
// (every message is POSTed, signed, to `cardctl webhook listen --json`, which answers 00; and, as
// a baseline, to a bare node:http server that only echoes with 39 = 00), with
// N concurrent plain-undici clients (no CLI in the loop). Each client loops: POST, read the
// answer, check it is approved, repeat, for --duration seconds per (mode, concurrency).
//
//   npm run build && node bench/simulate.mjs [--duration 5] [--concurrency 1,8,32]
//
// The cards come from a program without daily limits (0 = no limit), so every simulation is an
// approved one that runs the whole path: checks, STAN, message, SQLite insert (and, forwarded,
// the webhook round trip and the update). One card per client. The sandbox, the listener and this
// script are three processes.
//
// Then forward mode's own limit against `webhook listen`'s echo limit, both measured with
// autocannon (8 connections), interleaved round by round (--rounds, default 3), with a third
// peer: the minimal fastify + libsql forwarder of bench/lib/forwarder.mjs, the floor of any
// forwarder on this machine (aim: the sandbox ≥ 0.8 of the echo limit). Then `cardctl
// simulate load` in forward mode: its closed-loop throughput against plain undici clients doing
// the same (aim ≥ 0.8), and whether `--rate R` holds R within ±2% for a rate the sandbox
// sustains (exit 1 when not).
import { constants, publicEncrypt, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Pool, request } from 'undici';
import { autocannonRate } from './lib/limit.mjs';
import { BIN, cpuMs, makeWorkDir, startProcess, startSandbox } from './lib/processes.mjs';
import { reportRatio } from './lib/results.mjs';
import { args, option } from './lib/args.mjs';

const DURATION = Number(option('duration', 5));
const CONCURRENCY = String(option('concurrency', '1,8,32')).split(',').map(Number);
const ROUNDS = Number(option('rounds', 3));

const dir = makeWorkDir('sim');
const env = { CARDCTL_CONFIG_DIR: dir, CARDCTL_DATA_DIR: dir, CI: '1' };
/** Process ids, for the CPU each spends per message (forward mode against the echo limit). */
const pids = { bench: process.pid };
const listener = JSON.parse(await startProcess(process.execPath, [BIN, 'webhook', 'listen', '--port', '0', '--json', '--respond', '00'], { env, stderr: 'ignore', onChild: (child) => { pids.listener = child.pid; } }));

// Baseline for forward mode: a bare node:http webhook (parse, echo with 39 = 00, nothing else),
// so the figures show what `webhook listen` itself costs.
const RAW_WEBHOOK = `
  import { createServer } from 'node:http';
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const m = JSON.parse(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...m, '0': m['0'].slice(0, 2) + '1' + m['0'][3], '39': '00' }));
    });
  });
  server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port));
`;
const rawWebhookUrl = await startProcess(process.execPath, ['--input-type=module', '-e', RAW_WEBHOOK]);
const sandbox = await startSandbox(env, { args: ['--webhook-url', listener.url], stderr: 'ignore', onChild: (child) => { pids.sandbox = child.pid; } });
const auth = { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' };

async function api(method, path, body) {
  const res = await request(`${sandbox.baseUrl}${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.body.json();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${JSON.stringify(json)}`);
  return json;
}

const unlimited = { enabled: true, dailyLimit: { count: 0, amount: 0 } };
const program = (await api('POST', '/sandbox/card-programs', {
  name: 'bench, no limits',
  channels: { pos: unlimited, atm: unlimited, web: unlimited },
  webHookConfig: { url: listener.url },
})).data;
const rawProgram = (await api('POST', '/sandbox/card-programs', {
  name: 'bench, no limits, bare webhook',
  channels: { pos: unlimited, atm: unlimited, web: unlimited },
  webHookConfig: { url: rawWebhookUrl },
})).data;
const pinKey = (await api('GET', '/sandbox/pin-key'));
const publicKey = pinKey.publicKey ?? pinKey.data?.publicKey;

function pinBlock() {
  const clear = Buffer.from(`144826${randomBytes(5).toString('hex')}`, 'hex');
  const encrypted = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, clear);
  return { encryptedData: encrypted.toString('hex'), publicKeyFingerprint: sandbox.pinKeyFingerprint };
}

const maxClients = Math.max(...CONCURRENCY);
const cards = { listen: [], raw: [] };
for (let i = 0; i < maxClients * 2; i++) {
  const now = new Date();
  (i < maxClients ? cards.listen : cards.raw).push((await api('POST', '/institutions/cards', {
    cardProgram: i < maxClients ? program.id : rawProgram.id, referenceCode: `BENCH-${Date.now()}-${i}`, pinEnabled: true, defaultPIN: pinBlock(),
    account: { currency: '566', bankCode: '044', type: 'savings', number: `01234${String(i).padStart(5, '0')}` },
    customer: { firstName: 'Bench', lastName: `Client${i}`, emailAddress: 'bench@example.com', phoneNumber: '+2348012345678' },
    embossingName: 'BENCH CLIENT', startDate: now.toISOString(), expiryDate: new Date(Date.UTC(now.getUTCFullYear() + 3, 0, 1)).toISOString(),
  })).data.id);
}

async function measure(label, clients) {
  const mode = label === 'stub' ? 'stub' : 'forward';
  const cardIds = label === 'forward-bare' ? cards.raw : cards.listen;
  const pool = new Pool(sandbox.baseUrl, { connections: clients, pipelining: 1 });
  const latencies = [];
  let ok = 0;
  let other = 0;
  const deadline = performance.now() + DURATION * 1000;
  const worker = async (index) => {
    const body = JSON.stringify({ intent: 'authorization', processingFlow: 'purchase', amount: 12.5, cardId: cardIds[index], responseMode: mode });
    while (performance.now() < deadline) {
      const started = performance.now();
      const res = await pool.request({ method: 'POST', path: '/institutions/switch/simulate', headers: auth, body });
      const answer = await res.body.json();
      latencies.push(performance.now() - started);
      if (res.statusCode === 200 && answer.data?.responseCode === '00') ok++;
      else other++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, i) => worker(i)));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]?.toFixed(1);
  return { mode: label, clients, perSecond: Math.round((ok + other) / elapsed), ok, other, p50: pct(0.5), p99: pct(0.99) };
}

// Warm-up: JIT, SQLite statement cache, keep-alive to the webhook.
await measure('stub', 4).catch(() => undefined);
await measure('forward', 4).catch(() => undefined);

const results = [];
for (const mode of ['stub', 'forward', 'forward-bare']) {
  for (const clients of CONCURRENCY) {
    const result = await measure(mode, clients);
    results.push(result);
    console.log(`${mode.padEnd(12)} ${String(clients).padStart(3)} clients  ${String(result.perSecond).padStart(6)} sims/s  p50 ${result.p50} ms  p99 ${result.p99} ms  (${result.ok} approved${result.other ? `, ${result.other} other` : ''})`);
  }
}
console.log('\n| mode | clients | simulations/s | p50 | p99 |');
console.log('|---|---|---|---|---|');
for (const r of results) console.log(`| ${r.mode} | ${r.clients} | ${r.perSecond} | ${r.p50} ms | ${r.p99} ms |`);
// What `webhook listen` costs: forwarding to it against forwarding to a bare echo server.
for (const clients of CONCURRENCY) {
  const listen = results.find((r) => r.mode === 'forward' && r.clients === clients);
  const bare = results.find((r) => r.mode === 'forward-bare' && r.clients === clients);
  if (listen && bare) {
    reportRatio({
      bench: 'simulate', name: `forward to webhook listen, ${clients} clients`, value: listen.perSecond, unit: 'sims/s',
      peer: 'forward to a bare echo server', peerValue: bare.perSecond, ratio: listen.perSecond / bare.perSecond,
    });
  }
}

// ---- forward mode's limit against webhook listen's echo limit ----
// The same 8 autocannon connections POST: a 0100 straight to `webhook listen` (its echo limit, the
// most any forward-mode run through it can reach); a forward-mode simulate to the sandbox (one
// card of a program without limits); the same 0100 to the minimal forwarder (the floor: HTTP in,
// two libsql writes, HTTP out to the same listener). Interleaved, ROUNDS times; medians.
const LOAD_CLIENTS = Math.max(...CONCURRENCY.filter((n) => n <= 8), 1);
const sample = (await api('POST', '/institutions/switch/simulate', { intent: 'authorization', processingFlow: 'purchase', amount: 12.5, cardId: cards.listen[0], responseMode: 'forward' })).data.request;
const forwarderUrl = await startProcess(process.execPath, [fileURLToPath(new URL('./lib/forwarder.mjs', import.meta.url)), listener.url], { onChild: (child) => { pids.forwarder = child.pid; } });
const jsonHeaders = { 'content-type': 'application/json' };
/** The 2xx answers a second of POSTing `body` to `url`, and the CPU each process spent per answer (µs). */
async function limitOf(label, url, headers, body) {
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const rate = await autocannonRate(label, { url, method: 'POST', headers, body, connections: LOAD_CLIENTS, duration: DURATION });
  const answers = rate * DURATION;
  const cpuPerMessage = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, Math.round(((cpuMs(pid) - cpuBefore[name]) * 1000) / answers)]));
  return { rate, cpuPerMessage };
}
const forwardBody = JSON.stringify({ intent: 'authorization', processingFlow: 'purchase', amount: 12.5, cardId: cards.listen[0], responseMode: 'forward' });
const load = () => loadavg()[0].toFixed(1);
// Warm-up of the three paths (JIT, keep-alive pools), not counted.
for (const [url, headers, body] of [[listener.url, jsonHeaders, JSON.stringify(sample)], [`${sandbox.baseUrl}/institutions/switch/simulate`, auth, forwardBody], [forwarderUrl, jsonHeaders, JSON.stringify(sample)]]) {
  await autocannonRate('warm-up', { url, method: 'POST', headers, body, connections: LOAD_CLIENTS, duration: 1 });
}
const rounds = [];
for (let round = 1; round <= ROUNDS; round++) {
  const loadBefore = load();
  const echoRun = await limitOf('webhook listen echo', listener.url, jsonHeaders, JSON.stringify(sample));
  const forwardRun = await limitOf('sandbox forward', `${sandbox.baseUrl}/institutions/switch/simulate`, auth, forwardBody);
  const floorRun = await limitOf('minimal forwarder', forwarderUrl, jsonHeaders, JSON.stringify(sample));
  const [echoRate, forwardRate, floorRate] = [echoRun.rate, forwardRun.rate, floorRun.rate];
  rounds.push({ round, echoRate, forwardRate, floorRate, load: `${loadBefore} → ${load()}`, cpu: { echo: echoRun.cpuPerMessage, forward: forwardRun.cpuPerMessage, floor: floorRun.cpuPerMessage } });
  console.log(`round ${round} (load ${rounds.at(-1).load}): echo ${Math.round(echoRate)}/s, sandbox forward ${Math.round(forwardRate)}/s (${(forwardRate / echoRate).toFixed(2)}×), minimal forwarder ${Math.round(floorRate)}/s (${(floorRate / echoRate).toFixed(2)}×)`);
}
// Every forwarded simulation of the rounds must have been answered by the webhook, not failed.
const check = (await api('POST', '/institutions/switch/simulate', JSON.parse(forwardBody))).data;
if (check.responseCode !== '00') throw new Error(`forward mode after the rounds answered ${check.responseCode}`);
const median = (key) => rounds.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
const echo = median('echoRate');
const forwardLimit = median('forwardRate');
const floor = median('floorRate');
const loads = rounds.map((r) => r.load).join(', ');
console.log(`\n| round | load average | webhook listen echo | sandbox forward | ratio | minimal forwarder | ratio |`);
console.log('|---|---|---|---|---|---|---|');
for (const r of rounds) {
  console.log(`| ${r.round} | ${r.load} | ${Math.round(r.echoRate)}/s | ${Math.round(r.forwardRate)}/s | ${(r.forwardRate / r.echoRate).toFixed(2)} | ${Math.round(r.floorRate)}/s | ${(r.floorRate / r.echoRate).toFixed(2)} |`);
}
// Where the CPU goes (µs a message; the bench process is autocannon's): the same machine gives
// each path what it costs, whatever the load.
console.log('\n| CPU µs a message (round) | sandbox | minimal forwarder | webhook listen | autocannon |');
console.log('|---|---|---|---|---|');
for (const r of rounds) {
  for (const [path, cpu] of Object.entries(r.cpu)) {
    const cell = (name) => ((path === 'forward' && name === 'forwarder') || (path === 'floor' && name === 'sandbox') || (path === 'echo' && (name === 'sandbox' || name === 'forwarder')) ? '—' : cpu[name]);
    console.log(`| ${path} (${r.round}) | ${cell('sandbox')} | ${cell('forwarder')} | ${cell('listener')} | ${cell('bench')} |`);
  }
}
reportRatio({
  bench: 'simulate', name: `forward mode, ${LOAD_CLIENTS} autocannon connections`, value: Math.round(forwardLimit), unit: 'sims/s',
  peer: "webhook listen's own echo limit (autocannon, same connections)", peerValue: Math.round(echo), ratio: forwardLimit / echo, aim: { min: 0.8 },
  note: `medians of ${ROUNDS} interleaved rounds, load average ${loads}`,
});
reportRatio({
  bench: 'simulate', name: `minimal fastify + libsql forwarder, ${LOAD_CLIENTS} autocannon connections`, value: Math.round(floor), unit: 'msgs/s',
  peer: "webhook listen's own echo limit (autocannon, same connections)", peerValue: Math.round(echo), ratio: floor / echo,
  note: 'the floor of any forwarder on this machine: HTTP in, two writes, HTTP out',
});

// ---- simulate load: the CLI's load generator in forward mode ----
/** `cardctl simulate load … -o json` on the listener's cards; its report. */
async function simulateLoad(args) {
  const { execFile } = await import('node:child_process');
  const loadEnv = { ...process.env, ...env, CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token };
  const cardArgs = cards.listen.slice(0, LOAD_CLIENTS).flatMap((id) => ['--card', id]);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, 'simulate', 'load', ...args, ...cardArgs, '-o', 'json'], { env: loadEnv, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`simulate load ${args.join(' ')}: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

// The ceiling of any client: plain undici clients through the sandbox to `webhook listen`,
// measured right before the CLI's run so both see the same machine load.
const undiciForward = await measure('forward', LOAD_CLIENTS);
const closed = await simulateLoad(['--concurrency', String(LOAD_CLIENTS), '--duration', `${DURATION}s`]);
// A rate it sustains: half the closed-loop throughput, rounded to tens.
const targetRate = Math.max(10, Math.floor(closed.achievedRate / 20) * 10);
const open = await simulateLoad(['--rate', `${targetRate}/s`, '--duration', `${DURATION}s`]);
const rateError = open.achievedRate / targetRate - 1;
console.log(`forward through the sandbox to it, ${LOAD_CLIENTS} plain undici clients: ${undiciForward.perSecond} sims/s`);
console.log(`simulate load --concurrency ${LOAD_CLIENTS} (forward): ${Math.round(closed.achievedRate)} sims/s, webhook p99 ${closed.latencyMs.webhook?.p99} ms, ${closed.approved}/${closed.requests} approved`
  + ` = ${(closed.achievedRate / undiciForward.perSecond).toFixed(2)}× plain clients, ${(closed.achievedRate / echo).toFixed(2)}× the echo limit`);
console.log(`simulate load --rate ${targetRate}/s: ${open.achievedRate}/s sent (${(rateError * 100).toFixed(2)}%), ${open.requests} requests, end-to-end p99 ${open.latencyMs.endToEnd?.p99} ms`);
reportRatio({
  bench: 'simulate', name: `simulate load --concurrency ${LOAD_CLIENTS}, forward`, value: Math.round(closed.achievedRate), unit: 'sims/s',
  peer: 'forward to webhook listen, plain undici clients', peerValue: undiciForward.perSecond, ratio: closed.achievedRate / undiciForward.perSecond, aim: { min: 0.8 },
});
reportRatio({
  bench: 'simulate', name: `simulate load --rate ${targetRate}/s, achieved`, value: open.achievedRate, unit: 'sims/s',
  peer: 'the target rate', peerValue: targetRate, ratio: open.achievedRate / targetRate, aim: { min: 0.98, max: 1.02 },
});
process.exit(Math.abs(rateError) <= 0.02 ? 0 : 1);
