// The simulator's reversals in stub mode (rule 2): by transaction id or by STAN and RRN, once only,
// of an original that can be reversed, and one of two sent at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestSandbox, type Sandbox, errorOf, fieldErrorsOf, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { auth, cardOf, financial, simulate } from './switch-helpers.js';
import type { Transaction } from '../../src/api/schemas.js';

let sb: Sandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

describe('reversals (rule 2)', () => {
  it('by transaction id: completed, and the original is marked reversed with reversalId', async () => {
    const card = await cardOf(sb);
    const original = (await simulate(sb, auth(card.id, { amount: 250 }))).body.data;
    const response = await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 250, originalTransactionId: original.transactionId });
    expect(response.status, response.text).toBe(200);
    const reversal = response.body.data;
    expect(reversal).toMatchObject({ mti: '0420', responseCode: '00', transactionStatus: 'completed' });
    expect(reversal.response['0']).toBe('0430');
    expect(reversal.stan).not.toBe(original.stan);
    // Field 90: original MTI, STAN, transmission date-time, then 22 zeros.
    expect(reversal.request['90']).toBe(`0100${original.stan}${original.request['7']}${'0'.repeat(22)}`);
    expect(reversal.request).toMatchObject({ '2': original.request['2'], '3': original.request['3'], '4': '000000025000', '41': original.request['41'], '42': original.request['42'] });
    const stored = (await call<DataEnvelope<Transaction>>(sb, 'GET', `/institutions/transactions/${original.transactionId}`, { token: sb.token })).body.data;
    expect(stored).toMatchObject({ transactionStatus: 'reversed', reversed: true, reversalId: reversal.transactionId });
    const filtered = await call<ListDataEnvelope<Transaction>>(sb, 'GET', '/institutions/transactions?transactionStatus=reversed', { token: sb.token });
    expect(filtered.body.data.map((t: { id: string }) => t.id)).toContain(original.transactionId);
  });

  it('by STAN and RRN', async () => {
    const card = await cardOf(sb);
    const original = (await simulate(sb, financial(card.id, { amount: 99.5 }))).body.data;
    const reversal = await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 99.5, originalStan: original.stan, originalRrn: original.rrn });
    expect(reversal.body.data.responseCode).toBe('00');
    const stored = (await call<DataEnvelope<Transaction>>(sb, 'GET', `/institutions/transactions/${original.transactionId}`, { token: sb.token })).body.data;
    expect(stored.reversalId).toBe(reversal.body.data.transactionId);
  });

  it('a second reversal is a 409, not a new transaction; unknown originals are 404', async () => {
    const card = await cardOf(sb);
    const original = (await simulate(sb, auth(card.id))).body.data;
    const body = { intent: 'reversal', processingFlow: 'purchase', amount: 100, originalTransactionId: original.transactionId };
    expect((await simulate(sb, body)).status).toBe(200);
    const before = (await call<ListDataEnvelope<Transaction>>(sb, 'GET', '/institutions/transactions?limit=1', { token: sb.token })).body.pagination.total;
    const again = await simulate(sb, body);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ statusCode: 409, error: 'CONFLICT' });
    expect(again.body.message).toMatch(/already reversed/);
    const byStan = await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 100, originalStan: original.stan, originalRrn: original.rrn });
    expect(byStan.status).toBe(409);
    const after = (await call<ListDataEnvelope<Transaction>>(sb, 'GET', '/institutions/transactions?limit=1', { token: sb.token })).body.pagination.total;
    expect(after).toBe(before);

    const unknown = await simulate(sb, { ...body, originalTransactionId: 'ffffffffffffffffffffffff' });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).error).toBe('NOT_FOUND');
    const unknownStan = await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 1, originalStan: '999999', originalRrn: '000000000000' });
    expect(unknownStan.status).toBe(404);
  });

  it('needs the original, refuses declined originals, reversals of reversals and larger amounts', async () => {
    const missing = await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 1 });
    expect(missing.status).toBe(400);
    expect(fieldErrorsOf(missing)[0].field).toBe('originalTransactionId');
    const half = await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 1, originalStan: '000001' });
    expect(half.status).toBe(400);
    expect(fieldErrorsOf(half)[0].field).toBe('originalRrn');

    const declined = (await simulate(sb, auth('000000000000000000000000'))).body.data;
    const ofDeclined = await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 1, originalTransactionId: declined.transactionId });
    expect(ofDeclined.status).toBe(409);

    const card = await cardOf(sb);
    const original = (await simulate(sb, auth(card.id, { amount: 100 }))).body.data;
    const tooMuch = await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 100.01, originalTransactionId: original.transactionId });
    expect(tooMuch.status).toBe(400);
    expect(fieldErrorsOf(tooMuch)[0].field).toBe('amount');
    const reversal = (await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 40, originalTransactionId: original.transactionId })).body.data;
    expect(reversal.request['4']).toBe('000000004000');
    const ofReversal = await simulate(sb, { intent: 'reversal', processingFlow: 'purchase', amount: 1, originalTransactionId: reversal.transactionId });
    expect(ofReversal.status).toBe(409);
  });

  it('two parallel reversals of one transaction: exactly one goes through', async () => {
    const card = await cardOf(sb);
    const original = (await simulate(sb, auth(card.id))).body.data;
    const body = { intent: 'reversal', processingFlow: 'purchase', amount: 100, originalTransactionId: original.transactionId };
    const results = await Promise.all(Array.from({ length: 5 }, () => simulate(sb, body)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
  });
});
