// `cardctl demo`: a walkthrough against an in-memory sandbox, through the built binary.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cardctl, tempDir } from '../helpers/cli.js';
import type { Card, SimulateResult, Transaction } from '../../src/api/schemas.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => { dir = tempDir(); });
afterEach(() => dir.remove());

const env = () => ({ CARDCTL_DATA_DIR: join(dir.path, 'data'), CARDCTL_JOURNAL_DIR: join(dir.path, 'journal') });

describe('cardctl demo', () => {
  it('--json: one object per step, every step ok, in a few seconds', async () => {
    const started = Date.now();
    const result = await cardctl(['demo', '--json'], { configDir: join(dir.path, 'config'), env: env() });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    const steps = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { step: number; command: string; ok: boolean; exitCode: number; data: unknown });
    expect(steps.map((s) => s.command.replace(/^printf '4821\\n' \| /, '').split(' ').slice(0, 3).join(' '))).toEqual([
      'cardctl cards create',
      'cardctl cards list',
      'cardctl cards renew',
      'cardctl cards deactivate',
      'cardctl cards activate',
      'cardctl simulate authorization',
      'cardctl simulate financial',
      'cardctl simulate reversal',
      'cardctl tx list',
    ]);
    for (const step of steps) expect(step, step.command).toMatchObject({ ok: true, exitCode: 0 });
    expect(steps.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);

    // Each step's data is its command's JSON: named here in the order of the commands asserted above.
    const [created, listed, renewed, deactivated, activated, auth, financial, reversal, transactions] = steps.map((s) => s.data) as
      [Card, Card[], Card, Card, Card, SimulateResult, SimulateResult, SimulateResult, Transaction[]];
    expect(created.status).toBe('active');
    expect(listed.map((c: { id: string }) => c.id)).toEqual([created.id]);
    expect(renewed.seqNumber).not.toBe(created.seqNumber);
    expect(deactivated.status).toBe('suspended');
    expect(activated.status).toBe('active');
    for (const simulation of [auth, financial, reversal]) expect(simulation.responseCode).toBe('00');
    expect(transactions).toHaveLength(3);
    expect(transactions.find((t: { id: string }) => t.id === auth.transactionId)?.transactionStatus).toBe('reversed');
  });

  it('prints each command and its result, and how to keep a sandbox running', async () => {
    const result = await cardctl(['demo'], { configDir: join(dir.path, 'config'), env: env() });
    expect(result.exitCode).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/^\$ printf '4821\\n' \| cardctl cards create --program \S+ /m);
    for (const command of ['cardctl cards list', 'cardctl cards renew', 'cardctl cards deactivate', 'cardctl cards activate', 'cardctl simulate authorization', 'cardctl simulate financial', 'cardctl simulate reversal --original-tx', 'cardctl tx list']) {
      expect(out).toContain(`$ ${command}`);
    }
    expect(out).toContain('cardctl sandbox serve --profile sandbox');
    // The PIN is never shown other than in the printf of the command line, and the PAN is masked.
    expect(out).not.toMatch(/\b\d{16}\b/);
  });

  it("leaves the user's config, data and journal directories alone", async () => {
    const result = await cardctl(['demo', '--json'], { configDir: join(dir.path, 'config'), env: env() });
    expect(result.exitCode).toBe(0);
    expect(readdirSync(dir.path)).toEqual([]);
  });
});
