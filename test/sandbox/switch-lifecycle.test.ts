// The lifecycle messages of the switch (sandbox extensions) in stub mode: increments,
// completions (equal, partial, over-clearing), partial reversals in the amounts model, refunds
// of a purchase (never more than it captured), expiry (forced and by the switch's clock),
// advices and repeats — asserted on the lifecycle's amounts, the statuses and the links.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestSandbox, type Sandbox, type DataEnvelope, type ClockAnswer } from './helpers.js';
import { auth, cardOf, createProgram, financial, simulate } from './switch-helpers.js';
import type { Card, Lifecycle, Transaction, CardProgram, SimulateEnvelope } from '../../src/api/schemas.js';

let sb: Sandbox;
let card: Card;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});
beforeEach(async () => {
  card = await cardOf(sb);
});

async function message(body: Record<string, unknown>) {
  return call<SimulateEnvelope>(sb, 'POST', '/sandbox/switch/messages', { token: sb.token, body });
}

async function lifecycle(id: string) {
  const response = await call<DataEnvelope<Lifecycle>>(sb, 'GET', `/sandbox/transactions/${id}/lifecycle`, { token: sb.token });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

async function stored(id: string) {
  return (await call<DataEnvelope<Transaction>>(sb, 'GET', `/institutions/transactions/${id}`, { token: sb.token })).body.data;
}

async function approvedAuth(amount: number) {
  const response = await simulate(sb, auth(card.id, { amount }));
  expect(response.body.data.responseCode, response.text).toBe('00');
  return response.body.data.transactionId as string;
}

describe('increment and completion', () => {
  it('auth → increment → partial clear: the hold grows, the completion captures less, the rest is released', async () => {
    const original = await approvedAuth(100);
    const increment = await message({ message: 'increment', originalTransactionId: original, amount: 20 });
    expect(increment.status, increment.text).toBe(200);
    expect(increment.body).toMatchObject({ status: 'success', data: { mti: '0100', responseCode: '00', transactionStatus: 'pending' } });
    expect(increment.body.data.request['90'].slice(0, 4)).toBe('0100');
    expect((await lifecycle(original)).amounts).toEqual({ requested: 100, authorized: 120, held: 120, captured: 0, released: 0, refunded: 0 });

    const completion = await message({ message: 'completion', originalTransactionId: original, amount: 90 });
    expect(completion.body).toMatchObject({ status: 'success', data: { mti: '0220', responseCode: '00', transactionStatus: 'completed' } });
    const after = await lifecycle(original);
    expect(after).toMatchObject({ originalTransactionId: original, transactionStatus: 'completed', currency: '566' });
    expect(after.amounts).toEqual({ requested: 100, authorized: 120, held: 0, captured: 90, released: 30, refunded: 0 });
    expect(after.messages.map((m) => [m.mti, m.messageKind, m.amount])).toEqual([['0100', 'authorization', 100], ['0100', 'increment', 20], ['0220', 'completion', 90]]);
    // The same lifecycle from a linked message, and the links on the records.
    expect(await lifecycle(completion.body.data.transactionId)).toEqual(after);
    expect(await stored(completion.body.data.transactionId)).toMatchObject({ messageKind: 'completion', originalTransactionId: original });
    expect(await stored(original)).toMatchObject({ transactionStatus: 'completed', releaseReason: 'completion' });
  });

  it('over-clearing captures more than was held; a second completion or an increment after it is a 409', async () => {
    const original = await approvedAuth(50);
    await message({ message: 'completion', originalTransactionId: original, amount: 60 });
    expect((await lifecycle(original)).amounts).toMatchObject({ authorized: 50, held: 0, captured: 60, released: 0 });
    const again = await message({ message: 'completion', originalTransactionId: original, amount: 10 });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already closed/);
    expect((await message({ message: 'increment', originalTransactionId: original, amount: 10 })).status).toBe(409);
    expect((await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 10, originalTransactionId: original })).status).toBe(409);
  });

  it('auth → partial reversal → clear: the reversal releases part, the original stays pending, the completion captures the rest', async () => {
    const original = await approvedAuth(100);
    const reversal = await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 40, originalTransactionId: original });
    expect(reversal.body.data.responseCode).toBe('00');
    expect(await stored(original)).toMatchObject({ transactionStatus: 'pending', remainingAmount: 60 });
    expect((await lifecycle(original)).amounts).toMatchObject({ authorized: 100, held: 60, captured: 0, released: 40 });
    await message({ message: 'completion', originalTransactionId: original, amount: 60 });
    const after = await lifecycle(original);
    expect(after.amounts).toMatchObject({ held: 0, captured: 60, released: 40 });
    expect(after.messages.map((m) => m.mti)).toEqual(['0100', '0420', '0220']);
  });

  it('an increment is checked like a request: over the daily amount it is declined (61) and the hold stays', async () => {
    const program = await createProgram(sb, { channels: { pos: { enabled: true, dailyLimit: { count: 0, amount: 150 } } } });
    card = await cardOf(sb, program.id);
    const original = await approvedAuth(100);
    const increment = await message({ message: 'increment', originalTransactionId: original, amount: 60 });
    expect(increment.body).toMatchObject({ status: 'failed', data: { responseCode: '61' } });
    expect((await lifecycle(original)).amounts).toMatchObject({ authorized: 100, held: 100 });
    expect((await message({ message: 'increment', originalTransactionId: original, amount: 50 })).body.data.responseCode).toBe('00');
    expect((await lifecycle(original)).amounts).toMatchObject({ authorized: 150, held: 150 });
  });

  it('an unknown original is a 404, a financial cannot be incremented, a linked message is not an original', async () => {
    expect((await message({ message: 'increment', originalTransactionId: 'f'.repeat(24), amount: 1 })).status).toBe(404);
    const purchase = (await simulate(sb, financial(card.id))).body.data.transactionId;
    expect((await message({ message: 'increment', originalTransactionId: purchase, amount: 1 })).status).toBe(409);
    const original = await approvedAuth(10);
    const increment = (await message({ message: 'increment', originalTransactionId: original, amount: 1 })).body.data.transactionId;
    const refused = await message({ message: 'completion', originalTransactionId: increment, amount: 1 });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(original);
    expect((await message({ message: 'increment', amount: 1 })).status).toBe(400);
  });
});

describe('refunds', () => {
  it('purchase → two refunds → the third, past what was captured, is a 400 and records nothing', async () => {
    const purchase = (await simulate(sb, financial(card.id, { amount: 100 }))).body.data.transactionId;
    const first = await message({ message: 'refund', originalTransactionId: purchase, amount: 30 });
    expect(first.body).toMatchObject({ status: 'success', data: { mti: '0200', responseCode: '00', transactionStatus: 'completed' } });
    expect(first.body.data.request['3']).toBe('200000');
    expect((await message({ message: 'refund', originalTransactionId: purchase, amount: 50 })).body.data.responseCode).toBe('00');
    const before = (await lifecycle(purchase)).messages.length;
    const third = await message({ message: 'refund', originalTransactionId: purchase, amount: 30 });
    expect(third.status).toBe(400);
    expect(third.body.message).toBe('amount exceeds what is left to refund: 20 (the original captured 100, 80 already refunded)');
    const after = await lifecycle(purchase);
    expect(after.messages).toHaveLength(before);
    expect(after.amounts).toMatchObject({ captured: 100, refunded: 80 });
    expect(after.messages.map((m) => m.messageKind)).toEqual(['financial', 'refund', 'refund']);
  });

  it('an authorization is refunded once completed, up to what the completion captured', async () => {
    const original = await approvedAuth(100);
    const early = await message({ message: 'refund', originalTransactionId: original, amount: 10 });
    expect(early.status).toBe(409);
    expect(early.body.message).toMatch(/captured nothing/);
    await message({ message: 'completion', originalTransactionId: original, amount: 70 });
    expect((await message({ message: 'refund', originalTransactionId: original, amount: 71 })).status).toBe(400);
    expect((await message({ message: 'refund', originalTransactionId: original, amount: 70 })).body.data.responseCode).toBe('00');
    expect((await lifecycle(original)).amounts).toMatchObject({ captured: 70, refunded: 70 });
  });

  it('a refund declined by the checks gives its reservation back', async () => {
    const purchase = (await simulate(sb, financial(card.id, { amount: 100 }))).body.data.transactionId;
    await call<DataEnvelope<Card>>(sb, 'GET', `/institutions/cards/${card.id}/deactivate`, { token: sb.token });
    expect((await message({ message: 'refund', originalTransactionId: purchase, amount: 100 })).body.data.responseCode).toBe('62');
    expect((await lifecycle(purchase)).amounts.refunded).toBe(0);
    expect(sb.deps.store.transactions.getStored(sb.institutionId, purchase)!.refundedMinor).toBe(0);
  });
});

describe('expiry', () => {
  it('a forced expiry releases the whole hold: reversed, reason expiry; again is a 409', async () => {
    const original = await approvedAuth(100);
    await message({ message: 'increment', originalTransactionId: original, amount: 5 });
    const expired = await call<DataEnvelope<Transaction>>(sb, 'POST', `/sandbox/transactions/${original}/expire`, { token: sb.token });
    expect(expired.status, expired.text).toBe(200);
    expect(expired.body.data).toMatchObject({ transactionStatus: 'reversed', reversed: true, releaseReason: 'expiry', remainingAmount: 0 });
    expect((await lifecycle(original)).amounts).toMatchObject({ authorized: 105, held: 0, released: 105, captured: 0 });
    expect((await call<DataEnvelope<Transaction>>(sb, 'POST', `/sandbox/transactions/${original}/expire`, { token: sb.token })).status).toBe(409);
    expect((await message({ message: 'completion', originalTransactionId: original, amount: 1 })).status).toBe(409);
  });

  it("the switch's clock: holds older than the program's hold period are released when it moves past them", async () => {
    const program = await createProgram(sb);
    await call<DataEnvelope<CardProgram>>(sb, 'PUT', `/sandbox/card-programs/${program.id}`, { token: sb.token, body: { holdPeriodHours: 2 } });
    card = await cardOf(sb, program.id);
    const original = await approvedAuth(100);
    const early = await call<ClockAnswer>(sb, 'POST', '/sandbox/switch/clock', { body: { advanceSeconds: 3600 } });
    expect(early.status, early.text).toBe(200);
    expect((await stored(original)).transactionStatus).toBe('pending');
    const late = await call<ClockAnswer>(sb, 'POST', '/sandbox/switch/clock', { body: { advanceSeconds: 3601 } });
    expect(late.body.expired).toBeGreaterThanOrEqual(1);
    expect(late.body.offsetSeconds).toBe(7201);
    expect(await stored(original)).toMatchObject({ transactionStatus: 'reversed', releaseReason: 'expiry' });
    expect(Date.parse((await call<ClockAnswer>(sb, 'GET', '/sandbox/switch/clock')).body.now)).toBeGreaterThan(Date.now() + 7_000_000);
  });
});

describe('advice and repeats', () => {
  it('an authorization advice is recorded with the network decision, approved or declined, and acknowledged by the stub', async () => {
    const approved = await message({ message: 'advice', cardId: card.id, amount: 25 });
    expect(approved.body).toMatchObject({ status: 'success', data: { mti: '0120', responseCode: '00', transactionStatus: 'pending' } });
    const record = await stored(approved.body.data.transactionId);
    expect(record).toMatchObject({ messageKind: 'advice', advice: { acknowledged: true } });
    expect((await lifecycle(record.id)).amounts).toMatchObject({ held: 25 });
    const declined = await message({ message: 'advice', cardId: card.id, amount: 25, networkResponseCode: '05' });
    expect(declined.body).toMatchObject({ status: 'failed', data: { mti: '0120', responseCode: '05', transactionStatus: 'failed' } });
  });

  it('a repeat is answered as the first time: same outcome, no second hold, recorded on the original', async () => {
    const original = await approvedAuth(100);
    const first = await stored(original);
    const repeat = await call<SimulateEnvelope>(sb, 'POST', `/sandbox/transactions/${original}/repeat`, { token: sb.token, body: {} });
    expect(repeat.status, repeat.text).toBe(200);
    expect(repeat.body.data).toMatchObject({ transactionId: original, responseCode: '00', stan: first.stan, rrn: first.rrn });
    const after = await stored(original);
    expect(after.repeats).toEqual([expect.objectContaining({ mti: '0101', responseCode: '00', agreed: true })]);
    expect((await lifecycle(original)).amounts).toMatchObject({ authorized: 100, held: 100 });
    expect(sb.deps.store.transactions.dailyUsage(card.id, 'pos', first.createdAt.slice(0, 10), '566', ['approved']).count).toBe(1);
  });
});
