// End to end: each lifecycle message (sandbox extensions) through the built binary against
// `cardctl sandbox serve`, in stub mode and in forward mode with `cardctl webhook listen` as
// the institution. Every test reads the lifecycle back and checks the amounts held, captured,
// released and refunded, the statuses and the links — not just exit codes.
import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookListener, tempDir, type RunningSandbox, type WebhookListener } from '../helpers/cli.js';
import { cliSession, startSigningSandbox } from '../helpers/signing-sandbox.js';
import { call, createCardOverHttp, type ClockAnswer } from '../sandbox/helpers.js';
import type { SimulateResult, Transaction, Lifecycle } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';


const EXAMPLES = fileURLToPath(new URL('../../examples/scenarios/lifecycle/', import.meta.url));
/** The listener verifies signatures with it; the card program signs with it. */
const WEBHOOK_SECRET = 'whsec_lifecycle_e2e';

function startListener(args: string[], configDir: string): Promise<WebhookListener> {
  return startWebhookListener({ configDir, args, secret: WEBHOOK_SECRET });
}

let config: { path: string; remove(): void };
let listener: WebhookListener;
let sandbox: RunningSandbox;
let env: Record<string, string>;

const { run, json } = cliSession(() => ({ configDir: config.path, env }));
const newCard = () => createCardOverHttp(sandbox.info);

const lifecycle = (id: string) => json<Lifecycle>(['tx', 'show', id, '--lifecycle']);
const kinds = (life: Lifecycle) => life.messages.map((m) => `${m.messageKind} ${m.mti} ${m.amount} ${m.responseCode}`);

beforeAll(async () => {
  config = tempDir();
  listener = await startListener([], config.path);
  ({ sandbox, env } = await startSigningSandbox(listener.url, WEBHOOK_SECRET, config.path));
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  await listener?.stop();
  config?.remove();
});

describe.each([['stub', []], ['forward', ['--forward']]] as const)('the lifecycle in %s mode', (mode, forward) => {
  it('auth → increment → partial clear: the hold grows, the clear captures part and releases the rest', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '1000', ...forward]);
    expect(auth).toMatchObject({ responseCode: '00', transactionStatus: 'pending' });
    const increment = await json<SimulateResult>(['simulate', 'increment', '--original-tx', auth.transactionId, '--amount', '250', ...forward]);
    expect(increment).toMatchObject({ responseCode: '00', mti: '0100', response: { 0: '0110' } });
    expect(increment.request['90']).toBeDefined();
    expect((await lifecycle(auth.transactionId)).amounts).toMatchObject({ authorized: 1250, held: 1250, captured: 0, released: 0 });

    const clear = await json<SimulateResult>(['simulate', 'clear', '--original-tx', auth.transactionId, '--amount', '900', ...forward]);
    expect(clear).toMatchObject({ responseCode: '00', mti: '0220', response: { 0: '0230' } });
    const life = await lifecycle(clear.transactionId); // a linked message's lifecycle is its original's
    expect(life).toMatchObject({ originalTransactionId: auth.transactionId, transactionStatus: 'completed' });
    expect(life.amounts).toMatchObject({ requested: 1000, authorized: 1250, held: 0, captured: 900, released: 350, refunded: 0 });
    expect(kinds(life)).toEqual(['authorization 0100 1000 00', 'increment 0100 250 00', 'completion 0220 900 00']);
    const stored = await json<Transaction>(['tx', 'show', increment.transactionId]);
    expect(stored).toMatchObject({ messageKind: 'increment', originalTransactionId: auth.transactionId });
  });

  it('auth → partial reversal → complete: the original stays pending with less held; complete captures the rest', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '1000', ...forward]);
    await json<SimulateResult>(['simulate', 'reversal', '--original-tx', auth.transactionId, '--amount', '400', ...forward]);
    const afterReversal = await lifecycle(auth.transactionId);
    expect(afterReversal).toMatchObject({ transactionStatus: 'pending' });
    expect(afterReversal.amounts).toMatchObject({ held: 600, released: 400 });

    const complete = await json<SimulateResult>(['simulate', 'complete', '--original-tx', auth.transactionId, ...forward]); // default: what it holds
    expect(complete.request['4']).toBe('000000060000');
    const life = await lifecycle(auth.transactionId);
    expect(life).toMatchObject({ transactionStatus: 'completed' });
    expect(life.amounts).toMatchObject({ held: 0, captured: 600, released: 400 });
  });

  it('a reversal without --amount takes the rest: what is neither reversed nor refunded', async () => {
    const card = await newCard();
    const purchase = await json<SimulateResult>(['simulate', 'financial', '--card', card, '--amount', '1000', ...forward]);
    await json<SimulateResult>(['simulate', 'refund', '--original-tx', purchase.transactionId, '--amount', '300', ...forward]);
    await json<SimulateResult>(['simulate', 'reversal', '--original-tx', purchase.transactionId, '--amount', '200', ...forward]);
    const rest = await json<SimulateResult>(['simulate', 'reversal', '--original-tx', purchase.transactionId, ...forward]);
    expect(rest).toMatchObject({ responseCode: '00' });
    expect(rest.request['4']).toBe('000000050000');
    expect((await lifecycle(purchase.transactionId)).amounts).toMatchObject({ released: 700, refunded: 300 });
  });

  it('purchase → two refunds; the third would pass the purchase and is refused naming what is left', async () => {
    const card = await newCard();
    const purchase = await json<SimulateResult>(['simulate', 'financial', '--card', card, '--amount', '1000', ...forward]);
    const first = await json<SimulateResult>(['simulate', 'refund', '--original-tx', purchase.transactionId, '--amount', '400', ...forward]);
    expect(first).toMatchObject({ responseCode: '00' });
    expect(first.request['3']).toBe('200000');
    await json<SimulateResult>(['simulate', 'refund', '--original-tx', purchase.transactionId, '--amount', '500', ...forward]);
    const third = await run(['simulate', 'refund', '--original-tx', purchase.transactionId, '--amount', '200', ...forward]);
    expect(third.exitCode).toBe(5);
    expect(third.stderr).toMatch(/left to refund: 100(\.00)?/);
    const life = await lifecycle(purchase.transactionId);
    expect(life.amounts).toMatchObject({ captured: 1000, refunded: 900 });
    expect(kinds(life)).toEqual(['financial 0200 1000 00', 'refund 0200 400 00', 'refund 0200 500 00']);
  });

  it('repeat: same transaction, same code, no second hold', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '300', ...forward]);
    const repeat = await json<SimulateResult>(['simulate', 'repeat', '--tx', auth.transactionId, ...forward]);
    expect(repeat).toMatchObject({ transactionId: auth.transactionId, responseCode: '00', stan: auth.stan, rrn: auth.rrn });
    expect((await lifecycle(auth.transactionId)).amounts).toMatchObject({ authorized: 300, held: 300 });
    const stored = await json<Transaction>(['tx', 'show', auth.transactionId]);
    expect(stored.repeats).toHaveLength(1);
    expect(present(stored.repeats, 'the repeats')[0]).toMatchObject({ mti: '0101' });
    if (mode === 'forward') expect(present(stored.repeats, 'the repeats')[0]).toMatchObject({ responseCode: '00', agreed: true });
  });

  it('advice: recorded with the network decision', async () => {
    const card = await newCard();
    const advice = await json<SimulateResult>(['simulate', 'advice', '--card', card, '--amount', '80', '--network-code', '00', ...forward]);
    expect(advice).toMatchObject({ responseCode: '00', mti: '0120', response: { 0: '0130' } });
    const stored = await json<Transaction>(['tx', 'show', advice.transactionId]);
    expect(stored).toMatchObject({ messageKind: 'advice', mti: '0120', transactionStatus: 'pending' });
    if (mode === 'forward') expect(stored.advice).toMatchObject({ acknowledged: true });
  });
});

describe('partial approval', () => {
  it('a webhook answering 10 with less: requested and approved amounts recorded, only the approved amount held', async () => {
    const partial = await startListener(['--respond', '10', '--approved-amount', '600'], config.path);
    const program = `/sandbox/card-programs/${sandbox.info.cardProgramId}`;
    const point = (url: string) => call(sandbox.info, 'PUT', program, { token: sandbox.info.token, body: { webHookConfig: { url } } });
    try {
      expect((await point(partial.url)).status).toBe(200);
      const card = await newCard();
      const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '1000', '--forward']);
      expect(auth).toMatchObject({ responseCode: '10', transactionStatus: 'pending' });
      expect(auth.response['4']).toBe('000000060000');
      expect(await json<Transaction>(['tx', 'show', auth.transactionId])).toMatchObject({ requestedAmount: 1000, approvedAmount: 600 });
      expect((await lifecycle(auth.transactionId)).amounts).toMatchObject({ requested: 1000, authorized: 600, held: 600 });
    } finally {
      await point(listener.url);
      await partial.stop();
    }
  });
});

describe('webhook listen --forward-to, with a handler of your own', () => {
  it('the duplicate-delivery example passes: duplicates and repeats relayed are counted as when the listener answers itself', async () => {
    // A correct handler, as the docs describe one: the request echoed, the response MTI of the
    // message it is or repeats (0100 and 0101 → 0110), the same code every time.
    const handler = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const message = JSON.parse(body);
        const mti = `${message['0'].slice(0, 2)}${Number(message['0'][2]) + 1}${Number(message['0'][3]) & ~1}`;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...message, '0': mti, '39': '00' }));
      });
    });
    await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve));
    const relay = await startListener(['--forward-to', `http://127.0.0.1:${(handler.address() as AddressInfo).port}/auth`], config.path);
    const program = `/sandbox/card-programs/${sandbox.info.cardProgramId}`;
    const point = (url: string) => call(sandbox.info, 'PUT', program, { token: sandbox.info.token, body: { webHookConfig: { url } } });
    try {
      expect((await point(relay.url)).status).toBe(200);
      const card = await newCard();
      const result = await run(['simulate', 'run', `${EXAMPLES}duplicate-delivery.yaml`, '--set', `card=${card}`, '-o', 'json']);
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ failed: 0, passed: 2 });
    } finally {
      await point(listener.url);
      await relay.stop();
      await new Promise((resolve) => handler.close(resolve));
    }
  }, 30_000);
});

describe('expiry', () => {
  it('expire releases the whole hold; a second is refused', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '700']);
    const expired = await json(['simulate', 'expire', '--original-tx', auth.transactionId]);
    expect(expired).toMatchObject({ id: auth.transactionId, transactionStatus: 'reversed', releaseReason: 'expiry', remainingAmount: 0 });
    expect((await lifecycle(auth.transactionId)).amounts).toMatchObject({ held: 0, released: 700 });
    const again = await run(['simulate', 'expire', '--original-tx', auth.transactionId]);
    expect(again.exitCode).toBe(5);
  });

  it('clock --advance past the hold period releases due holds', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '50']);
    const clock = await json<ClockAnswer>(['simulate', 'clock', '--advance', '169h']);
    expect(clock.expired).toBeGreaterThanOrEqual(1);
    expect(clock.offsetSeconds).toBeGreaterThanOrEqual(169 * 3600);
    const life = await lifecycle(auth.transactionId);
    expect(life).toMatchObject({ transactionStatus: 'reversed' });
    expect(life.amounts).toMatchObject({ held: 0, released: 50 });
  });
});

describe('tx show', () => {
  it('ends the table view with the lifecycle', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '1000']);
    await json<SimulateResult>(['simulate', 'increment', '--original-tx', auth.transactionId, '--amount', '20']);
    const shown = await run(['tx', 'show', auth.transactionId]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('# lifecycle');
    expect(shown.stdout).toContain(`${auth.transactionId}\tpending\trequested 1000\tauthorized 1020\theld 1020\tcaptured 0\treleased 0\trefunded 0\t566`);
    expect(shown.stdout).toMatch(/\tincrement\t0100\t20\t00\tpending\t/);
  });
});

describe('example lifecycle scenarios, with webhook listen as the institution', () => {
  const files = readdirSync(EXAMPLES).filter((f) => /\.ya?ml$/.test(f)).sort();

  it('ships one for each flow', () => {
    expect(files).toEqual([
      'auth-expiry.yaml', 'auth-increment-partial-clear.yaml', 'auth-partial-reversal-clear.yaml', 'duplicate-delivery.yaml',
      'lost-reply-timeout-reversal.yaml', 'lost-reversal-reply.yaml', 'purchase-two-refunds.yaml', 'timeout-stand-in-advice.yaml',
    ]);
  });

  it.each(files)('%s passes', async (file) => {
    const card = await newCard();
    const result = await run(['simulate', 'run', `${EXAMPLES}${file}`, '--set', `card=${card}`, '--set', `program=${sandbox.info.cardProgramId}`, '-o', 'json']);
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.failed).toBe(0);
    expect(summary.passed).toBeGreaterThan(1);
  }, 30_000);
});
