// The lifecycle in forward mode, with a test webhook as the institution, and the faults on the
// webhook path: partial approval, increments and completions at the webhook, stand-in and its
// advice retried until acknowledged, repeats (and whether the webhook agreed), timeout
// reversals after a late or lost reply, and each webhook fault seeded and recorded. No sleeps:
// the webhook holds its answers until the test releases them, and deadlines are short.
import { beforeEach, describe, expect, it } from 'vitest';
import { parseWebhookFaults, webhookFaultController, WebhookFaultSpecError } from '../../src/sandbox/switch/webhook-faults.js';
import { call, type DataEnvelope, type WebhookFaultState, errorOf } from './helpers.js';
import { auth, cardOf, echo, financial, simulate, updateProgram, useForwardSandbox, type Received } from './switch-helpers.js';
import type { Card, Lifecycle, Transaction, SimulateEnvelope } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';

let card: Card;

// Advices are delivered again by hand here (POST /sandbox/switch/advices/deliver), never by the
// timer, so the attempts counted are the ones the tests make however slow the machine.
const env = useForwardSandbox({ secret: 'whsec_lifecycle' }, { adviceRetryFirstMs: 3_600_000 });
beforeEach(async () => {
  await setWebhookFaults({});
  await updateProgram(env.sb, env.programId, { standIn: { mode: 'decline', maxAmount: 0, dailyAmount: 0 } });
  card = await cardOf(env.sb, env.programId);
});

async function setWebhookFaults(body: Record<string, unknown>) {
  const response = await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const forward = (extra: Record<string, unknown> = {}) => auth(card.id, { responseMode: 'forward', ...extra });

async function message(body: Record<string, unknown>) {
  return call<SimulateEnvelope>(env.sb, 'POST', '/sandbox/switch/messages', { token: env.sb.token, body: { responseMode: 'forward', ...body } });
}

async function stored(id: string) {
  return (await call<DataEnvelope<Transaction>>(env.sb, 'GET', `/institutions/transactions/${id}`, { token: env.sb.token })).body.data;
}

async function lifecycle(id: string) {
  return (await call<DataEnvelope<Lifecycle>>(env.sb, 'GET', `/sandbox/transactions/${id}/lifecycle`, { token: env.sb.token })).body.data;
}

/** Resolves once the webhook has received a message matching `test` (polling the test server's log). */
async function receivedWhere(test: (r: Received) => boolean): Promise<Received> {
  for (;;) {
    const found = env.hook.received.find(test);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves once the stored transaction satisfies `test`. */
async function storedWhere(id: string, test: (tx: Transaction) => boolean): Promise<Transaction> {
  for (;;) {
    const tx = await stored(id);
    if (test(tx)) return tx;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Answers the first message only once released; later messages with `then`. */
function holdFirst(first: string, then = echo('00')) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  let calls = 0;
  env.hook.respond(async (received, res) => {
    if (calls++ === 0) { await gate; return echo(first)(received, res); }
    return then(received, res);
  });
  return release;
}

describe('partial approval and the lifecycle at the webhook', () => {
  it('code 10 with a lower field 4: requested and approved recorded, the hold is what was approved', async () => {
    env.hook.respond((received, res) => echo('10', { '4': '000000006000' })(received, res));
    const response = await simulate(env.sb, forward({ amount: 100 }));
    expect(response.body).toMatchObject({ status: 'success', data: { responseCode: '10' } });
    const id = response.body.data.transactionId;
    expect(await stored(id)).toMatchObject({ requestedAmount: 100, approvedAmount: 60 });
    expect((await lifecycle(id)).amounts).toMatchObject({ requested: 100, authorized: 60, held: 60 });
  });

  it('code 10 for more than requested is not an answer: 96', async () => {
    env.hook.respond((received, res) => echo('10', { '4': '000000020000' })(received, res));
    const response = await simulate(env.sb, forward({ amount: 100 }));
    expect(response.body.data.responseCode).toBe('96');
    expect(response.body.message).toMatch(/not a partial amount/);
  });

  it('increment and completion go to the webhook; the completion is an advice it cannot decline', async () => {
    const original = (await simulate(env.sb, forward({ amount: 100 }))).body.data.transactionId;
    const increment = await message({ message: 'increment', originalTransactionId: original, amount: 30 });
    expect(increment.body.data.responseCode).toBe('00');
    const sent = env.hook.received.at(-1)!.message;
    expect(sent).toMatchObject({ '0': '0100', '4': '000000003000' });
    expect(sent['90']!.slice(0, 4)).toBe('0100');

    env.hook.respond(echo('05'));
    const completion = await message({ message: 'completion', originalTransactionId: original, amount: 130 });
    expect(completion.body).toMatchObject({ status: 'success', data: { mti: '0220', responseCode: '00' } });
    expect(env.hook.received.at(-1)!.message['0']).toBe('0220');
    expect(await stored(completion.body.data.transactionId)).toMatchObject({ advice: { acknowledged: true, attempts: 1, lastResult: 'acknowledged (05)' } });
    expect((await lifecycle(original)).amounts).toMatchObject({ authorized: 130, captured: 130, held: 0, released: 0 });
  });

  it('an authorization advice goes to the webhook, which cannot decline it; unacknowledged, it is delivered again', async () => {
    env.hook.respond(echo('05'));
    const advice = await message({ message: 'advice', cardId: card.id, amount: 30 });
    expect(advice.body).toMatchObject({ status: 'success', data: { mti: '0120', responseCode: '00', transactionStatus: 'pending' } });
    expect(env.hook.received.at(-1)!.message).toMatchObject({ '0': '0120', '4': '000000003000' });
    expect(await stored(advice.body.data.transactionId)).toMatchObject({ advice: { acknowledged: true, attempts: 1, lastResult: 'acknowledged (05)' } });

    env.hook.respond((_received, res) => { res.writeHead(500).end(); });
    const refused = await message({ message: 'advice', cardId: card.id, amount: 30, networkResponseCode: '51' });
    expect(refused.body.data).toMatchObject({ responseCode: '51', transactionStatus: 'failed' });
    expect((await stored(refused.body.data.transactionId)).advice).toMatchObject({ acknowledged: false, attempts: 1 });
    env.hook.respond(echo('00'));
    expect((await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} })).body).toEqual({ delivered: 1, pending: 0 });
    expect((await stored(refused.body.data.transactionId)).advice).toMatchObject({ acknowledged: true, attempts: 2 });
  });

  it('an increment the webhook declines leaves the hold as it was', async () => {
    const original = (await simulate(env.sb, forward({ amount: 100 }))).body.data.transactionId;
    env.hook.respond(echo('51'));
    expect((await message({ message: 'increment', originalTransactionId: original, amount: 30 })).body.data.responseCode).toBe('51');
    expect((await lifecycle(original)).amounts).toMatchObject({ authorized: 100, held: 100 });
  });

  it('a refund the webhook declines gives its reservation back', async () => {
    const purchase = (await simulate(env.sb, financial(card.id, { amount: 100, responseMode: 'forward' }))).body.data.transactionId;
    env.hook.respond(echo('05'));
    expect((await message({ message: 'refund', originalTransactionId: purchase, amount: 100 })).body.data.responseCode).toBe('05');
    env.hook.respond(echo('00'));
    expect((await message({ message: 'refund', originalTransactionId: purchase, amount: 100 })).body.data.responseCode).toBe('00');
    expect((await lifecycle(purchase)).amounts).toMatchObject({ captured: 100, refunded: 100 });
  });
});

describe('stand-in', () => {
  it('decline (the default): 96 as before, recorded as a stand-in', async () => {
    await setWebhookFaults({ garbage: 1 });
    const response = await simulate(env.sb, forward());
    expect(response.body).toMatchObject({ status: 'failed', data: { responseCode: '96' } });
    expect(await stored(response.body.data.transactionId)).toMatchObject({ standIn: { decision: '96' }, webhookFaults: ['garbage'] });
  });

  it('approve under the amounts, then the advice is delivered and retried until acknowledged', async () => {
    await updateProgram(env.sb, env.programId, { standIn: { mode: 'approve', maxAmount: 200, dailyAmount: 300 } });
    await setWebhookFaults({ deadline: '30ms' });
    const release = holdFirst('00', (_received, res) => { res.writeHead(503).end(); });
    const response = await simulate(env.sb, forward({ amount: 150 }));
    release();
    expect(response.body).toMatchObject({ status: 'success', data: { responseCode: '00', transactionStatus: 'pending' } });
    const id = response.body.data.transactionId;
    expect(await stored(id)).toMatchObject({ standIn: { decision: '00', reason: expect.stringMatching(/timeout/) }, webhookFaults: ['deadline 30ms'] });
    expect((await lifecycle(id)).amounts).toMatchObject({ held: 150 });

    // The advice (0120, same STAN) reaches the webhook, which refuses it (503): not acknowledged.
    const advice = await receivedWhere((r) => r.message['0'] === '0120');
    expect(advice.message['11']).toBe(response.body.data.stan);
    const adviceId = present((await lifecycle(id)).messages.find((m) => m.messageKind === 'stand-in-advice'), 'the stand-in advice').transactionId;
    await storedWhere(adviceId, (tx) => present(tx.advice, 'the advice').attempts === 1);
    expect((await stored(adviceId)).advice).toMatchObject({ acknowledged: false, lastResult: expect.stringMatching(/HTTP 503/) });

    // Retried until acknowledged.
    env.hook.respond(echo('00'));
    const delivered = await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} });
    expect(delivered.body).toMatchObject({ delivered: 1, pending: 0 });
    expect((await stored(adviceId)).advice).toMatchObject({ acknowledged: true, attempts: 2 });
    expect((await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} })).body).toEqual({ delivered: 0, pending: 0 });

    // Over the per-transaction amount, or past the day's stand-in total: declined.
    env.hook.respond((_received, res) => { res.destroy(); });
    expect((await simulate(env.sb, forward({ amount: 201 }))).body.data.responseCode).toBe('96');
    expect((await simulate(env.sb, forward({ amount: 151 }))).body.data.responseCode).toBe('96');
    expect((await simulate(env.sb, forward({ amount: 150 }))).body.data.responseCode).toBe('00');
    // That last advice is acknowledged before the next test (its retry would reach the webhook then).
    await receivedWhere((r) => r.message['0'] === '0120' && r !== advice);
    env.hook.respond(echo('00'));
    await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} });
    expect((await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} })).body).toEqual({ delivered: 0, pending: 0 });
  });
});

describe('timeout reversal', () => {
  it('an approval after the deadline, the network having declined: the webhook gets a reversal of what it approved', async () => {
    await setWebhookFaults({ deadline: '30ms' });
    const release = holdFirst('00');
    const response = await simulate(env.sb, forward({ amount: 80 }));
    expect(response.body.data.responseCode).toBe('96');
    release();
    const reversal = await receivedWhere((r) => r.message['0'] === '0420');
    const authorization = env.hook.received.find((r) => r.message['0'] === '0100' && r.message['11'] === response.body.data.stan)!;
    expect(reversal.message).toMatchObject({ '4': '000000008000', '2': authorization.message['2'], '11': response.body.data.stan });
    expect(reversal.message['90']!.slice(0, 10)).toBe(`0100${response.body.data.stan}`);
    const id = response.body.data.transactionId;
    for (;;) {
      const messages = (await lifecycle(id)).messages;
      const linked = messages.find((m) => m.messageKind === 'timeout-reversal');
      if (linked?.responseCode === '00') break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await stored(id)).toMatchObject({ transactionStatus: 'failed', standIn: { decision: '96' } });
    expect((await lifecycle(id)).amounts).toMatchObject({ held: 0, authorized: 0 });
  });

  it('a reply lost on the way: stand-in, then a timeout reversal; recorded as reply-lost', async () => {
    await setWebhookFaults({ 'reply-lost': 1 });
    const response = await simulate(env.sb, forward({ amount: 40 }));
    expect(response.body.data.responseCode).toBe('96');
    expect(response.body.message).toMatch(/lost/);
    await receivedWhere((r) => r.message['0'] === '0420');
    expect(await stored(response.body.data.transactionId)).toMatchObject({ webhookFaults: ['reply-lost'], standIn: { decision: '96' } });
  });

  it('a late decline needs no reversal', async () => {
    await setWebhookFaults({ deadline: '30ms' });
    const release = holdFirst('05');
    const response = await simulate(env.sb, forward());
    release();
    // The next exchange starts only after the late reply was read: nothing was reversed before it.
    await setWebhookFaults({});
    await simulate(env.sb, forward());
    expect(env.hook.received.map((r) => r.message['0'])).toEqual(['0100', '0100']);
    expect((await lifecycle(response.body.data.transactionId)).messages).toHaveLength(1);
  });
});

describe('a reversal the webhook did not answer stands, and is repeated until acknowledged', () => {
  /** Delivers what awaits an acknowledgement until nothing does (so no retry reaches the next test). */
  async function deliverAll() {
    for (let i = 0; i < 5; i++) if ((await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} })).body.pending === 0) return;
    throw new Error('deliveries still pending');
  }

  const cases: Array<[string, Record<string, unknown>, (() => () => void) | undefined, RegExp]> = [
    ['timeout', { deadline: '30ms' }, () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => { release = resolve; });
      env.hook.respond(async (received, res) => {
        if (received.message['0'] === '0420') await gate;
        return echo('00')(received, res);
      });
      return release;
    }, /timeout/],
    ['reply lost', { 'reply-lost': 1 }, undefined, /lost/],
    ['reset', { reset: 1 }, undefined, /reset/],
    ['garbage', { garbage: 1 }, undefined, /not JSON/],
  ];
  for (const [label, faults, arrange, reason] of cases) {
    it(`${label}: the network releases the hold (a stand-in), then repeats the reversal (0421) until the webhook acknowledges it`, async () => {
      const original = (await simulate(env.sb, forward({ amount: 90 }))).body.data;
      const release = arrange?.();
      await setWebhookFaults(faults);
      const reversal = await simulate(env.sb, { intent: 'reversal', processingFlow: 'purchase', amount: 90, originalTransactionId: original.transactionId, responseMode: 'forward' });
      release?.();
      await setWebhookFaults({});
      expect(reversal.body).toMatchObject({ status: 'success', data: { mti: '0420', responseCode: '00', standIn: { decision: '00', reason: expect.stringMatching(reason) } } });
      expect(await stored(reversal.body.data.transactionId)).toMatchObject({ standIn: { decision: '00' }, advice: { acknowledged: false, attempts: 1 } });
      expect(await stored(original.transactionId)).toMatchObject({ transactionStatus: 'reversed', reversed: true });
      expect((await lifecycle(original.transactionId)).amounts).toMatchObject({ held: 0, released: 90 });

      env.hook.respond(echo('00'));
      await deliverAll();
      const repeat = await receivedWhere((r) => r.message['0'] === '0421');
      expect(repeat.message).toMatchObject({ '11': reversal.body.data.stan, '37': reversal.body.data.rrn, '4': '000000009000', '90': reversal.body.data.request['90'] });
      expect((await stored(reversal.body.data.transactionId)).advice).toMatchObject({ acknowledged: true, lastResult: 'acknowledged (00)' });
      expect(await stored(original.transactionId)).toMatchObject({ transactionStatus: 'reversed' });
    });
  }

  it('the timeout reversal after a stand-in decline is repeated (0421) until acknowledged too', async () => {
    await setWebhookFaults({ 'reply-lost': 1 });
    env.hook.respond((received, res) => (received.message['0'] === '0420' ? void res.writeHead(503).end() : echo('00')(received, res)));
    const response = await simulate(env.sb, forward({ amount: 40 }));
    await setWebhookFaults({});
    expect(response.body.data.responseCode).toBe('96');
    await receivedWhere((r) => r.message['0'] === '0420');
    const reversalOf = async () => (await lifecycle(response.body.data.transactionId)).messages.find((m) => m.messageKind === 'timeout-reversal');
    const id = present(await reversalOf(), 'the timeout reversal').transactionId;
    await storedWhere(id, (tx) => present(tx.advice, 'the advice').attempts === 1);
    expect(await stored(id)).toMatchObject({ responseCode: '00', advice: { acknowledged: false, lastResult: expect.stringMatching(/HTTP 503/) } });
    env.hook.respond(echo('00'));
    await deliverAll();
    const repeat = await receivedWhere((r) => r.message['0'] === '0421');
    expect(repeat.message).toMatchObject({ '11': response.body.data.stan, '4': '000000004000' });
    expect((await stored(id)).advice).toMatchObject({ acknowledged: true });
  });
});

describe('advices carry the network decision (39) and, after a stand-in, why (44)', () => {
  it('an advice and its repeat carry field 39; a completion carries it', async () => {
    env.hook.respond((_received, res) => { res.writeHead(500).end(); });
    const advice = await message({ message: 'advice', cardId: card.id, amount: 30, networkResponseCode: '51' });
    expect(env.hook.received.at(-1)!.message).toMatchObject({ '0': '0120', '39': '51' });
    expect(env.hook.received.at(-1)!.message['44']).toBeUndefined();
    env.hook.respond(echo('00'));
    expect((await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} })).body).toEqual({ delivered: 1, pending: 0 });
    expect(env.hook.received.at(-1)!.message).toMatchObject({ '0': '0121', '39': '51', '11': advice.body.data.stan, '37': advice.body.data.rrn });

    const original = (await simulate(env.sb, forward({ amount: 100 }))).body.data.transactionId;
    await message({ message: 'completion', originalTransactionId: original, amount: 60 });
    expect(env.hook.received.at(-1)!.message).toMatchObject({ '0': '0220', '39': '00' });
  });

  it.each([
    ['timeout', { deadline: '30ms' }],
    ['reset', { reset: 1 }],
    ['reply-lost', { 'reply-lost': 1 }],
    ['invalid-reply', { garbage: 1 }],
  ])('a stand-in approval after %s: the advice carries 39 and 44', async (cause, faults) => {
    await updateProgram(env.sb, env.programId, { standIn: { mode: 'approve', maxAmount: 200, dailyAmount: 100_000 } });
    const release = cause === 'timeout' ? holdFirst('00') : undefined;
    await setWebhookFaults(faults);
    const response = await simulate(env.sb, forward({ amount: 20 }));
    release?.();
    await setWebhookFaults({});
    expect(response.body.data).toMatchObject({ responseCode: '00', standIn: { decision: '00' } });
    const advice = await receivedWhere((r) => r.message['0'] === '0120');
    expect(advice.message).toMatchObject({ '11': response.body.data.stan, '39': '00', '44': cause });
  });
});

describe('repeats and duplicates', () => {
  it("a repeat goes to the webhook; its disagreeing answer is recorded, the network's answer stays the first", async () => {
    const original = (await simulate(env.sb, forward())).body.data.transactionId;
    env.hook.respond(echo('05'));
    const repeat = await call<SimulateEnvelope>(env.sb, 'POST', `/sandbox/transactions/${original}/repeat`, { token: env.sb.token, body: { responseMode: 'forward' } });
    expect(repeat.body.data).toMatchObject({ transactionId: original, responseCode: '00' });
    expect(env.hook.received.at(-1)!.message['0']).toBe('0101');
    env.hook.respond(echo('00'));
    await call<SimulateEnvelope>(env.sb, 'POST', `/sandbox/transactions/${original}/repeat`, { token: env.sb.token, body: { responseMode: 'forward' } });
    const after = await stored(original);
    expect(present(after.repeats, 'the repeats').map((r) => [r.mti, r.responseCode, r.agreed])).toEqual([['0101', '05', false], ['0101', '00', true]]);
    expect((await lifecycle(original)).amounts).toMatchObject({ authorized: 100, held: 100 });

    // A repeat lost on its way back: recorded with its fault, no answer, the network's answer unchanged.
    await setWebhookFaults({ 'reply-lost': 1 });
    expect((await call<SimulateEnvelope>(env.sb, 'POST', `/sandbox/transactions/${original}/repeat`, { token: env.sb.token, body: { responseMode: 'forward' } })).body.data.responseCode).toBe('00');
    expect(present((await stored(original)).repeats, 'the repeats').at(-1)).toMatchObject({ responseCode: '', agreed: false, webhookFaults: ['reply-lost'] });
  });

  it('a repeat answered the ISO way (0110 to a 0101) or its own way (0111) is an answer', async () => {
    const original = (await simulate(env.sb, forward())).body.data.transactionId;
    for (const mti of ['0110', '0111']) {
      env.hook.respond((received, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...received.message, '0': mti, '39': '00' })); });
      await call<SimulateEnvelope>(env.sb, 'POST', `/sandbox/transactions/${original}/repeat`, { token: env.sb.token, body: { responseMode: 'forward' } });
    }
    expect(present((await stored(original)).repeats, 'the repeats').map((r) => [r.mti, r.responseCode, r.agreed])).toEqual([['0101', '00', true], ['0101', '00', true]]);
  });

  it('duplicate delivery: the webhook gets the message twice; whether it answered alike is recorded', async () => {
    await setWebhookFaults({ duplicate: 1 });
    const consistent = await simulate(env.sb, forward());
    expect(env.hook.received).toHaveLength(2);
    expect(env.hook.received[0]!.body).toBe(env.hook.received[1]!.body);
    expect(await stored(consistent.body.data.transactionId)).toMatchObject({ webhookFaults: ['duplicate'], repeats: [{ mti: '0100', agreed: true }] });
    expect((await lifecycle(consistent.body.data.transactionId)).amounts.held).toBe(100);

    let calls = 0;
    env.hook.respond((received, res) => echo(calls++ % 2 === 0 ? '00' : '05')(received, res));
    const inconsistent = await simulate(env.sb, forward());
    expect((await stored(inconsistent.body.data.transactionId)).repeats).toEqual([expect.objectContaining({ agreed: false })]);
  });
});

describe('webhook faults', () => {
  it('reset after sending: the webhook saw the message, the network no answer (96)', async () => {
    await setWebhookFaults({ reset: 1 });
    const response = await simulate(env.sb, forward());
    expect(response.body.data.responseCode).toBe('96');
    expect(response.body.message).toMatch(/reset/);
    expect(env.hook.received).toHaveLength(1);
    expect(await stored(response.body.data.transactionId)).toMatchObject({ webhookFaults: ['reset'] });
  });

  it('delay: recorded, and counted against the deadline', async () => {
    await setWebhookFaults({ delay: '5ms' });
    const slow = await simulate(env.sb, forward());
    expect(slow.body.data.responseCode).toBe('00');
    expect(await stored(slow.body.data.transactionId)).toMatchObject({ webhookFaults: ['delay 5ms'] });
    await setWebhookFaults({ delay: '60ms', deadline: '20ms' });
    const late = await simulate(env.sb, forward());
    expect(late.body.data.responseCode).toBe('96');
    expect(await stored(late.body.data.transactionId)).toMatchObject({ webhookFaults: ['delay 60ms', 'deadline 20ms'] });
  });

  it('seeded: the same seed gives the same faults, message by message', async () => {
    const run = async () => {
      await setWebhookFaults({ spec: 'garbage=0.5,duplicate=0.3', seed: 7 });
      const faults: string[][] = [];
      for (let i = 0; i < 8; i++) faults.push((await stored((await simulate(env.sb, forward({ amount: 1 }))).body.data.transactionId)).webhookFaults ?? []);
      return faults;
    };
    const first = await run();
    expect(first.flat()).toContain('garbage');
    expect(first.flat().length).toBeLessThan(16);
    expect(await run()).toEqual(first);
  });

  it('GET and PUT /sandbox/webhook-faults; a bad key is a 400 naming it', async () => {
    expect((await setWebhookFaults({ spec: 'delay=10-20ms,deadline=2s,reset=0.1', seed: 3 }))).toEqual({ spec: 'delay=10-20ms,deadline=2000ms,reset=0.1', seed: 3, programs: [] });
    expect((await call<WebhookFaultState>(env.sb, 'GET', '/sandbox/webhook-faults', { token: env.sb.token })).body).toEqual({ spec: 'delay=10-20ms,deadline=2000ms,reset=0.1', seed: 3, programs: [] });
    const bad = await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: { jitter: 1 } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).message).toMatch(/unknown webhook fault "jitter"/);
  });
});

describe('parseWebhookFaults', () => {
  it('parses every key and rejects bad values naming the key', () => {
    expect(parseWebhookFaults('delay=100-300ms,deadline=1.5s,duplicate=0.1,reset=0.05,reply-lost=0.2,garbage=0.01')).toEqual({
      delay: [100, 300], deadlineMs: 1500, duplicate: 0.1, reset: 0.05, replyLost: 0.2, garbage: 0.01,
    });
    expect(parseWebhookFaults('')).toEqual({ deadlineMs: 5000, duplicate: 0, reset: 0, replyLost: 0, garbage: 0 });
    for (const [text, key] of [['reset=2', 'reset'], ['delay=300-100ms', 'delay'], ['deadline=0ms', 'deadline'], ['nope', 'nope'], ['lag=1', 'lag']] as const) {
      expect(() => parseWebhookFaults(text)).toThrow(WebhookFaultSpecError);
      try { parseWebhookFaults(text); } catch (error) { expect((error as WebhookFaultSpecError).key).toBe(key); }
    }
  });

  it('draws replay with the seed and differ with another', () => {
    const spec = parseWebhookFaults('delay=0-100ms,duplicate=0.5,reset=0.5,reply-lost=0.5,garbage=0.5');
    const scope = { institutionId: 'i1' };
    const draws = (seed: number) => { const c = webhookFaultController(scope, spec, seed); return Array.from({ length: 20 }, () => c.draw(scope)); };
    expect(draws(42)).toEqual(draws(42));
    expect(draws(42)).not.toEqual(draws(43));
  });
});
