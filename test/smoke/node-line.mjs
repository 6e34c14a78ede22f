// The end-to-end smoke that proves cardctl on one Node line. Run it with that Node
// (scripts/test-node.mjs does, for each line CI proves): every cardctl it starts runs on the same
// Node (process.execPath), from the built bin/cardctl.js and dist/. Steps: `demo`; then, against a
// `sandbox serve` on a database file (libsql is a native addon: this proves it loads on this
// Node), a create/list/simulate/tx round trip and a small CSV import; the sandbox stops cleanly.
// Plain Node and node:assert, no dependencies: the test runner does not run on these Nodes.
// Everything is kept in a temporary directory (HOME too, which must stay empty), traffic goes to
// 127.0.0.1 only, and every process has a time limit. One line per step; the first failing step
// is named with the Node version, and the script exits 1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/cardctl.js', import.meta.url));
const COMMAND_TIMEOUT_MS = 30_000;
const NODE = `node ${process.version} (${process.platform}-${process.arch})`;

const root = mkdtempSync(join(tmpdir(), 'cardctl-smoke-'));
const home = join(root, 'home');
const files = join(root, 'cardctl');
mkdirSync(home);
mkdirSync(files);

/** The parent's environment without what would change cardctl's behaviour or send it elsewhere. */
function isolatedEnv() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('CARDCTL_') || key.startsWith('XDG_') || /_proxy$/i.test(key)) delete env[key];
  }
  for (const key of ['NO_COLOR', 'FORCE_COLOR', 'NODE_OPTIONS', 'APPDATA', 'LOCALAPPDATA']) delete env[key];
  return { ...env, CI: '1', HOME: home, USERPROFILE: home, CARDCTL_CONFIG_DIR: files, CARDCTL_DATA_DIR: files };
}
const env = isolatedEnv();

/** Runs `cardctl ...args` to completion; rejects only when it outlives `timeout`. */
function cardctl(args, { input = '', timeout = COMMAND_TIMEOUT_MS } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cardctl ${args.join(' ')} did not finish in ${timeout / 1000} s\n${stderr}`));
    }, timeout);
    child.on('error', (error) => { clearTimeout(timer); reject(error); });
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
    child.stdin.end(input);
  });
}

/** `cardctl ...args` must exit 0; returns its stdout. */
async function ok(args, options) {
  const result = await cardctl(args, options);
  assert.equal(result.code, 0, `cardctl ${args.join(' ')} exited ${result.code ?? result.signal}\n${result.stderr}`);
  return result.stdout;
}

/** `cardctl ...args -o json` must exit 0; returns what it printed, parsed. */
async function json(args, options) {
  return JSON.parse(await ok([...args, '-o', 'json'], options));
}

/** Starts `cardctl sandbox serve --json` and resolves with its first line and a way to stop it. */
function serve(args) {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--json', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk) => (log += chunk));
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { stop(); reject(new Error(`sandbox serve did not start in ${COMMAND_TIMEOUT_MS / 1000} s\n${log}`)); }, COMMAND_TIMEOUT_MS);
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolve({ info: JSON.parse(line), stop, log: () => log });
    });
    exited.then((code) => { clearTimeout(timer); reject(new Error(`sandbox serve exited ${code} before it printed its address\n${log}`)); });
  });
}

/** A CSV of `count` valid cards in the import format, with an expiry three years from now. */
function importCsv(prefix, count, institutionId) {
  const year = new Date().getUTCFullYear() + 3;
  const header = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,'
    + 'institutionId,card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';
  const rows = Array.from({ length: count }, (_, i) => [
    `${prefix}-${i + 1}`, 'true', '2024-01-01', `${year}-12-31`, 'Ada', 'Obi', '', `ada${i + 1}@example.com`, '"1 Marina, Lagos Island"', '',
    'Lagos', 'Lagos', '100001', 'NG', '1990-01-31', '+2348012345678', institutionId, `${year}12`, '101', 'classic', 'ADA OBI', '4821', '506099',
    'active', 'false',
  ].join(','));
  return `${[header, ...rows].join('\r\n')}\r\n`;
}

const steps = [];
const step = (name, run) => steps.push({ name, run });
let sandbox;
const state = {};

step('version', async () => {
  const out = await ok(['--version', '--verbose']);
  assert.match(out, new RegExp(`^node ${process.version.replaceAll('.', '\\.')}$`, 'm'), `cardctl did not run on ${process.version}:\n${out}`);
});

step('demo', async () => {
  const lines = (await ok(['demo', '-o', 'json'], { timeout: 60_000 })).trim().split('\n').map((line) => JSON.parse(line));
  assert.equal(lines.length, 9, 'demo has nine steps');
  for (const line of lines) assert.equal(line.ok, true, `demo step ${line.step} failed: ${line.command}`);
});

step('sandbox serve (file database)', async () => {
  sandbox = await serve(['--db', join(root, 'sandbox.db'), '--profile', 'smoke']);
  assert.match(sandbox.info.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
});

step('cards create', async () => {
  const card = await json(['cards', 'create', '--program', sandbox.info.cardProgramId, '--embossing-name', 'ADA OBI', '--first-name', 'Ada',
    '--last-name', 'Obi', '--email', 'ada.obi@example.com', '--phone', '+2348012345678', '--account-number', '0123456789',
    '--account-type', 'savings', '--pin-stdin'], { input: '4821\n' });
  assert.equal(card.status, 'active');
  state.cardId = card.id;
});

step('cards list', async () => {
  const cards = await json(['cards', 'list']);
  assert.deepEqual(cards.map((card) => card.id), [state.cardId]);
});

step('simulate authorization', async () => {
  const result = await json(['simulate', 'authorization', '--card', state.cardId, '--amount', '15.00', '--channel', 'pos', '--method', 'chip']);
  assert.equal(result.responseCode, '00');
  state.transactionId = result.transactionId;
});

step('tx list and tx show', async () => {
  const transactions = await json(['tx', 'list']);
  assert.deepEqual(transactions.map((tx) => tx.id), [state.transactionId]);
  const shown = await json(['tx', 'show', state.transactionId]);
  assert.equal(shown.id, state.transactionId);
  assert.equal(shown.mti, '0100');
});

step('import (CSV)', async () => {
  const csv = join(root, 'cards.csv');
  const report = join(root, 'report.ndjson');
  writeFileSync(csv, importCsv('SMOKE', 3, sandbox.info.institutionId));
  const { imported, invalid, failed, rows } = await json(['import', '--from-file', csv, '--report', report]);
  assert.deepEqual({ imported, invalid, failed, rows }, { imported: 3, invalid: 0, failed: 0, rows: 3 });
  // The report's first line is its run's header; a row per card follows.
  const [header, ...lines] = readFileSync(report, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  assert.equal(header.run?.verb, 'import');
  const reported = lines.map((line) => line.cardId);
  assert.equal(reported.length, 3);
  const listed = (await json(['cards', 'list'])).map((card) => card.id);
  for (const id of reported) assert.ok(listed.includes(id), `imported card ${id} is not listed`);
  assert.equal(listed.length, 4);
});

step('sandbox stops on SIGTERM', async () => {
  assert.equal(await sandbox.stop(), 0, `sandbox serve did not exit 0 on SIGTERM\n${sandbox.log()}`);
});

step('nothing written to HOME but the compile cache', async () => {
  // Node's compile cache (bin/cardctl.js) belongs in the user's cache directory, where Node has one.
  const hasCompileCache = typeof (await import('node:module')).enableCompileCache === 'function';
  assert.deepEqual(readdirSync(home), hasCompileCache ? ['.cache'] : []);
  if (hasCompileCache) assert.deepEqual(readdirSync(join(home, '.cache')), ['cardctl']);
});

console.log(`smoke on ${NODE}`);
let failed = false;
for (const { name, run } of steps) {
  const started = Date.now();
  try {
    await run();
    console.log(`  ok    ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    console.log(`  FAIL  ${name}`);
    console.error(`${NODE}: step "${name}" failed: ${error instanceof Error ? error.message : error}`);
    failed = true;
    break;
  }
}
await sandbox?.stop();
rmSync(root, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
