// The transaction state machine of the switch (src/sandbox/switch/states.ts): every (state,
// event) pair applied to a stored transaction, the conditional write, the races of a reversal
// against a forwarded authorization still awaiting its answer, and partial reversals (amounts,
// what goes back to the daily limits, sums beyond the original, currencies, channels).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/sandbox/store/index.js';
import { ABANDONED_AFTER_MS, recoverAbandoned } from '../../src/sandbox/switch/expiry.js';
import { switchStore } from '../../src/sandbox/switch/store.js';
import { applyEvent, TRANSACTION_EVENTS, TRANSACTION_STATES, transactionStatusOf, type TransactionEvent, type TransactionState } from '../../src/sandbox/switch/states.js';
import { call, UNDO_VERSION_4, fieldErrorsOf, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { auth, cardOf, createProgram, echo, financial, simulate, useForwardSandbox } from './switch-helpers.js';
import type { Transaction } from '../../src/api/schemas.js';

const env = useForwardSandbox({ secret: 'whsec_states' });

const reversal = (originalTransactionId: string, amount: number, extra: Record<string, unknown> = {}) =>
  ({ intent: 'reversal', processingFlow: 'purchase', amount, originalTransactionId, ...extra });

async function stored(id: string) {
  return (await call<DataEnvelope<Transaction>>(env.sb, 'GET', `/institutions/transactions/${id}`, { token: env.sb.token })).body.data;
}

/** Reversal transactions (0420) of the institution whose field 90 names the original's STAN. */
async function reversalsOf(original: { stan: string }) {
  const list = await call<ListDataEnvelope<Transaction>>(env.sb, 'GET', '/institutions/transactions?limit=100', { token: env.sb.token });
  return list.body.data.filter((t: Transaction) => t.mti === '0420' && t.originalMessage['90']?.slice(4, 10) === original.stan);
}

/** Resolves once the test webhook has received `count` messages (it holds them until released). */
async function received(count: number) {
  while (env.hook.received.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** A webhook answer held until `release()` is called. */
function gatedAnswer(code: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  env.hook.respond(async (message, res) => {
    await gate;
    echo(code)(message, res);
  });
  return release;
}

describe('the table, pair by pair, on stored transactions', () => {
  // Written out here rather than read from states.ts: this is what the table must say.
  const STILL = /not awaiting an answer/;
  const NONE = /has no reversal in progress/;
  const NO_HOLD = /holds nothing/;
  const NO_CAPTURE = /captured nothing/;
  const CLOSED = /already closed/;
  const IN_PROGRESS = /reversal in progress/;
  const NO_LIFECYCLE = { 'increment-approved': NO_HOLD, 'completion-captured': NO_HOLD, 'refund-reserved': NO_CAPTURE, 'refund-given-back': NO_CAPTURE, 'refund-reversed': NO_CAPTURE, 'hold-expired': NO_HOLD } as const;
  const EXPECTED: Record<TransactionState, Record<TransactionEvent, TransactionState | RegExp>> = {
    awaiting: { 'answer-approves': 'approved', 'answer-declines': 'declined', 'reversal-requested': /still awaiting/, 'reversal-approved-in-part': NONE, 'reversal-approved-in-full': NONE, 'reversal-declined': NONE, ...NO_LIFECYCLE },
    approved: { 'answer-approves': STILL, 'answer-declines': STILL, 'reversal-requested': 'reversing', 'reversal-approved-in-part': NONE, 'reversal-approved-in-full': NONE, 'reversal-declined': NONE,
      'increment-approved': 'approved', 'completion-captured': 'completed', 'refund-reserved': 'approved', 'refund-given-back': 'approved', 'refund-reversed': 'approved', 'hold-expired': 'reversed' },
    declined: { 'answer-approves': STILL, 'answer-declines': STILL, 'reversal-requested': /was not approved/, 'reversal-approved-in-part': NONE, 'reversal-approved-in-full': NONE, 'reversal-declined': NONE, ...NO_LIFECYCLE },
    reversing: { 'answer-approves': STILL, 'answer-declines': STILL, 'reversal-requested': /reversal in progress/, 'reversal-approved-in-part': 'approved', 'reversal-approved-in-full': 'reversed', 'reversal-declined': 'approved',
      'increment-approved': IN_PROGRESS, 'completion-captured': IN_PROGRESS, 'refund-reserved': IN_PROGRESS, 'refund-given-back': 'reversing', 'refund-reversed': 'reversing', 'hold-expired': IN_PROGRESS },
    reversed: { 'answer-approves': STILL, 'answer-declines': STILL, 'reversal-requested': /already reversed/, 'reversal-approved-in-part': NONE, 'reversal-approved-in-full': NONE, 'reversal-declined': NONE,
      'increment-approved': CLOSED, 'completion-captured': CLOSED, 'refund-reserved': NO_CAPTURE, 'refund-given-back': NO_CAPTURE, 'refund-reversed': NO_CAPTURE, 'hold-expired': CLOSED },
    completed: { 'answer-approves': STILL, 'answer-declines': STILL, 'reversal-requested': /refund it instead/, 'reversal-approved-in-part': NONE, 'reversal-approved-in-full': NONE, 'reversal-declined': NONE,
      'increment-approved': CLOSED, 'completion-captured': CLOSED, 'refund-reserved': 'completed', 'refund-given-back': 'completed', 'refund-reversed': 'completed', 'hold-expired': CLOSED },
  };
  let template: Transaction;
  let counter = 0;

  beforeAll(async () => {
    const card = await cardOf(env.sb);
    const made = (await simulate(env.sb, auth(card.id, { amount: 10 }))).body.data;
    template = env.sb.deps.store.transactions.getStored(env.sb.institutionId, made.transactionId)!.record;
  });

  /** A copy of a real authorization, stored in `state`. */
  function storedIn(state: TransactionState, mti = '0100') {
    counter += 1;
    const id = `f5${String(counter).padStart(22, '0')}`;
    const record = { ...structuredClone(template), id, _id: id, mti, transactionStatus: transactionStatusOf(state, mti) };
    env.sb.deps.store.transaction(() => env.sb.deps.store.transactions.insert(record, { channel: 'pos', amountMinor: 1000, day: '2026-01-01', state, kind: 'authorization', flow: 'purchase', currency: '566' }));
    return id;
  }

  it('covers every state and every event', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...TRANSACTION_STATES].sort());
    for (const state of TRANSACTION_STATES) expect(Object.keys(EXPECTED[state]).sort()).toEqual([...TRANSACTION_EVENTS].sort());
  });

  for (const state of TRANSACTION_STATES) {
    for (const event of TRANSACTION_EVENTS) {
      const expected = EXPECTED[state][event];
      it(`${state} + ${event} → ${expected instanceof RegExp ? `refused (${expected.source})` : expected}`, () => {
        const store = env.sb.deps.store;
        const id = storedIn(state);
        const before = store.transactions.getStored(env.sb.institutionId, id)!;
        const result = store.transaction(() => applyEvent(switchStore(store), env.sb.institutionId, id, event, new Date(), (record) => ({ record })));
        const after = store.transactions.getStored(env.sb.institutionId, id)!;
        if (expected instanceof RegExp) {
          expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(expected) });
          expect(after).toEqual(before);
        } else {
          expect(result).toEqual({ ok: true, to: expected });
          expect(after.state).toBe(expected);
          expect(after.record.transactionStatus).toBe(transactionStatusOf(expected, '0100'));
          const listed = store.transactions.list({ institutionId: env.sb.institutionId, transactionStatus: transactionStatusOf(expected, '0100'), limit: 100, offset: 0 });
          expect(listed.records.some((r) => r.id === id)).toBe(true);
        }
      });
    }
  }

  it('an approved financial shows completed, an approved authorization pending', () => {
    expect(transactionStatusOf('approved', '0200')).toBe('completed');
    expect(transactionStatusOf('reversing', '0200')).toBe('completed');
    expect(transactionStatusOf('approved', '0100')).toBe('pending');
    expect(transactionStatusOf('approved', '0420')).toBe('completed');
  });

  it('a change computed from a state that has moved on writes nothing', () => {
    const store = env.sb.deps.store;
    const id = storedIn('reversed');
    const before = store.transactions.getStored(env.sb.institutionId, id)!;
    // The state read says "awaiting" (a stale read); the row says "reversed".
    const real = switchStore(store);
    const stale = { ...real, get: (institutionId: string, txId: string) => ({ ...real.get(institutionId, txId)!, state: 'awaiting' as const }) };
    const result = store.transaction(() => applyEvent(stale, env.sb.institutionId, id, 'answer-approves', new Date(), (record) => ({ record: { ...record, responseCode: '00' } })));
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/changed while/) });
    expect(store.transactions.getStored(env.sb.institutionId, id)).toEqual(before);
  });
});

describe('a reversal against a forwarded authorization still awaiting its answer', () => {
  it('is refused while the answer is awaited; the late approval then applies, and exactly one reversal goes through', async () => {
    const card = await cardOf(env.sb, env.programId);
    const release = gatedAnswer('00');
    const pending = simulate(env.sb, auth(card.id, { amount: 300, responseMode: 'forward' }));
    await received(1);
    const id = (await call<ListDataEnvelope<Transaction>>(env.sb, 'GET', '/institutions/transactions?limit=1', { token: env.sb.token })).body.data[0].id;
    expect(await stored(id)).toMatchObject({ transactionStatus: 'pending', responseCode: '' });

    const early = await simulate(env.sb, reversal(id, 300));
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ statusCode: 409, error: 'CONFLICT' });
    expect(early.body.message).toMatch(/still awaiting/);
    const earlyForward = await simulate(env.sb, reversal(id, 300, { responseMode: 'forward' }));
    expect(earlyForward.status).toBe(409);
    expect(env.hook.received).toHaveLength(1); // the refused reversals were not forwarded

    release();
    const original = (await pending).body.data;
    expect(original).toMatchObject({ transactionId: id, responseCode: '00', transactionStatus: 'pending' });
    expect(await stored(id)).toMatchObject({ transactionStatus: 'pending', reversed: false, reversalId: '' });

    env.hook.respond(echo('00'));
    const first = await simulate(env.sb, reversal(id, 300, { responseMode: 'forward' }));
    expect(first.body.data).toMatchObject({ responseCode: '00', transactionStatus: 'completed' });
    const second = await simulate(env.sb, reversal(id, 300, { responseMode: 'forward' }));
    expect(second.status).toBe(409);
    expect(second.body.message).toMatch(/already reversed/);
    expect(await stored(id)).toMatchObject({ transactionStatus: 'reversed', reversed: true, reversalId: first.body.data.transactionId });
    const approved = (await reversalsOf(original)).filter((t: Transaction) => t.responseCode === '00');
    expect(approved.map((t: Transaction) => t.id)).toEqual([first.body.data.transactionId]);
  });

  it('a webhook that declines (05): no reversal while waiting, none after (nothing was approved)', async () => {
    const card = await cardOf(env.sb, env.programId);
    const release = gatedAnswer('05');
    const pending = simulate(env.sb, auth(card.id, { amount: 20, responseMode: 'forward' }));
    await received(1);
    const id = (await call<ListDataEnvelope<Transaction>>(env.sb, 'GET', '/institutions/transactions?limit=1', { token: env.sb.token })).body.data[0].id;
    const early = await simulate(env.sb, reversal(id, 20));
    expect(early.status).toBe(409);
    release();
    const original = (await pending).body.data;
    expect(original).toMatchObject({ responseCode: '05', transactionStatus: 'failed' });
    for (const mode of ['stub', 'forward']) {
      const late = await simulate(env.sb, reversal(id, 20, { responseMode: mode }));
      expect(late.status).toBe(409);
      expect(late.body.message).toMatch(/was not approved \(05\)/);
    }
    expect(await stored(id)).toMatchObject({ transactionStatus: 'failed', reversed: false, reversalId: '', responseCode: '05' });
    expect(await reversalsOf(original)).toEqual([]);
  });

  it('a refused reversal draws no STAN and stores nothing', async () => {
    const card = await cardOf(env.sb, env.programId);
    const release = gatedAnswer('00');
    const date = '2027-05-06T07:08:09.000Z';
    const pending = simulate(env.sb, auth(card.id, { responseMode: 'forward', transactionDate: date }));
    await received(1);
    const before = (await call<ListDataEnvelope<Transaction>>(env.sb, 'GET', '/institutions/transactions?limit=1', { token: env.sb.token })).body;
    expect((await simulate(env.sb, reversal(before.data[0].id, 100, { transactionDate: date }))).status).toBe(409);
    const after = (await call<ListDataEnvelope<Transaction>>(env.sb, 'GET', '/institutions/transactions?limit=1', { token: env.sb.token })).body;
    expect(after.pagination.total).toBe(before.pagination.total);
    release();
    await pending;
    const next = (await simulate(env.sb, auth(card.id, { transactionDate: date }))).body.data;
    expect(next.stan).toBe('000002');
  });
});

/** Makes a stored transaction look created `ms` ago (as if its sandbox had stopped mid-exchange). */
function age(id: string, ms: number) {
  const at = new Date(Date.now() - ms).toISOString();
  env.sb.deps.store.db.prepare("UPDATE transactions SET created_at = ?, record = json_set(record, '$.createdAt', ?) WHERE id = ?").run(at, at, id);
}

describe('answers that never come, and answers that come too late', () => {
  it('an authorization abandoned while awaiting fails (96) when reversed; its late answer then changes nothing', async () => {
    const card = await cardOf(env.sb, env.programId);
    const release = gatedAnswer('00');
    const pending = simulate(env.sb, auth(card.id, { amount: 12, responseMode: 'forward' }));
    await received(1);
    const id = (await call<ListDataEnvelope<Transaction>>(env.sb, 'GET', '/institutions/transactions?limit=1', { token: env.sb.token })).body.data[0].id;
    age(id, ABANDONED_AFTER_MS / 2);
    expect((await simulate(env.sb, reversal(id, 12))).body.message).toMatch(/still awaiting/);
    age(id, ABANDONED_AFTER_MS + 1_000);
    const refused = await simulate(env.sb, reversal(id, 12));
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/was not approved \(96\)/);
    const failed = await stored(id);
    expect(failed).toMatchObject({ transactionStatus: 'failed', responseCode: '96', response: { '39': '96' } });
    expect(failed.timestamps.institutionToService.description).toMatch(/stopped while awaiting/);

    release();
    const late = (await pending).body;
    expect(late).toMatchObject({ status: 'failed', data: { responseCode: '96', transactionStatus: 'failed' } });
    expect(await stored(id)).toEqual(failed);
  });

  it('a reversal abandoned while awaiting gives its original back; its late approval changes nothing', async () => {
    const card = await cardOf(env.sb, env.programId);
    const original = (await simulate(env.sb, auth(card.id, { amount: 30 }))).body.data;
    const release = gatedAnswer('00');
    const first = simulate(env.sb, reversal(original.transactionId, 30, { responseMode: 'forward' }));
    await received(1);
    const stuck = env.sb.deps.store.transactions.awaitingReversalOf(env.sb.institutionId, original.transactionId)!;
    const busy = await simulate(env.sb, reversal(original.transactionId, 30));
    expect(busy.status).toBe(409);
    expect(busy.body.message).toContain(`reversal in progress; wait for its answer (${stuck.record.id})`);

    age(stuck.record.id, ABANDONED_AFTER_MS + 1_000);
    const second = await simulate(env.sb, reversal(original.transactionId, 30));
    expect(second.body.data).toMatchObject({ responseCode: '00', transactionStatus: 'completed' });
    expect(await stored(stuck.record.id)).toMatchObject({ transactionStatus: 'failed', responseCode: '96' });
    const reversed = await stored(original.transactionId);
    expect(reversed).toMatchObject({ transactionStatus: 'reversed', reversed: true, reversalId: second.body.data.transactionId });

    release();
    expect((await first).body.data).toMatchObject({ transactionId: stuck.record.id, responseCode: '96', transactionStatus: 'failed' });
    expect(await stored(original.transactionId)).toEqual(reversed);
    expect((await reversalsOf(original)).filter((t: Transaction) => t.responseCode === '00')).toHaveLength(1);
  });

  it('a sandbox starting on a database settles what another one left awaiting (96), and only that', async () => {
    const store = env.sb.deps.store;
    const card = await cardOf(env.sb);
    const original = (await simulate(env.sb, auth(card.id, { amount: 40 }))).body.data;
    const template = store.transactions.getStored(env.sb.institutionId, original.transactionId)!.record;
    const insert = (id: string, state: 'awaiting', createdAt: string, extra: Partial<Transaction> = {}, originalId?: string) => {
      const record = { ...structuredClone(template), id, _id: id, createdAt, transactionStatus: 'pending' as const, responseCode: '', ...extra };
      store.transaction(() => store.transactions.insert(record, { channel: 'pos', amountMinor: 4000, day: '2026-01-01', state, ...(originalId ? { originalId } : {}), kind: originalId ? 'reversal' : 'authorization', flow: 'purchase', currency: '566' }));
    };
    const old = new Date(Date.now() - ABANDONED_AFTER_MS - 5_000).toISOString();
    insert('ab0000000000000000000001', 'awaiting', old);
    insert('ab0000000000000000000002', 'awaiting', new Date().toISOString());
    // An abandoned reversal of the approved original, which it holds in 'reversing'.
    store.db.prepare("UPDATE transactions SET state = 'reversing' WHERE id = ?").run(original.transactionId);
    insert('ab0000000000000000000003', 'awaiting', old, { mti: '0420' }, original.transactionId);

    expect(recoverAbandoned(switchStore(store), new Date())).toBe(2);
    expect(store.transactions.getStored(env.sb.institutionId, 'ab0000000000000000000001')).toMatchObject({ state: 'declined', record: { responseCode: '96', transactionStatus: 'failed' } });
    expect(store.transactions.getStored(env.sb.institutionId, 'ab0000000000000000000002')!.state).toBe('awaiting');
    expect(store.transactions.getStored(env.sb.institutionId, 'ab0000000000000000000003')).toMatchObject({ state: 'declined', record: { responseCode: '96' } });
    expect(store.transactions.getStored(env.sb.institutionId, original.transactionId)).toMatchObject({ state: 'approved', record: { transactionStatus: 'pending', reversed: false } });
    expect(recoverAbandoned(switchStore(store), new Date())).toBe(0);
    store.db.prepare("UPDATE transactions SET state = 'declined' WHERE id = ?").run('ab0000000000000000000002');
  });
});

describe('partial reversals', () => {
  const ATM = (amount: number, extra: Record<string, unknown> = {}) => financial('', { channel: 'atm', processingFlow: 'cash_withdrawal', amount, ...extra });

  it('reversing 0.01 of a 150,000 withdrawal gives back 0.01 of a 200,000 daily limit, not 150,000', async () => {
    const program = await createProgram(env.sb, { channels: { atm: { enabled: true, dailyLimit: { count: 100, amount: 200_000 } }, pos: { enabled: true, dailyLimit: { count: 100, amount: 1_000 } } } });
    const card = await cardOf(env.sb, program.id);
    const withdrawal = (await simulate(env.sb, { ...ATM(150_000), cardId: card.id })).body.data;
    expect(withdrawal).toMatchObject({ responseCode: '00', transactionStatus: 'completed' });

    const part = await simulate(env.sb, reversal(withdrawal.transactionId, 0.01));
    expect(part.status, part.text).toBe(200);
    expect(part.body.data).toMatchObject({ responseCode: '00', transactionStatus: 'completed' });
    expect(part.body.data.request['4']).toBe('000000000001');
    expect(await stored(withdrawal.transactionId)).toMatchObject({
      transactionStatus: 'completed', reversed: false, reversalId: part.body.data.transactionId, remainingAmount: 149_999.99,
      amounts: { amount: '000015000000' },
    });
    // 149,999.99 used: 50,000.02 more is over the limit, 50,000.01 is exactly on it.
    expect((await simulate(env.sb, { ...ATM(150_000), cardId: card.id })).body.data.responseCode).toBe('61');
    expect((await simulate(env.sb, { ...ATM(50_000.02), cardId: card.id })).body.data.responseCode).toBe('61');
    expect((await simulate(env.sb, { ...ATM(50_000.01), cardId: card.id })).body.data.responseCode).toBe('00');
    // The POS channel has its own limit, untouched by the ATM's.
    expect((await simulate(env.sb, auth(card.id, { amount: 1_000 }))).body.data.responseCode).toBe('00');
    expect((await simulate(env.sb, auth(card.id, { amount: 0.01 }))).body.data.responseCode).toBe('61');
  });

  it('several partial reversals: each within what remains, the last one reverses the original, beyond is refused', async () => {
    const card = await cardOf(env.sb);
    const original = (await simulate(env.sb, auth(card.id, { amount: 100 }))).body.data;
    const first = await simulate(env.sb, reversal(original.transactionId, 40));
    expect(first.body.data.responseCode).toBe('00');
    expect(await stored(original.transactionId)).toMatchObject({ transactionStatus: 'pending', reversed: false, remainingAmount: 60 });

    const beyond = await simulate(env.sb, reversal(original.transactionId, 60.01));
    expect(beyond.status).toBe(400);
    expect(beyond.body).toMatchObject({ error: 'VALIDATION_ERROR', errors: [{ field: 'amount' }] });
    expect(beyond.body.message).toMatch(/exceeds what remains of the original \(60 of 100/);

    const rest = await simulate(env.sb, reversal(original.transactionId, 60));
    expect(rest.body.data.responseCode).toBe('00');
    expect(await stored(original.transactionId)).toMatchObject({ transactionStatus: 'reversed', reversed: true, reversalId: rest.body.data.transactionId, remainingAmount: 0 });
    const after = await simulate(env.sb, reversal(original.transactionId, 0.01));
    expect(after.status).toBe(409);
    expect(after.body.message).toMatch(/already reversed/);
  });

  it('parallel partial reversals never add up to more than the original', async () => {
    const card = await cardOf(env.sb);
    const original = (await simulate(env.sb, financial(card.id, { amount: 100 }))).body.data;
    const results = await Promise.all(Array.from({ length: 6 }, () => simulate(env.sb, reversal(original.transactionId, 30))));
    expect(results.filter((r) => r.status === 200).map((r) => r.body.data.responseCode)).toEqual(['00', '00', '00']);
    expect(results.filter((r) => r.status !== 200).map((r) => r.status)).toEqual([400, 400, 400]);
    expect(await stored(original.transactionId)).toMatchObject({ transactionStatus: 'completed', remainingAmount: 10 });
    expect((await simulate(env.sb, reversal(original.transactionId, 10))).body.data.responseCode).toBe('00');
    expect((await stored(original.transactionId)).transactionStatus).toBe('reversed');
  });

  it('a partial reversal keeps the daily count slot; only a full one gives it back', async () => {
    const program = await createProgram(env.sb, { channels: { pos: { enabled: true, dailyLimit: { count: 1, amount: 1_000_000 } } } });
    const card = await cardOf(env.sb, program.id);
    const original = (await simulate(env.sb, auth(card.id, { amount: 50 }))).body.data;
    expect((await simulate(env.sb, reversal(original.transactionId, 49.99))).body.data.responseCode).toBe('00');
    expect((await simulate(env.sb, auth(card.id, { amount: 1 }))).body.data.responseCode).toBe('65');
    expect((await simulate(env.sb, reversal(original.transactionId, 0.01))).body.data.responseCode).toBe('00');
    expect((await simulate(env.sb, auth(card.id, { amount: 1 }))).body.data.responseCode).toBe('00');
  });

  it('a declined partial reversal (forward) leaves what remains and the limit untouched', async () => {
    const card = await cardOf(env.sb, env.programId);
    const original = (await simulate(env.sb, auth(card.id, { amount: 80 }))).body.data;
    env.hook.respond(echo('05'));
    const declined = await simulate(env.sb, reversal(original.transactionId, 30, { responseMode: 'forward' }));
    expect(declined.body.data).toMatchObject({ responseCode: '05', transactionStatus: 'failed' });
    const after = await stored(original.transactionId);
    expect(after).toMatchObject({ transactionStatus: 'pending', reversed: false, reversalId: '' });
    expect(after.remainingAmount).toBeUndefined();
    expect(env.sb.deps.store.transactions.getStored(env.sb.institutionId, original.transactionId)).toMatchObject({ state: 'approved', reversedMinor: 0 });
    env.hook.respond(echo('00'));
    expect((await simulate(env.sb, reversal(original.transactionId, 80, { responseMode: 'forward' }))).body.data.responseCode).toBe('00');
  });

  it('a refund counts toward the daily count but uses up none of the daily amount', async () => {
    const program = await createProgram(env.sb, { channels: { pos: { enabled: true, dailyLimit: { count: 3, amount: 1_000 } } } });
    const card = await cardOf(env.sb, program.id);
    expect((await simulate(env.sb, financial(card.id, { processingFlow: 'refund', amount: 1_000 }))).body.data.responseCode).toBe('00');
    expect((await simulate(env.sb, financial(card.id, { amount: 1_000 }))).body.data.responseCode).toBe('00');
    expect((await simulate(env.sb, financial(card.id, { amount: 0.01 }))).body.data.responseCode).toBe('61');
    expect((await simulate(env.sb, financial(card.id, { processingFlow: 'refund', amount: 1 }))).body.data.responseCode).toBe('00');
    expect((await simulate(env.sb, financial(card.id, { processingFlow: 'refund', amount: 1 }))).body.data.responseCode).toBe('65');
  });

  it.each([
    ['an amount of 0', { amount: 0 }, 400, 'amount', /more than 0/],
    ['a negative amount', { amount: -5 }, 400, undefined, /amount/],
    ['another currency', { currency: '840' }, 400, 'currency', /original's currency \(566\)/],
    ['field 49 overridden to another currency', { overrides: { '49': '840' } }, 400, 'overrides', /original's currency/],
    ['field 4 overridden above the original', { overrides: { '4': '000000010001' } }, 400, 'amount', /exceeds what remains/],
    ['field 4 overridden to zero', { overrides: { '4': '000000000000' } }, 400, 'amount', /more than 0/],
  ])('refuses %s and changes nothing', async (_label, extra, status, field, message) => {
    const card = await cardOf(env.sb);
    const original = (await simulate(env.sb, auth(card.id, { amount: 100 }))).body.data;
    const before = (await call<ListDataEnvelope<Transaction>>(env.sb, 'GET', '/institutions/transactions?limit=1', { token: env.sb.token })).body.pagination.total;
    const response = await simulate(env.sb, { ...reversal(original.transactionId, 10), ...extra });
    expect(response.status).toBe(status);
    expect(response.body.message).toMatch(message);
    if (field) expect(fieldErrorsOf(response)[0].field).toBe(field);
    expect((await call<ListDataEnvelope<Transaction>>(env.sb, 'GET', '/institutions/transactions?limit=1', { token: env.sb.token })).body.pagination.total).toBe(before);
    expect(env.sb.deps.store.transactions.getStored(env.sb.institutionId, original.transactionId)).toMatchObject({ state: 'approved', reversedMinor: 0 });
  });
});

describe('schema version 2 on a version-1 database', () => {
  it('gives each existing transaction the state its status and answer say, and what a reversal gave back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-states-'));
    try {
      const file = join(dir, 'v1.db');
      const store = openStore({ file });
      // Back to version 1: without the two columns (nor the later card counts), and rows as version 1 wrote them.
      store.db.exec(`${UNDO_VERSION_4}
        DELETE FROM schema_migrations WHERE version >= 2;
        DROP TRIGGER card_counts_insert; DROP TRIGGER card_counts_delete; DROP TABLE card_counts;
        DROP INDEX transactions_by_original; DROP INDEX transactions_awaiting;
        ALTER TABLE transactions DROP COLUMN state; ALTER TABLE transactions DROP COLUMN reversed_minor; ALTER TABLE transactions DROP COLUMN original_id;
        INSERT INTO institutions (id, created_at, record) VALUES ('inst', '2026-01-01', '{}');`);
      const rows: Array<[string, string, string]> = [['t1', 'pending', '00'], ['t2', 'completed', '00'], ['t3', 'failed', '05'], ['t4', 'reversed', '00'], ['t5', 'pending', '']];
      for (const [id, status, code] of rows) {
        store.db.prepare(`INSERT INTO transactions (id, institution_id, card_id, stan, rrn, status, merchant_id, terminal_id, channel, amount_minor, day, created_at, record)
          VALUES (?, 'inst', 'c', '000001', 'r', ?, 'm', 't', 'pos', 500, '2026-01-01', '2026-01-01', ?)`).run(id, status, JSON.stringify({ id, responseCode: code, mti: '0100' }));
      }
      store.close();
      const reopened = openStore({ file });
      try {
        const states = rows.map(([id]) => reopened.transactions.getStored('inst', id)!);
        expect(states.map((t) => t.state)).toEqual(['approved', 'approved', 'declined', 'reversed', 'awaiting']);
        expect(states.map((t) => t.reversedMinor)).toEqual([0, 0, 0, 500, 0]);
      } finally {
        reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
