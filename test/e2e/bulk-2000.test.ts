// Exactly once at 2,000 rows under the sandbox's faults (rate=0.2, reset=0.1,
// commit-then-timeout=0.05): bulk create, deactivate and renew, each run twice at the same time
// on two sets of 2,000 cards, straight through on set A and killed with SIGKILL half way (about
// 1,000 report lines) then resumed with --resume on set B. The result is counted through the API
// afterwards (`cards list --all`), never taken from the reports. The cards of the deactivations
// and renewals are the ones the creations issued, so nothing is seeded card by card.
import { execa } from 'execa';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, isolatedDirs, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';

const ROWS = 2_000;
const FAULTS = 'rate=0.2,reset=0.1,commit-then-timeout=0.05,hold=2';
// A held answer outlives the client's timeout; retries ride out the faults; 64 rows in flight
// overlap the holds and the backoffs (at 16, one 2,000-row creation under these faults took
// 21 s at load 4 for 5 s of the CLI's CPU: it was waiting). A 2 s timeout rather than 1 s: on
// a loaded machine answers that are merely slow time out less, each such timeout costing a
// lookup and a resend (one 2,000-row creation at load 14-25: 29 s against 36 s, 10% less CPU).
const CLIENT = ['--timeout', '2', '--retries', '10', '--concurrency', '64'];
const SETS = ['a', 'b'] as const;
type Half = (typeof SETS)[number];

interface Card { id: string; referenceCode: string; status: string; expiryYear: number; expiryMonth: string; seqNumber: string; customer: { emailAddress: string } }

describe('bulk create, deactivate and renew of 2,000 rows under faults, straight and killed then resumed', () => {
  const dir = tempDir('cardctl-e2e-bulk-2000-');
  let sandbox: RunningSandbox;
  let env: Record<string, string>;
  const run = (args: string[]) => cardctl(args, { configDir: dir.path, env, timeout: 240_000 });
  const path = (name: string) => join(dir.path, name);
  const lineCount = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0);

  /** Every card, read through the API with the CLI. */
  const listCards = async (): Promise<Card[]> => {
    const listed = await run(['cards', 'list', '--all', '-o', 'ndjson']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    return listed.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Card);
  };
  /** The cards each set's creation issued (email `<set><row>@example.com`), by set. */
  const cardsBySet = async () => {
    const cards = await listCards();
    const of = (set: Half) => cards.filter((c) => new RegExp(`^${set}\\d+@`).test(c.customer.emailAddress));
    return { all: cards, a: of('a'), b: of('b') };
  };
  const faults = async (body: Record<string, unknown>) => {
    const response = await fetch(`${sandbox.info.baseUrl}/sandbox/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
  };
  const faultCounts = async () => ((await (await fetch(`${sandbox.info.baseUrl}/sandbox/faults`)).json()) as { counts: Record<string, number> }).counts;

  /**
   * Under faults: `args(A)` straight through, and at the same time `args(B)` killed with SIGKILL
   * once its report has about half the rows, then resumed. Returns both summaries (-o json).
   */
  async function straightAndResumed(verb: string, args: (set: Half) => string[], seed: number) {
    await faults({ spec: FAULTS, seed });
    const report = (set: Half) => path(`${verb}-${set}.ndjson`);
    const straight = run([...args('a'), '--report', report('a'), ...CLIENT, '-o', 'json']);
    const killed = execa('node', [BIN, ...args('b'), '--report', report('b'), ...CLIENT], {
      env: cleanEnv({ ...isolatedDirs(dir.path), ...env }), extendEnv: false, reject: false,
    });
    const started = Date.now();
    while (lineCount(report('b')) < ROWS / 2 && killed.exitCode === null && Date.now() - started < 200_000) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    killed.kill('SIGKILL');
    expect((await killed).signal, `${verb} B ended before it was killed`).toBe('SIGKILL');
    const killedAt = lineCount(report('b'));
    expect(killedAt).toBeGreaterThan(ROWS / 2 - 100);
    expect(killedAt).toBeLessThan(ROWS * 0.75);
    const resumed = await run([...args('b'), '--resume', report('b'), ...CLIENT, '-o', 'json']);
    const done = await straight;
    const counts = await faultCounts();
    await faults({});
    for (const [name, result] of [['straight', done], ['resumed', resumed]] as const) {
      expect(result.exitCode, `${verb} ${name}: ${result.stderr}`).toBe(0);
      // 64 rows in flight wait on the one Ctrl-C signal: no listener leak warning.
      expect(result.stderr).not.toMatch(/MaxListenersExceededWarning/);
    }
    // The faults were there, of each kind asked for.
    for (const kind of ['status', 'reset-request', 'reset-response', 'commit-then-timeout']) expect(counts[kind], kind).toBeGreaterThan(20);
    const summaries = { a: JSON.parse(done.stdout), b: JSON.parse(resumed.stdout) };
    expect(summaries.a).toMatchObject({ failed: 0, rows: ROWS });
    expect(summaries.b).toMatchObject({ failed: 0, rows: ROWS });
    // The resumed run skipped what the killed one had recorded as done.
    expect(summaries.b.skipped).toBeGreaterThan(ROWS / 2 - 100);
    return summaries;
  }

  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--quiet-log'], { configDir: dir.path });
    env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_API_KEY: sandbox.info.apiKey, CARDCTL_TOKEN: sandbox.info.token };
    for (const set of SETS) {
      const rows = Array.from({ length: ROWS }, (_, i) => `${set === 'a' ? 'Ada' : 'Bola'},Obi,${set}${i + 1}@example.com,+2348012345678,${String(1_000_000_000 + i)}`);
      writeFileSync(path(`${set}.csv`), `first-name,last-name,email,phone,account-number\n${rows.join('\n')}\n`);
    }
  });
  afterAll(async () => {
    await sandbox?.stop();
    dir.remove();
  });

  it('create: every row a card, exactly one per reference, none lost', async () => {
    const create = (set: Half) => ['cards', 'create', '--rows-from-file', path(`${set}.csv`), '--program', sandbox.info.cardProgramId, '--account-type', 'savings'];
    const summaries = await straightAndResumed('create', create, 21);
    expect(summaries.a).toMatchObject({ done: ROWS, already: 0, skipped: 0 });
    const cards = await cardsBySet();
    expect(cards.all).toHaveLength(2 * ROWS);
    for (const set of SETS) {
      // One card per row: each under the reference derived from its row's content.
      expect(cards[set]).toHaveLength(ROWS);
      expect(new Set(cards[set].map((c) => c.referenceCode)).size).toBe(ROWS);
      for (const card of cards[set]) expect(card.referenceCode).toMatch(/^row-[0-9a-f]{32}$/);
      for (const card of cards[set]) expect(card.status).toBe('active');
    }
  }, 300_000);

  it('deactivate: every card suspended, none left out', async () => {
    const cards = await cardsBySet();
    for (const set of SETS) writeFileSync(path(`${set}.txt`), `${cards[set].map((c) => c.id).join('\n')}\n`);
    const deactivate = (set: Half) => ['cards', 'deactivate', '--from-file', path(`${set}.txt`), '--yes', '--reason', 'breach'];
    const summaries = await straightAndResumed('deactivate', deactivate, 22);
    expect(summaries.a).toMatchObject({ done: ROWS });
    const after = await cardsBySet();
    expect(after.all).toHaveLength(2 * ROWS);
    for (const card of after.all) expect(card.status, card.referenceCode).toBe('suspended');
  }, 300_000);

  it('renew: every card renewed to the month exactly once (its sequence number up by one)', async () => {
    const before = await cardsBySet();
    const renew = (set: Half) => ['cards', 'renew', '--from-file', path(`${set}.txt`), '--expiration', '203106'];
    const summaries = await straightAndResumed('renew', renew, 23);
    expect(summaries.a.done + summaries.a.already).toBe(ROWS);
    const after = new Map((await listCards()).map((c) => [c.id, c]));
    expect(after.size).toBe(2 * ROWS);
    for (const card of before.all) {
      const now = after.get(card.id)!;
      expect(`${now.expiryYear}${now.expiryMonth}`, card.referenceCode).toBe('203106');
      expect(Number(now.seqNumber), card.referenceCode).toBe(Number(card.seqNumber) + 1);
    }
  }, 300_000);
});
