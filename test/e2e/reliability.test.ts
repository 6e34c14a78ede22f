// The acceptance run of RELIABILITY.md: under --faults rate=0.2,reset=0.05,commit-then-timeout=0.05 (seed 42)
// an import of 2,000 rows and 1,000 card creations end with exactly the right records, once
// each, and exit 0; `cards list --all` under faults loses and repeats nothing; when retries
// run out the exit code says what happened (6 network, 7 server) and nothing was half-done.
// Run `npm run build` first.
import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardctl, cleanEnv, startSandboxProcess, tempDir, type RunningSandbox, isolatedDirs } from '../helpers/cli.js';

const DRIVER = fileURLToPath(new URL('./reliability-driver.mjs', import.meta.url));
const FAULTS = 'rate=0.2,reset=0.05,commit-then-timeout=0.05';
/** Short client timeout and hold, so each commit-then-timeout costs ~1 s, not 35. */
const CLIENT = ['--timeout', '1', '--retries', '10'];

const HEADER = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,institutionId,'
  + 'card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';

function importCsv(prefix: string, count: number, institutionId: string): { text: string; ids: string[] } {
  const lines = [HEADER];
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const realId = `${prefix}-${String(i).padStart(5, '0')}`;
    ids.push(realId);
    lines.push([realId, 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', `ada${i}@example.com`, '"1 Marina, Lagos"', '', 'Lagos', 'Lagos',
      '100001', 'NG', '1990-01-31', '+2348012345678', institutionId, '202812', '101', 'classic', 'ADA OBI', '4821', '506099', 'active', 'false'].join(','));
  }
  return { text: `${lines.join('\r\n')}\r\n`, ids };
}

interface CardRecord { id: string; referenceCode: string; realId?: string }

let sandbox: RunningSandbox;
const dir = tempDir('cardctl-e2e-reliability-');
let env: Record<string, string>;

async function setFaults(body: Record<string, unknown>): Promise<{ spec: string; counts: Record<string, number> }> {
  const response = await fetch(`${sandbox.info.baseUrl}/sandbox/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as { spec: string; counts: Record<string, number> };
}

async function faultState(): Promise<{ spec: string; counts: Record<string, number> }> {
  return (await (await fetch(`${sandbox.info.baseUrl}/sandbox/faults`)).json()) as { spec: string; counts: Record<string, number> };
}

/** Every card, page by page, straight from the API (call only with faults off). */
async function allCards(): Promise<CardRecord[]> {
  const cards: CardRecord[] = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${sandbox.info.baseUrl}/institutions/cards?limit=100&page=${page}`, { headers: { authorization: `Bearer ${sandbox.info.token}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: CardRecord[]; pagination: { pages: number } };
    cards.push(...body.data);
    if (page >= body.pagination.pages) return cards;
  }
}

function tally<T>(items: T[]): Map<T, number> {
  const counts = new Map<T, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}

const run = (args: string[], input = '') => cardctl(args, { configDir: dir.path, env, input, timeout: 120_000 });

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--faults', FAULTS, '--faults-seed', '42', '--faults-hold', '2', '--quiet-log'], { configDir: dir.path });
  env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token, CARDCTL_API_KEY: sandbox.info.apiKey };
}, 30_000);

afterAll(async () => {
  await sandbox?.stop();
  dir.remove();
});

describe('exactly once under faults', () => {
  it('2,000 imported rows and 1,000 created cards: 0 lost, 0 duplicated, every exit 0', async () => {
    expect((await faultState()).spec).toBe('rate=0.2,codes=500|502|503,reset=0.05,commit-then-timeout=0.05,hold=2');
    const { text, ids: importIds } = importCsv('imp', 2_000, sandbox.info.institutionId);
    const file = join(dir.path, 'rows.csv');
    writeFileSync(file, text);

    // The import (the binary), two in-process drivers of 480 creations each and 40 creations
    // through the binary itself, all at the same time against the same faulty sandbox.
    const imported = run(['import', '--from-file', file, '--concurrency', '16', '--report', join(dir.path, 'report.ndjson'), '-o', 'json', ...CLIENT]);
    const driverEnv = cleanEnv({ ...isolatedDirs(dir.path), PROGRAM: sandbox.info.cardProgramId, ...env });
    const drivers = ['drv-a', 'drv-b'].map((prefix) => execa('node', [DRIVER, prefix, '480', '8', '--', ...CLIENT], { env: driverEnv, extendEnv: false, reject: false, timeout: 120_000 }));
    const binaryLane = async (lane: number) => {
      const results = [];
      for (let i = 1; i <= 10; i++) {
        const reference = `bin-${lane}-${i}`;
        const result = await run(['cards', 'create', '--program', sandbox.info.cardProgramId, '--first-name', 'Bo', '--last-name', 'Ade', '--email', 'bo@example.com',
          '--phone', '+2348012345678', '--account-number', '0123456789', '--account-type', 'savings', '--pin-stdin', '--reference', reference, '-o', 'json', ...CLIENT], '4821\n');
        results.push({ reference, exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr });
      }
      return results;
    };
    const lanes = Promise.all([1, 2, 3, 4].map(binaryLane));
    const [importResult, driverA, driverB, binaryResults] = await Promise.all([imported, drivers[0]!, drivers[1]!, lanes]);

    const created = [
      ...[driverA, driverB].flatMap((driver) => {
        expect(driver.exitCode, driver.stderr).toBe(0);
        return String(driver.stdout).trim().split('\n').map((line) => JSON.parse(line) as { reference: string; exitCode: number; stdout: string; stderr: string });
      }),
      ...binaryResults.flat(),
    ];
    expect(created).toHaveLength(1_000);
    const failures = created.filter((c) => c.exitCode !== 0);
    expect(failures.map((f) => `${f.reference}: ${f.exitCode} ${f.stderr}`)).toEqual([]);
    // Every creation printed its card, with its own reference.
    for (const c of created) expect(JSON.parse(c.stdout).referenceCode).toBe(c.reference);
    expect(importResult.exitCode, importResult.stderr).toBe(0);
    const summary = JSON.parse(importResult.stdout);
    expect(summary.imported + summary.exists).toBe(2_000);
    expect(summary.failed ?? 0).toBe(0);

    const counts = (await faultState()).counts;
    // The faults did happen, every kind of them: otherwise this test proves nothing.
    for (const kind of ['status', 'reset-request', 'reset-response', 'commit-then-timeout']) expect(counts[kind], kind).toBeGreaterThan(10);
    // Some creations had to be rescued by the lookup (the first attempt had applied).
    expect(created.filter((c) => /the first attempt had applied/.test(c.stderr)).length).toBeGreaterThan(0);

    // `cards list --all` with the faults still on: every card, once.
    const listed = await run(['cards', 'list', '--all', '-o', 'json', ...CLIENT]);
    expect(listed.exitCode, listed.stderr).toBe(0);

    await setFaults({});
    const cards = await allCards();
    expect(cards).toHaveLength(3_000);
    expect(new Set(cards.map((c) => c.id)).size).toBe(3_000);
    const references = tally(cards.map((c) => c.referenceCode));
    for (const c of created) expect(references.get(c.reference), c.reference).toBe(1);
    for (const realId of importIds) expect(references.get(`import:${realId}`), realId).toBe(1);

    const listedIds = (JSON.parse(listed.stdout) as CardRecord[]).map((c) => c.id);
    expect(listedIds).toHaveLength(3_000);
    expect(new Set(listedIds)).toEqual(new Set(cards.map((c) => c.id)));
  }, 150_000);
});

describe('when retries run out', () => {
  const create = (reference: string, extra: string[]) => run(['cards', 'create', '--program', sandbox.info.cardProgramId, '--first-name', 'Cy', '--last-name', 'Eze',
    '--email', 'cy@example.com', '--phone', '+2348012345678', '--account-number', '1', '--account-type', 'savings', '--pin-stdin', '--reference', reference, '-o', 'json', ...extra], '4821\n');
  const withReference = async (reference: string) => (await allCards()).filter((c) => c.referenceCode === reference).length;

  it('5xx on every POST: exit 7 after --retries, the lookup says no card was made, and none was', async () => {
    await setFaults({ rate: 1, codes: [503], methods: 'POST', seed: 1 });
    const result = await create('exhaust-7', ['--retries', '2', '--timeout', '2']);
    const state = await faultState();
    await setFaults({});
    expect(result.exitCode).toBe(7);
    expect(result.stderr).toMatch(/^error: .*503/m);
    expect(result.stderr).toMatch(/no card with reference exhaust-7 was found/);
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    expect(state.counts.status).toBe(3); // the first attempt and two retries
    expect(await withReference('exhaust-7')).toBe(0);
  });

  it('--no-retry sends one POST; with the answer held past --timeout the lookup finds the card: exit 0, once', async () => {
    await setFaults({ 'commit-then-timeout': 1, hold: 5, methods: 'POST', seed: 1 });
    const result = await create('held-once', ['--no-retry', '--timeout', '1']);
    const state = await faultState();
    await setFaults({});
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain('the first attempt had applied');
    expect(state.counts['commit-then-timeout']).toBe(1);
    expect(JSON.parse(result.stdout).referenceCode).toBe('held-once');
    expect(await withReference('held-once')).toBe(1);
  });

  it('connections reset on every request: exit 6, and a card exists only if a POST committed', async () => {
    await setFaults({ reset: 1, seed: 7 });
    const result = await create('reset-all', ['--retries', '1', '--timeout', '2']);
    const state = await faultState();
    await setFaults({});
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toMatch(/^error: .*(reset|network)/m);
    expect(result.stderr).toMatch(/hint: /);
    // A card exists exactly when a POST was reset after its handler committed... and then the
    // lookup must have failed too (else exit 0); never twice.
    expect(await withReference('reset-all')).toBeLessThanOrEqual(1);
    expect((state.counts['reset-request'] ?? 0) + (state.counts['reset-response'] ?? 0)).toBeGreaterThanOrEqual(2);
  });

  it('GETs: exit 7 when every answer is a 5xx, exit 6 when every answer times out; list --all recovers from some', async () => {
    await setFaults({ rate: 1, codes: [500], methods: 'GET' });
    const failed = await run(['cards', 'list', '--retries', '1', '-v']);
    expect(failed.exitCode).toBe(7);
    expect(failed.stderr.match(/GET .*\/institutions\/cards.* → 500/g)).toHaveLength(2);
    await setFaults({ 'commit-then-timeout': 1, hold: 5, methods: 'GET' });
    const timedOut = await run(['cards', 'list', '--no-retry', '--timeout', '1']);
    expect(timedOut.exitCode).toBe(6);
    expect(timedOut.stderr).toMatch(/timeout/);
    await setFaults({ rate: 0.3, codes: '500|502|503', 429: 0.05, 'retry-after': 0, reset: 0.1, 'slow-body': 0.1, methods: 'GET', seed: 3 });
    const listed = await run(['cards', 'list', '--all', '--limit', '97', '-o', 'json', '--retries', '10', '--timeout', '2']);
    await setFaults({});
    expect(listed.exitCode, listed.stderr).toBe(0);
    const ids = (JSON.parse(listed.stdout) as CardRecord[]).map((c) => c.id);
    const truth = (await allCards()).map((c) => c.id);
    expect(ids).toEqual(truth); // same order, nothing lost, nothing repeated
  }, 90_000);
});
