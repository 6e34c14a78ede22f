// An operator's day, end to end against a sandbox process: cards issued from a CSV, the run
// interrupted with Ctrl-C and finished with the command it printed, a renewal, a deactivation,
// one cardholder's last transactions found and exported as CSV, and the journal read back.
// Run `npm run build` first.
import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, isolatedDirs, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';

let dir: { path: string; remove(): void };
let sandbox: RunningSandbox;
let env: Record<string, string>;
const ROWS = 120;

const run = (args: string[], input?: string) => cardctl(args, { configDir: dir.path, env, input, timeout: 120_000 });
const json = (text: string) => JSON.parse(text);
const reportLines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map(json).filter((line) => 'row' in line);

beforeAll(async () => {
  dir = tempDir('cardctl-e2e-operator-');
  sandbox = await startSandboxProcess(['--quiet-log'], { configDir: dir.path });
  env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token, CARDCTL_API_KEY: sandbox.info.apiKey };
  const rows = Array.from({ length: ROWS }, (_, i) => {
    const n = String(i).padStart(4, '0');
    return i === 0 ? 'Ada,Obi,ada.obi@example.com,+2348010000000,2200000000' : `Staff${n},Member,staff${n}@example.com,+234801000${n.padStart(4, '0')},22000${n.padStart(5, '0')}`;
  });
  writeFileSync(join(dir.path, 'staff.csv'), `first-name,last-name,email,phone,account-number\n${rows.join('\n')}\n`);
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  dir?.remove();
});

describe("an operator's day", () => {
  let ada = '';
  let other = '';

  it('issues cards from a CSV; Ctrl-C says how many rows are left and the exact command that finishes; that command counts each row once', async () => {
    const report = join(dir.path, 'issue.ndjson');
    // Slow answers, so that Ctrl-C comes while rows are left.
    await fetch(`${sandbox.info.baseUrl}/sandbox/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ spec: 'latency=40-60ms' }) });
    const child = execa('node', [BIN, 'cards', 'create', '--rows-from-file', join(dir.path, 'staff.csv'), '--program', sandbox.info.cardProgramId, '--account-type', 'savings', '--concurrency', '2', '--report', report], {
      env: cleanEnv({ ...isolatedDirs(dir.path), ...env }), extendEnv: false, reject: false, stdin: 'ignore',
    });
    for (let i = 0; i < 400; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      try { if (reportLines(report).length >= 10) break; } catch { /* not there yet */ }
    }
    child.kill('SIGINT');
    const interrupted = await child;
    await fetch(`${sandbox.info.baseUrl}/sandbox/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(interrupted.exitCode, interrupted.stderr).toBe(130);
    const settled = reportLines(report).length;
    expect(settled).toBeLessThan(ROWS);
    expect(interrupted.stderr).toContain(`${(ROWS - settled).toLocaleString('en-US')} of ${ROWS} rows left`);
    const finish = /^hint: finish with: (cardctl .*)$/m.exec(interrupted.stderr)?.[1];
    expect(finish, interrupted.stderr).toBeDefined();
    expect(finish).toContain(`--resume ${report}`);
    expect(finish).not.toContain('--report');

    const resumed = await run([...finish!.split(' ').slice(1), '-o', 'json']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const summary = json(resumed.stdout);
    expect(summary.rows).toBe(ROWS);
    expect(summary.done + summary.already + summary.skipped).toBe(ROWS);
    expect(summary.failed).toBe(0);
    const cards = json((await run(['cards', 'list', '--all', '-o', 'json'])).stdout) as Array<{ id: string; customer: { emailAddress: string } }>;
    expect(cards).toHaveLength(ROWS);
    ada = cards.find((card) => card.customer.emailAddress === 'ada.obi@example.com')!.id;
    other = cards.find((card) => card.id !== ada)!.id;
  }, 180_000);

  it("renews and deactivates, with a reason the journal keeps", async () => {
    expect((await run(['cards', 'activate', ada, '-q'])).exitCode).toBe(0);
    expect((await run(['cards', 'activate', other, '-q'])).exitCode).toBe(0);
    const renewed = await run(['cards', 'renew', ada, '--expiration', `${new Date().getUTCFullYear() + 3}12`, '-o', 'json', '--fields', 'id,status']);
    expect(renewed.exitCode, renewed.stderr).toBe(0);
    expect(json(renewed.stdout)).toMatchObject({ status: 'active' });
    const deactivated = await run(['cards', 'deactivate', other, '--reason', 'lost on the bus', '--yes', '-q']);
    expect(deactivated.exitCode, deactivated.stderr).toBe(0);
    expect((await run(['cards', 'list', '--status', 'suspended', '-q'])).stdout.trim().split('\n')).toEqual([other]);
  }, 60_000);

  it("finds one cardholder's last five transactions without reading every one, and exports them as CSV", async () => {
    for (const card of [ada, ada, ada, other, ada, ada, ada, other]) {
      await run(['simulate', 'authorization', '--card', card, '--amount', '12.50', '-q']);
    }
    const last = await run(['tx', 'list', '--card', ada, '--limit', '5', '-o', 'json']);
    expect(last.exitCode, last.stderr).toBe(0);
    const five = json(last.stdout) as Array<{ card: { id: string } }>;
    expect(five).toHaveLength(5);
    expect(five.every((tx) => tx.card.id === ada)).toBe(true);
    const csv = await run(['tx', 'list', '--card', ada, '--all', '-o', 'csv', '--fields', 'id,amount,responseCode']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    // --fields amount names the Amount column, whose CSV is in major units.
    expect(lines[0]).toBe('id,amounts.amount,responseCode');
    expect(lines).toHaveLength(7);
    expect(lines.slice(1).every((line) => /^\w+,12\.50,\d\d$/.test(line))).toBe(true);
  }, 120_000);

  it('reads the journal: the day\'s writes, the reason shown, the card\'s simulations found by card', async () => {
    const history = await run(['history', '-o', 'json']);
    expect(history.exitCode, history.stderr).toBe(0);
    const entries = json(history.stdout) as Array<Record<string, unknown>>;
    expect(entries.some((entry) => JSON.stringify(entry).includes('lost on the bus'))).toBe(true);
    const table = await run(['history']);
    expect(table.stdout).toContain('lost on the bus');
    const byCard = json((await run(['history', '--card', ada, '-o', 'json'])).stdout) as unknown[];
    expect(byCard.length).toBeGreaterThanOrEqual(1 + 6);
  }, 60_000);
});
