// The bulk card verbs exactly once under faults: deactivate and renew of a few hundred cards, then
// a renewal killed half way and resumed.
import { execa } from 'execa';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, isolatedDirs, tempDir } from '../helpers/cli.js';
import { report, sandboxWithCards } from './bulk-helpers.js';

describe('bulk card verbs under faults', () => {
  const dir = tempDir('cardctl-e2e-bulk-faults-');
  const CLIENT = ['--timeout', '1', '--retries', '10'];
  const FAULTS = 'rate=0.2,reset=0.1,commit-then-timeout=0.05,hold=1';
  let ctx: Awaited<ReturnType<typeof sandboxWithCards>>;
  const run = (args: string[]) => cardctl(args, { configDir: dir.path, env: ctx.env, timeout: 200_000 });

  beforeAll(async () => {
    ctx = await sandboxWithCards(dir.path, 'FLT', 300);
  }, 180_000);
  afterAll(async () => {
    await ctx?.sandbox.stop();
    dir.remove();
  });

  it('deactivate and renew of 300 cards: every card changed exactly once (0 lost, 0 renewed twice)', async () => {
    const before = await ctx.allCards();
    const file = join(dir.path, 'ids.txt');
    writeFileSync(file, `${before.map((c) => c.id).join('\n')}\n`);
    await ctx.setFaults({ spec: FAULTS, seed: 7 });
    const deactivated = await run(['cards', 'deactivate', '--from-file', file, '--yes', '--concurrency', '16', '-o', 'json', ...CLIENT]);
    const deactivationFaults = await ctx.faultCounts();
    await ctx.setFaults({});
    expect(deactivated.exitCode, deactivated.stderr).toBe(0);
    expect(JSON.parse(deactivated.stdout)).toMatchObject({ done: 300, failed: 0 });
    for (const kind of ['status', 'commit-then-timeout']) expect(deactivationFaults[kind], kind).toBeGreaterThan(5);
    for (const card of await ctx.allCards()) expect(card.status).toBe('suspended');

    await ctx.setFaults({ spec: FAULTS, seed: 8 });
    const renewed = await run(['cards', 'renew', '--from-file', file, '--expiration', '203106', '--concurrency', '16', '-o', 'json', ...CLIENT]);
    const renewalFaults = await ctx.faultCounts();
    await ctx.setFaults({});
    expect(renewed.exitCode, renewed.stderr).toBe(0);
    expect(JSON.parse(renewed.stdout)).toMatchObject({ failed: 0, rows: 300 });
    for (const kind of ['status', 'commit-then-timeout']) expect(renewalFaults[kind], kind).toBeGreaterThan(5);
    const after = new Map((await ctx.allCards()).map((c) => [c.id, c]));
    expect(after.size).toBe(300);
    for (const card of before) {
      const now = after.get(card.id)!;
      expect(`${now.expiryYear}${now.expiryMonth}`).toBe('203106');
      expect(Number(now.seqNumber), card.referenceCode).toBe(Number(card.seqNumber) + 1);
    }
  }, 300_000);

  it('a renewal killed half way and resumed with --resume: every card renewed once', async () => {
    const before = await ctx.allCards();
    const file = join(dir.path, 'renew.txt');
    writeFileSync(file, `${before.map((c) => c.id).join('\n')}\n`);
    const reportPath = join(dir.path, 'renew-kill.ndjson');
    await ctx.setFaults({ spec: FAULTS, seed: 11 });
    const child = execa('node', [BIN, 'cards', 'renew', '--from-file', file, '--expiration', '203104', '--report', reportPath, '--concurrency', '8', ...CLIENT], {
      env: cleanEnv({ ...isolatedDirs(dir.path), ...ctx.env }), extendEnv: false, reject: false,
    });
    const started = Date.now();
    while (Date.now() - started < 120_000) {
      // More than 100 rows after the report's header line.
      if (existsSync(reportPath) && (readFileSync(reportPath, 'utf8').match(/\n/g)?.length ?? 0) > 101) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    const settled = report(reportPath).length;
    expect(settled).toBeGreaterThan(100);
    expect(settled).toBeLessThan(300);
    const resumed = await run(['cards', 'renew', '--from-file', file, '--expiration', '203104', '--resume', reportPath, '--concurrency', '8', '-o', 'json', ...CLIENT]);
    await ctx.setFaults({});
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout);
    expect(summary.failed).toBe(0);
    expect(summary.skipped).toBeGreaterThanOrEqual(100);
    expect(summary.done + summary.already + summary.skipped).toBe(300);
    const after = new Map((await ctx.allCards()).map((c) => [c.id, c]));
    for (const card of before) {
      const now = after.get(card.id)!;
      expect(`${now.expiryYear}${now.expiryMonth}`).toBe('203104');
      expect(Number(now.seqNumber), card.referenceCode).toBe(Number(card.seqNumber) + 1);
    }
  }, 300_000);

  // Last: the cards it creates would count in the tests above.
  it('create --rows-from-file under faults: every card created is in the journal with its id, even when its answer was lost; a rerun adds no "409" lines, only "already" notes with the reference and id', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => `Jo${i},Doe,jo${i}@example.com,+23480155${String(i).padStart(5, '0')},33${String(i).padStart(8, '0')}`);
    const file = join(dir.path, 'journalled.csv');
    writeFileSync(file, `first-name,last-name,email,phone,account-number\n${rows.join('\n')}\n`);
    const args = ['cards', 'create', '--rows-from-file', file, '--program', ctx.sandbox.info.cardProgramId, '--account-type', 'savings', '--concurrency', '8', '-o', 'json', ...CLIENT];
    const journalFile = join(dir.path, 'journal', 'journal.ndjson');
    const journal = () => readFileSync(journalFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { path: string; status: number | null; phase?: string; ids: string[]; reference?: string; message: string });
    await ctx.setFaults({ spec: 'reset=0.15,commit-then-timeout=0.1,hold=1,methods=POST', seed: 11 });
    const created = await run(args);
    await ctx.setFaults({});
    expect(created.exitCode, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ done: 60, failed: 0 });
    const cards = (await ctx.allCards()).filter((card) => /^jo\d+@example\.com$/.test(card.customer.emailAddress));
    expect(cards).toHaveLength(60);
    const journalled = new Set(journal().filter((line) => line.path === '/institutions/cards').flatMap((line) => line.ids));
    expect(cards.filter((card) => !journalled.has(card.id)).map((card) => card.id)).toEqual([]);
    // Some answers were lost (the faults), and a look-up found what they had created.
    expect(journal().filter((line) => line.phase === 'found' && line.ids.length === 1).length).toBeGreaterThan(0);

    const before = journal().length;
    const again = await run(args);
    expect(JSON.parse(again.stdout)).toMatchObject({ already: 60, failed: 0 });
    const rerun = journal().slice(before);
    expect(rerun.filter((line) => line.status === 409)).toEqual([]);
    const already = rerun.filter((line) => line.phase === 'found');
    expect(already).toHaveLength(60);
    for (const line of already) expect(line).toMatchObject({ message: 'already there', reference: expect.stringMatching(/^row-/), ids: [expect.any(String)] });
  }, 120_000);
});
