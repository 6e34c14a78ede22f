// End to end: an advice the webhook does not acknowledge is delivered again, through the built
// binary. The institution (`cardctl webhook listen`) is down when `simulate advice --forward`
// runs and comes back on the same port after the third attempt; the sandbox retries after 1 s,
// then 2 s, then 4 s (docs/switch.md, stand-in), and `tx show` tells each step: attempts,
// whether acknowledged, the last result, and when (the record's updatedAt moves with each
// attempt). The listener sees the advice once, on the attempt that is acknowledged: a repeat
// (0121), which it answers the ISO way (0130).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWebhookListener, tempDir, type RunningSandbox, type WebhookListener } from '../helpers/cli.js';
import { cliSession, startSigningSandbox } from '../helpers/signing-sandbox.js';
import { createCardOverHttp } from '../sandbox/helpers.js';
import type { SimulateResult, Transaction } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';

const WEBHOOK_SECRET = 'whsec_advice_retry_e2e';


function startListener(port: number | 0): Promise<WebhookListener> {
  return startWebhookListener({ configDir: config.path, port, secret: WEBHOOK_SECRET });
}

let config: { path: string; remove(): void };
let sandbox: RunningSandbox;
let env: Record<string, string>;
const listeners: WebhookListener[] = [];

const { json } = cliSession(() => ({ configDir: config.path, env }));

/** `tx show` of `id` until `done` holds of it (or `withinMs` passes: the last one then). */
async function showUntil(id: string, done: (tx: Transaction) => boolean, withinMs: number): Promise<Transaction> {
  const until = Date.now() + withinMs;
  for (;;) {
    const tx = await json<Transaction>(['tx', 'show', id]);
    if (done(tx) || Date.now() > until) return tx;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  config = tempDir();
  listeners.push(await startListener(0));
  ({ sandbox, env } = await startSigningSandbox(listeners[0]!.url, WEBHOOK_SECRET, config.path));
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  for (const listener of listeners) await listener.stop();
  config?.remove();
});

it('an advice the webhook did not acknowledge is retried after 1, 2 and 4 s until it is, then recorded acknowledged', async () => {
  const card = await createCardOverHttp(sandbox.info);
  const port = Number(new URL(listeners[0]!.url).port);
  await listeners[0]!.stop();

  // The network decided (00); the webhook is down: recorded with the network's decision, not acknowledged.
  const advice = await json<SimulateResult>(['simulate', 'advice', '--card', card, '--amount', '80', '--network-code', '00', '--forward']);
  expect(advice).toMatchObject({ mti: '0120', responseCode: '00', response: { 0: '0130' } });
  const first = await json<Transaction>(['tx', 'show', advice.transactionId]);
  expect(first).toMatchObject({ messageKind: 'advice', responseCode: '00', advice: { acknowledged: false, attempts: 1 } });
  expect(present(first.advice, 'the advice').lastResult).toMatch(/could not be reached/);

  // Two more attempts fail: 1 s after the first, then 2 s after that.
  const third = await showUntil(advice.transactionId, (tx) => present(tx.advice, 'the advice').attempts >= 3, 10_000);
  expect(third.advice).toMatchObject({ acknowledged: false, attempts: 3 });
  const createdAt = Date.parse(third.createdAt);
  expect(Date.parse(third.updatedAt) - createdAt).toBeGreaterThanOrEqual(3_000);
  expect(Date.parse(third.updatedAt) - createdAt).toBeLessThan(3_000 + 2_500);

  // The institution is back; the next attempt, 4 s after the third, is acknowledged.
  listeners.push(await startListener(port));
  const acknowledged = await showUntil(advice.transactionId, (tx) => present(tx.advice, 'the advice').acknowledged, 15_000);
  expect(acknowledged).toMatchObject({ messageKind: 'advice', mti: '0120', responseCode: '00', transactionStatus: 'pending', advice: { acknowledged: true, attempts: 4, lastResult: 'acknowledged (00)' } });
  const gap = Date.parse(acknowledged.updatedAt) - Date.parse(third.updatedAt);
  expect(gap).toBeGreaterThanOrEqual(4_000);
  expect(gap).toBeLessThan(4_000 + 2_500);

  // The listener got it once, signed, on the attempt that counted; no attempt follows. It prints
  // an exchange after answering, so its line may reach us just after the sandbox recorded the answer.
  const exchanges = () => listeners[1]!.lines.slice(1).map((line) => JSON.parse(line)).filter((line) => line.type === 'exchange');
  for (const until = Date.now() + 5_000; exchanges().length === 0 && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 50));
  // A delivery after the first is a repeat (0121), carrying the network's decision (39).
  expect(exchanges()).toEqual([expect.objectContaining({ mti: '0121', stan: advice.stan, status: 200, signature: 'valid', responseCode: '00', request: expect.objectContaining({ 39: '00' }) })]);
  expect(exchanges()[0].response['0']).toBe('0130');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(present((await json<Transaction>(['tx', 'show', advice.transactionId])).advice, 'the advice').attempts).toBe(4);
  expect(exchanges()).toHaveLength(1);
}, 60_000);
