// The ledger of the switch (src/sandbox/switch/ledger.ts), one class of escape at a time: what
// is given back (reversals and refunds together never pass what was captured), what may be
// refunded (purchases only), one change of a hold at a time (messages in flight), daily limits
// and stand-in amounts per currency, entries that are the message sent (overrides, balance
// inquiries, back-dating), and the bounds (increments of 0, over-clearing, currencies).
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { call, type CallResult, fieldErrorsOf, type DataEnvelope } from './helpers.js';
import { auth, cardOf, createProgram, echo, financial, simulate, updateProgram, useForwardSandbox, type Received } from './switch-helpers.js';
import { present } from '../helpers/json.js';
import type { Transaction, Lifecycle, SimulateEnvelope } from '../../src/api/schemas.js';

const env = useForwardSandbox();

const message = (body: Record<string, unknown>) => call<SimulateEnvelope>(env.sb, 'POST', '/sandbox/switch/messages', { token: env.sb.token, body });
const reversal = (originalTransactionId: string, amount: number, extra: Record<string, unknown> = {}) =>
  simulate(env.sb, { intent: 'reversal', processingFlow: 'purchase', amount, originalTransactionId, ...extra });
const refund = (originalTransactionId: string, amount: number, extra: Record<string, unknown> = {}) =>
  message({ message: 'refund', originalTransactionId, amount, ...extra });

async function amounts(id: string) {
  const response = await call<DataEnvelope<Lifecycle>>(env.sb, 'GET', `/sandbox/transactions/${id}/lifecycle`, { token: env.sb.token });
  expect(response.status, response.text).toBe(200);
  return response.body.data.amounts;
}

async function approved(response: Promise<CallResult<SimulateEnvelope>>): Promise<string> {
  const done = await response;
  expect(done.status, done.text).toBe(200);
  expect(done.body.data.responseCode, done.text).toBe('00');
  return done.body.data.transactionId;
}

/** Holds the webhook's answers until released (the message is in flight meanwhile). */
function gate(): { release: () => void } {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => { release = resolve; });
  env.hook.respond(async (received: Received, res: ServerResponse) => { await opened; echo('00')(received, res); });
  return { release };
}

async function inFlight(count: number): Promise<void> {
  while (env.hook.received.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('nothing given back beyond what was captured', () => {
  it('purchase 1,000, refund 900: a reversal of 1,000 is a 400, the 100 left is reversible', async () => {
    const card = await cardOf(env.sb);
    const purchase = await approved(simulate(env.sb, financial(card.id, { amount: 1_000 })));
    await approved(refund(purchase, 900));
    const over = await reversal(purchase, 1_000);
    expect(over.status, over.text).toBe(400);
    expect(over.body.message).toMatch(/exceeds what remains of the original \(100 of 1000; 900 refunded\)/);
    await approved(reversal(purchase, 100));
    expect(await amounts(purchase)).toMatchObject({ captured: 900, released: 100, refunded: 900 });
    expect((await reversal(purchase, 0.01)).status).toBe(400);
  });

  it('parallel refunds and a reversal never give back more than the purchase', async () => {
    const card = await cardOf(env.sb);
    const purchase = await approved(simulate(env.sb, financial(card.id, { amount: 1_000 })));
    const results = await Promise.all([refund(purchase, 600), reversal(purchase, 1_000), refund(purchase, 600), reversal(purchase, 500)]);
    const given = results.map((r, i) => (r.status === 200 && r.body.data.responseCode === '00' ? [600, 1_000, 600, 500][i]! : 0));
    expect(given.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1_000);
    const after = await amounts(purchase);
    expect(after.released + after.refunded).toBeLessThanOrEqual(1_000);
  });

  it('a refund in flight is reserved: a reversal beside it takes at most the rest', async () => {
    const card = await cardOf(env.sb, env.programId);
    const purchase = await approved(simulate(env.sb, financial(card.id, { amount: 1_000 })));
    const { release } = gate();
    const pending = refund(purchase, 900, { responseMode: 'forward' });
    await inFlight(1);
    expect((await reversal(purchase, 1_000)).status).toBe(400);
    await approved(reversal(purchase, 100));
    release();
    expect((await pending).body.data.responseCode).toBe('00');
    expect(await amounts(purchase)).toMatchObject({ released: 100, refunded: 900 });
  });

  it('reversing a refund gives its amount back to the purchase: it can be refunded again', async () => {
    const card = await cardOf(env.sb);
    const purchase = await approved(simulate(env.sb, financial(card.id, { amount: 1_000 })));
    const first = await approved(refund(purchase, 1_000));
    expect((await refund(purchase, 1)).status).toBe(400);
    await approved(reversal(first, 400));
    expect(await amounts(purchase)).toMatchObject({ refunded: 600 });
    expect((await refund(purchase, 400.01)).status).toBe(400);
    await approved(refund(purchase, 400));
    expect(await amounts(purchase)).toMatchObject({ captured: 1_000, refunded: 1_000 });
  });

  it('a refund or reversal approved in part (code 10) takes only what was approved', async () => {
    const card = await cardOf(env.sb, env.programId);
    const purchase = await approved(simulate(env.sb, financial(card.id, { amount: 1_000 })));
    env.hook.respond(echo('10', { '4': '000000030000' }));
    expect((await refund(purchase, 600, { responseMode: 'forward' })).body.data.responseCode).toBe('10');
    expect((await reversal(purchase, 500, { responseMode: 'forward' })).body.data.responseCode).toBe('10');
    expect(await amounts(purchase)).toMatchObject({ released: 300, refunded: 300 });
    env.hook.respond(echo('00'));
    await approved(refund(purchase, 400));
    expect((await reversal(purchase, 0.01)).status).toBe(400);
  });

  it('a linked message other than a refund is not reversed (its original is)', async () => {
    const card = await cardOf(env.sb);
    const original = await approved(simulate(env.sb, auth(card.id, { amount: 100 })));
    const increment = await approved(message({ message: 'increment', originalTransactionId: original, amount: 20 }));
    const refused = await reversal(increment, 20);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(original);
    expect(await amounts(original)).toMatchObject({ authorized: 120, held: 120, released: 0 });
  });
});

describe('only purchases are refunded', () => {
  it.each([
    ['a cash withdrawal (01)', { processingFlow: 'cash_withdrawal', channel: 'atm', amount: 100 }],
    ['a balance inquiry (31)', { processingFlow: 'balance_inquiry', channel: 'atm', amount: 0 }],
    ['a refund (20)', { processingFlow: 'refund', amount: 100 }],
  ])('a refund of %s is a 409', async (_label, extra) => {
    const card = await cardOf(env.sb);
    const original = await approved(simulate(env.sb, financial(card.id, extra)));
    const response = await refund(original, 1);
    expect(response.status, response.text).toBe(409);
    expect(response.body.message).toMatch(/only a purchase can be refunded/);
  });

  it('a completed cash authorization is not refunded; which rules apply never follows an overridden processing code', async () => {
    const card = await cardOf(env.sb);
    const cash = await approved(simulate(env.sb, auth(card.id, { processingFlow: 'cash_withdrawal', channel: 'atm', amount: 100 })));
    await approved(message({ message: 'completion', originalTransactionId: cash, amount: 100 }));
    expect((await refund(cash, 1)).status).toBe(409);
    // A cash withdrawal sent as 00 is still a cash withdrawal; a purchase sent as 01 still a purchase.
    const disguised = await approved(simulate(env.sb, financial(card.id, { processingFlow: 'cash_withdrawal', channel: 'atm', overrides: { '3': '000000' } })));
    expect((await refund(disguised, 1)).status).toBe(409);
    const purchase = await approved(simulate(env.sb, financial(card.id, { overrides: { '3': '010000' } })));
    await approved(refund(purchase, 1));
  });
});

describe('one change of a hold at a time', () => {
  it('an increment in flight: a reversal, a completion or an expiry is a 409; once approved the hold has grown', async () => {
    const card = await cardOf(env.sb, env.programId);
    const original = await approved(simulate(env.sb, auth(card.id, { amount: 100 })));
    const { release } = gate();
    const pending = message({ message: 'increment', originalTransactionId: original, amount: 20, responseMode: 'forward' });
    await inFlight(1);
    for (const refused of [
      await reversal(original, 40),
      await message({ message: 'completion', originalTransactionId: original, amount: 100 }),
      await call<DataEnvelope<Transaction>>(env.sb, 'POST', `/sandbox/transactions/${original}/expire`, { token: env.sb.token }),
    ]) {
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body.message).toMatch(/increment awaiting its answer/);
    }
    release();
    const increment = await pending;
    expect(increment.body.data).toMatchObject({ responseCode: '00' });
    expect(await amounts(original)).toMatchObject({ authorized: 120, held: 120 });
    await approved(reversal(original, 120));
    expect(await amounts(original)).toMatchObject({ held: 0, released: 120 });
  });

  it('a reversal in flight: an increment is a 409 (never approved and stranded)', async () => {
    const card = await cardOf(env.sb, env.programId);
    const original = await approved(simulate(env.sb, auth(card.id, { amount: 100 })));
    const { release } = gate();
    const pending = reversal(original, 40, { responseMode: 'forward' });
    await inFlight(1);
    const increment = await message({ message: 'increment', originalTransactionId: original, amount: 20 });
    expect(increment.status).toBe(409);
    expect((await refund(original, 1)).status).toBe(409);
    release();
    expect((await pending).body.data.responseCode).toBe('00');
    expect(await amounts(original)).toMatchObject({ authorized: 100, held: 60, released: 40 });
  });
});

describe('daily usage per currency', () => {
  it('the daily amount limit counts each currency in its own units', async () => {
    const program = await createProgram(env.sb, { channels: { pos: { enabled: true, dailyLimit: { count: 100, amount: 1_000 } } } });
    const card = await cardOf(env.sb, program.id);
    await approved(simulate(env.sb, auth(card.id, { amount: 1_000 })));
    expect((await simulate(env.sb, auth(card.id, { amount: 0.01 }))).body.data.responseCode).toBe('61');
    // NGN used up: 1 JPY and 1,000 BHD are still within their own 1,000.
    await approved(simulate(env.sb, auth(card.id, { amount: 1, currency: '392' })));
    await approved(simulate(env.sb, auth(card.id, { amount: 1_000, currency: '048' })));
    expect((await simulate(env.sb, auth(card.id, { amount: 0.001, currency: '048' }))).body.data.responseCode).toBe('61');
    expect((await simulate(env.sb, auth(card.id, { amount: 1_000, currency: '392' }))).body.data.responseCode).toBe('61');
    await approved(simulate(env.sb, auth(card.id, { amount: 999, currency: '392' })));
  });

  it('the stand-in daily amount counts each currency in its own units', async () => {
    const program = await createProgram(env.sb, { webHookConfig: { url: env.hook.url } });
    await updateProgram(env.sb, program.id, { standIn: { mode: 'approve', maxAmount: 1_000, dailyAmount: 1_000 } });
    const card = await cardOf(env.sb, program.id);
    env.hook.respond((_received, res) => { res.writeHead(500).end(); });
    const standIn = (amount: number, currency?: string) => simulate(env.sb, auth(card.id, { amount, responseMode: 'forward', ...(currency ? { currency } : {}) }));
    expect(present((await standIn(1_000)).body.data.standIn, 'the stand-in decision').decision).toBe('00');
    expect(present((await standIn(0.01)).body.data.standIn, 'the stand-in decision').decision).toBe('96');
    expect(present((await standIn(1, '392')).body.data.standIn, 'the stand-in decision').decision).toBe('00');
    expect(present((await standIn(1_000, '048')).body.data.standIn, 'the stand-in decision').decision).toBe('00');
  });
});

describe('an entry is the message sent, and its rules the plan', () => {
  it('overriding the MTI does not take an authorization out of the daily count', async () => {
    const program = await createProgram(env.sb, { channels: { pos: { enabled: true, dailyLimit: { count: 1, amount: 1_000 } } } });
    const card = await cardOf(env.sb, program.id);
    const disguised = await simulate(env.sb, auth(card.id, { amount: 600, overrides: { '0': '0420', '3': '200000' } }));
    // Sent as a reversal of a refund, it is still an authorization: pending, holding 600.
    expect(disguised.body.data).toMatchObject({ mti: '0420', responseCode: '00', transactionStatus: 'pending' });
    expect(await amounts(disguised.body.data.transactionId)).toMatchObject({ authorized: 600, held: 600 });
    expect((await simulate(env.sb, auth(card.id, { amount: 1 }))).body.data.responseCode).toBe('65');
  });

  it('an overridden field 4 is the amount: malformed is a 400, well-formed is what the record and the ledger hold', async () => {
    const card = await cardOf(env.sb);
    for (const bad of ['12', 'abc', '-00000000100', '0000000001000']) {
      const response = await simulate(env.sb, auth(card.id, { overrides: { '4': bad } }));
      expect(response.status, bad).toBe(400);
      expect(fieldErrorsOf(response)[0]).toMatchObject({ field: 'overrides', message: expect.stringMatching(/field 4/) });
    }
    const id = await approved(simulate(env.sb, auth(card.id, { amount: 100, overrides: { '4': '000000002500' } })));
    const record = (await call<DataEnvelope<Transaction>>(env.sb, 'GET', `/institutions/transactions/${id}`, { token: env.sb.token })).body.data;
    expect(record).toMatchObject({ amount: 25, amounts: { amount: '000000002500' } });
    expect(await amounts(id)).toMatchObject({ authorized: 25, held: 25 });
  });

  it('a balance inquiry moves no money: an amount is a 400, 0 holds and counts nothing', async () => {
    const program = await createProgram(env.sb, { channels: { atm: { enabled: true, dailyLimit: { count: 100, amount: 100 } } } });
    const card = await cardOf(env.sb, program.id);
    const inquiry = (extra: Record<string, unknown>) => simulate(env.sb, financial(card.id, { processingFlow: 'balance_inquiry', channel: 'atm', ...extra }));
    expect((await inquiry({ amount: 50 })).status).toBe(400);
    const overridden = await inquiry({ amount: 0, overrides: { '4': '000000005000' } });
    expect(overridden.status).toBe(400);
    expect(fieldErrorsOf(overridden)[0]).toMatchObject({ field: 'overrides', message: 'field 4 of a balance inquiry must be 0: it moves no money' });
    const id = await approved(inquiry({ amount: 0 }));
    expect(await amounts(id)).toMatchObject({ captured: 0 });
    await approved(simulate(env.sb, financial(card.id, { processingFlow: 'cash_withdrawal', channel: 'atm', amount: 100 })));
  });

  it('a transaction dated before its card was created is a 400', async () => {
    const card = await cardOf(env.sb);
    const before = new Date(Date.parse(card.createdAt) - 60_000).toISOString();
    const response = await simulate(env.sb, auth(card.id, { transactionDate: before }));
    expect(response.status).toBe(400);
    expect(fieldErrorsOf(response)[0]).toMatchObject({ field: 'transactionDate', message: expect.stringMatching(/before the card was created/) });
    const original = await approved(simulate(env.sb, auth(card.id)));
    expect((await reversal(original, 1, { transactionDate: before })).status).toBe(400);
  });
});

describe('bounds', () => {
  it('an increment of 0 is a 400', async () => {
    const card = await cardOf(env.sb);
    const original = await approved(simulate(env.sb, auth(card.id, { amount: 100 })));
    const response = await message({ message: 'increment', originalTransactionId: original, amount: 0 });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/more than 0/);
  });

  it('over-clearing: a completion captures at most what is held plus 20%', async () => {
    const card = await cardOf(env.sb);
    const original = await approved(simulate(env.sb, auth(card.id, { amount: 100 })));
    await approved(reversal(original, 50));
    const over = await message({ message: 'completion', originalTransactionId: original, amount: 60.01 });
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/may capture: 60 \(the 50 held plus 20%\)/);
    await approved(message({ message: 'completion', originalTransactionId: original, amount: 60 }));
    expect(await amounts(original)).toMatchObject({ captured: 60, held: 0 });
  });

  it.each(['999', '959', '961', '962', '963', '964', '960', '994', '965', '955', '958', '984'])('currency %s is no currency cards transact in (400)', async (currency) => {
    const card = await cardOf(env.sb);
    const response = await simulate(env.sb, auth(card.id, { currency }));
    expect(response.status).toBe(400);
    expect(fieldErrorsOf(response)[0].field).toBe('currency');
    const overridden = await simulate(env.sb, auth(card.id, { overrides: { '49': currency } }));
    expect(overridden.status).toBe(400);
    expect(fieldErrorsOf(overridden)[0].field).toBe('overrides');
  });
});
