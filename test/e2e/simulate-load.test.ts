// End to end: `simulate load` through the built binary against `cardctl sandbox serve`, with
// `cardctl webhook listen` as the institution: a short open-loop run (2 s at 50/s) whose counts,
// outcomes and rate are checked, and the exit code for an SLO met and one missed.
import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, isolatedDirs, startSandboxProcess, startWebhookListener, tempDir, type RunningSandbox, type WebhookListener } from '../helpers/cli.js';
import { call, createCardOverHttp } from '../sandbox/helpers.js';

function startListener(args: string[], configDir: string): Promise<WebhookListener> {
  return startWebhookListener({ configDir, args });
}

let config: { path: string; remove(): void };
const listeners: WebhookListener[] = [];
let sandbox: RunningSandbox;
let env: Record<string, string>;
let cards: string[];

const run = (args: string[]) => cardctl(['simulate', 'load', ...args], { configDir: config.path, env, timeout: 60_000 });
const useWebhook = async (url: string) => {
  const response = await call(sandbox.info, 'PUT', `/sandbox/card-programs/${sandbox.info.cardProgramId}`, { token: sandbox.info.token, body: { webHookConfig: { url } } });
  expect(response.status, response.text).toBe(200);
};

beforeAll(async () => {
  config = tempDir();
  listeners.push(await startListener([], config.path), await startListener(['--delay', '300'], config.path));
  sandbox = await startSandboxProcess(['--webhook-url', listeners[0]!.url], { configDir: config.path });
  env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
  // No daily limits: every request of the run is one the webhook decides.
  const unlimited = { enabled: true, dailyLimit: { count: 0, amount: 0 } };
  const program = await call(sandbox.info, 'PUT', `/sandbox/card-programs/${sandbox.info.cardProgramId}`, { token: sandbox.info.token, body: { channels: { pos: unlimited, atm: unlimited, web: unlimited } } });
  expect(program.status, program.text).toBe(200);
  cards = [await createCardOverHttp(sandbox.info), await createCardOverHttp(sandbox.info)];
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  for (const listener of listeners) await listener.stop();
  config?.remove();
});

describe('simulate load', () => {
  it('2 s at 50/s: 100 requests on schedule, by the mix, approved by the webhook; SLOs met exit 0', async () => {
    await useWebhook(listeners[0]!.url);
    const result = await run(['--rate', '50/s', '--duration', '2s', '--card', cards[0]!, '--card', cards[1]!, '--mix', 'authorization=80,financial=15,reversal=5',
      '--max-p99', '1500ms', '--max-timeouts', '0.1%', '--min-approval', '95%', '-o', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ target: { rate: 50, durationMs: 2000 }, requests: 100, approved: 100, declined: 0, standIns: 0, timeouts: 0, errors: 0,
      intents: [{ intent: 'authorization', count: 80 }, { intent: 'financial', count: 15 }, { intent: 'reversal', count: 5 }], responseCodes: [{ code: '00', count: 100 }], deadlineMs: 5000, interrupted: false });
    expect(report.achievedRate).toBeGreaterThan(45);
    expect(report.achievedRate).toBeLessThan(55);
    for (const latency of [report.latencyMs.webhook, report.latencyMs.endToEnd]) {
      expect(latency.p50).toBeLessThanOrEqual(latency.p99);
      expect(latency.p99).toBeLessThanOrEqual(latency.max);
    }
    const listed = await cardctl(['tx', 'list', '--limit', '100', '-o', 'json'], { configDir: config.path, env, timeout: 60_000 });
    const byMti = JSON.parse(listed.stdout).reduce((counts: Record<string, number>, tx: { mti: string }) => ({ ...counts, [tx.mti]: (counts[tx.mti] ?? 0) + 1 }), {});
    expect(byMti).toEqual({ '0100': 80, '0200': 15, '0420': 5 });
  });

  it('a webhook slower than --max-p99: the report, one line for the missed SLO, exit 5', async () => {
    await useWebhook(listeners[1]!.url);
    const result = await run(['--concurrency', '4', '--count', '8', '--card', cards[0]!, '--max-p99', '100ms', '--min-approval', '95%']);
    expect(result.exitCode, result.stderr).toBe(5);
    expect(result.stdout).toMatch(/Requests\s+8: 8 authorization\n/);
    expect(result.stdout).toMatch(/Approved\s+8 \(100%\)/);
    expect(result.stderr).toMatch(/SLO missed: p99 latency \d+(\.\d+)? ms is above --max-p99 100 ms/);
    expect(result.stderr).not.toMatch(/--min-approval/);
  });

  // A webhook never reached answers nothing: its SLOs have no samples, and fail.
  it('no webhook URL: every request a stand-in, no webhook latency, --max-p99 and --max-timeouts missed, exit 5', async () => {
    await useWebhook('');
    try {
      const result = await run(['--concurrency', '2', '--count', '6', '--card', cards[0]!, '--max-p99', '1500ms', '--max-timeouts', '1%', '-o', 'json']);
      expect(result.exitCode, result.stderr).toBe(5);
      const report = JSON.parse(result.stdout);
      expect(report).toMatchObject({ requests: 6, declined: 6, webhookReplies: 0, webhookFailures: [{ cause: 'no webhook URL', count: 6 }],
        declinedBy: { sandbox: { count: 0 }, webhook: { count: 0 }, standIn: { count: 6, causes: [{ cause: 'no webhook URL', count: 6 }] } } });
      expect(report.latencyMs.webhook).toBeUndefined();
      expect(result.stderr).toContain('SLO missed: --max-p99 1500 ms: no webhook answered (of 6 requests: no webhook URL 6)\n');
      expect(result.stderr).toContain('SLO missed: --max-timeouts 1%: no webhook answered (of 6 requests: no webhook URL 6)\n');
    } finally {
      await useWebhook(listeners[0]!.url);
    }
  });

  it('a card that does not exist: every request declined by the sandbox, --max-p99 missed', async () => {
    await useWebhook(listeners[0]!.url);
    const result = await run(['--concurrency', '1', '--count', '3', '--card', 'no-such-card', '--max-p99', '1500ms']);
    expect(result.exitCode, result.stderr).toBe(5);
    expect(result.stdout).toMatch(/Declined +3 \(100%\)\n {4}by the sandbox 3 \(\d\d: 3\)\n/);
    expect(result.stdout).toMatch(/Webhook +no reply\n/);
    expect(result.stderr).toMatch(/SLO missed: --max-p99 1500 ms: no webhook answered \(of 3 requests: declined by the sandbox 3 \(\d\d: 3\)\)\n/);
  });

  it("counts stand-ins (approvals among them) and timeouts from the answer's fields, and the webhook's latency as the network saw it", async () => {
    await useWebhook(listeners[1]!.url); // answers after 300 ms
    const program = `/sandbox/card-programs/${sandbox.info.cardProgramId}`;
    const setStandIn = (standIn: Record<string, unknown>) => call(sandbox.info, 'PUT', program, { token: sandbox.info.token, body: { standIn } });
    expect((await call(sandbox.info, 'PUT', '/sandbox/webhook-faults', { token: sandbox.info.token, body: { spec: 'deadline=100ms' } })).status).toBe(200);
    expect((await setStandIn({ mode: 'approve', maxAmount: 1_000_000, dailyAmount: 100_000_000 })).status).toBe(200);
    try {
      const result = await run(['--concurrency', '2', '--count', '4', '--card', cards[0]!, '-o', 'json']);
      expect(result.exitCode, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout);
      // Every answer reads "Transaction approved": only its fields say the network stood in.
      expect(report).toMatchObject({ requests: 4, approved: 4, declined: 0, standIns: 4, timeouts: 4, deadlineMs: 100, responseCodes: [{ code: '00', count: 4 }] });
      expect(report.latencyMs.webhook.p50).toBeGreaterThanOrEqual(99);
      expect(report.latencyMs.webhook.max).toBeLessThan(300);
    } finally {
      await call(sandbox.info, 'PUT', '/sandbox/webhook-faults', { token: sandbox.info.token, body: {} });
      await setStandIn({ mode: 'decline' });
    }
  });

  it('--mix-file: the mix from YAML; a reversal with nothing that can be approved to reverse is not sent', async () => {
    await useWebhook(listeners[0]!.url);
    const file = join(config.path, 'mix.yaml');
    writeFileSync(file, 'reversal: 1\nfinancial: 1\n');
    const result = await run(['--concurrency', '1', '--count', '6', '--card', cards[0]!, '--mix-file', file, '-o', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    // Turns: reversal (nothing to reverse, and the one sender cannot send one while it waits:
    // not sent), financial, reversal of it, financial, reversal of it, financial.
    expect(JSON.parse(result.stdout)).toMatchObject({ requests: 5, approved: 5, intents: [{ intent: 'financial', count: 3 }, { intent: 'reversal', count: 2 }],
      notSent: [{ reason: 'reversal: nothing approved to reverse', count: 1 }] });
    writeFileSync(file, 'reversal: 1\n');
    const alone = await run(['--rate', '1', '--count', '1', '--card', cards[0]!, '--mix-file', file]);
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toMatch(/reversals need authorizations or financials/);
  });

  it('Ctrl-C stops the run and prints the report so far: exit 130', async () => {
    await useWebhook(listeners[0]!.url);
    const child = execa('node', [BIN, 'simulate', 'load', '--rate', '20/s', '--duration', '60s', '--card', cards[0]!, '-o', 'json'], {
      env: cleanEnv({ ...isolatedDirs(config.path), ...env }), extendEnv: false, reject: false,
    });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode, result.stderr).toBe(130);
    const report = JSON.parse(result.stdout);
    expect(report.interrupted).toBe(true);
    expect(report.requests).toBeGreaterThan(5);
    expect(report.requests).toBeLessThan(200);
    expect(report.approved).toBe(report.requests);
  });

  it('refuses what it must before sending: a remote base URL, an unbounded run, two loop kinds', async () => {
    const remote = await cardctl(['simulate', 'load', '--rate', '1', '--card', 'x', '--base-url', 'https://api.example.com'], { configDir: config.path, env, timeout: 60_000 });
    expect(remote.exitCode).toBe(2);
    expect(remote.stderr).toMatch(/refusing to send load to https:\/\/api.example.com/);
    const tooLong = await run(['--rate', '1', '--duration', '2h', '--card', 'x']);
    expect(tooLong.exitCode).toBe(2);
    expect(tooLong.stderr).toMatch(/longer than the limit of 1h/);
    const tooMany = await run(['--rate', '1', '--count', '20000000', '--card', 'x']);
    expect(tooMany.stderr).toMatch(/above the limit of 10,000,000/);
    const both = await run(['--rate', '1', '--concurrency', '2', '--card', 'x']);
    expect(both.stderr).toMatch(/either --rate .* or --concurrency/);
  });
});
