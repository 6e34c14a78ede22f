// The exchange log: every webhook call recorded (each kind, advice retries, reversal repeats,
// duplicate deliveries), redacted (no secret, no full card number anywhere in the JSON), bounded
// (count and bytes, oldest first), per institution; the events the inspector listens to; and
// replay (freshly signed and verifiable, or with its original timestamp; linked; no ledger change).
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Transaction, WebhookExchange, Lifecycle, SimulateEnvelope, SandboxInstitutionCredentials, SandboxUserCredentials, Card } from '../../src/api/schemas.js';
import { maskPansInText, redactValue } from '../../src/core/redact.js';
import { createSandboxEvents } from '../../src/sandbox/events.js';
import { ExchangeLog } from '../../src/sandbox/exchange-log.js';
import { switchStore } from '../../src/sandbox/switch/store.js';
import { verifySignature } from '../../src/webhook-protocol/signature.js';
import { call, startTestSandbox, type Sandbox, type DataEnvelope, type ListDataEnvelope, type WebhookFaultState } from './helpers.js';
import { auth, cardOf, clearPan, echo, financial, simulate, startWebhook, updateProgram, useForwardSandbox, type TestWebhook } from './switch-helpers.js';

const SECRET = 'whsec_exchanges_secret_value';
const env = useForwardSandbox({ secret: SECRET, header: 'x-hook-key' }, { adviceRetryFirstMs: 3_600_000 });
let card: Card;

beforeEach(async () => {
  await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: {} });
  card = await cardOf(env.sb, env.programId);
});

async function exchanges(query = '', token = env.sb.token): Promise<{ status: number; data: WebhookExchange[]; body: ListDataEnvelope<WebhookExchange>; text: string }> {
  const response = await call<ListDataEnvelope<WebhookExchange>>(env.sb, 'GET', `/sandbox/webhook-exchanges${query}`, { token });
  return { status: response.status, data: response.body?.data ?? [], body: response.body, text: response.text };
}

const ofTx = async (id: string) => (await exchanges(`?transactionId=${id}&limit=100`)).data.filter((x) => x.transactionId === id);
const forward = (extra: Record<string, unknown> = {}) => auth(card.id, { responseMode: 'forward', ...extra });
const message = (body: Record<string, unknown>) => call<SimulateEnvelope>(env.sb, 'POST', '/sandbox/switch/messages', { token: env.sb.token, body: { responseMode: 'forward', ...body } });

/** Nothing secret in the JSON: not the webhook secret, not the clear PAN, nothing the PAN scanner would mask. */
function expectClean(json: string, pan: string) {
  expect(json).not.toContain(SECRET);
  expect(json).not.toContain(pan);
  expect(maskPansInText(json)).toBe(json);
}

describe('recording', () => {
  it('an authorization: the request as sent (redacted), the reply, the verdict, the code, latency, attempt 1', async () => {
    const response = await simulate(env.sb, forward({ amount: 12 }));
    const id = response.body.data.transactionId;
    const [x] = await ofTx(id);
    expect(x).toMatchObject({
      id: expect.stringMatching(/^wx_/), transactionId: id, originalId: null, cardId: card.id, kind: 'authorization', mti: '0100',
      attempt: 1, replayOf: null, signatureScheme: 'cardctl', verdict: 'accepted', reason: null, responseCode: '00', faults: [],
      request: { method: 'POST', url: env.hook.url },
      response: { status: 200, truncated: false },
    });
    expect(x!.request.headers['x-webhook-signature']).toMatch(/^t=\d+,v1=\[REDACTED\]$/);
    expect(x!.request.headers['x-hook-key']).toBe('[REDACTED]');
    expect((x!.request.body as Record<string, string>)['2']).toMatch(/^\d{6}\*+\d{4}$/);
    expect(JSON.parse(x!.response!.body)['39']).toBe('00');
    expect(x!.latencyMs).toBeGreaterThanOrEqual(0);
    expectClean(JSON.stringify(x), clearPan(env.sb, card.id));
    expect((await call<DataEnvelope<WebhookExchange>>(env.sb, 'GET', `/sandbox/webhook-exchanges/${x!.id}`, { token: env.sb.token })).body.data).toEqual(x);
  });

  it('financial, balance, increment, completion, refund and reversal are each recorded with their kind', async () => {
    const purchase = (await simulate(env.sb, financial(card.id, { amount: 50, responseMode: 'forward' }))).body.data.transactionId;
    const balance = (await simulate(env.sb, { intent: 'authorization', processingFlow: 'balance_inquiry', amount: 0, cardId: card.id, responseMode: 'forward' })).body.data.transactionId;
    const original = (await simulate(env.sb, forward({ amount: 100 }))).body.data.transactionId;
    const increment = (await message({ message: 'increment', originalTransactionId: original, amount: 10 })).body.data.transactionId;
    const completion = (await message({ message: 'completion', originalTransactionId: original, amount: 110 })).body.data.transactionId;
    const refund = (await message({ message: 'refund', originalTransactionId: purchase, amount: 20 })).body.data.transactionId;
    const other = (await simulate(env.sb, forward({ amount: 30 }))).body.data.transactionId;
    const reversal = (await simulate(env.sb, { intent: 'reversal', processingFlow: 'purchase', amount: 30, originalTransactionId: other, responseMode: 'forward' })).body.data.transactionId;
    const kinds = async (id: string) => (await ofTx(id)).map((x) => `${x.kind} ${x.mti}`);
    expect(await kinds(purchase)).toEqual(['financial 0200']);
    expect(await kinds(balance)).toEqual(['balance 0100']);
    expect(await kinds(increment)).toEqual(['increment 0100']);
    expect(await kinds(completion)).toEqual(['completion 0220']);
    expect(await kinds(refund)).toEqual(['refund 0200']);
    expect(await kinds(reversal)).toEqual(['reversal 0420']);
    expect((await ofTx(increment))[0]!.originalId).toBe(original);
    // --tx of an original also lists the exchanges of the messages linked to it.
    expect((await exchanges(`?transactionId=${original}`)).data.map((x) => x.kind)).toEqual(['completion', 'increment', 'authorization']);
  });

  it('an advice refused, then retried: one record per attempt, the retry a repeat (0121, attempt 2)', async () => {
    env.hook.respond((_received, res) => { res.writeHead(503).end('busy'); });
    const advice = (await message({ message: 'advice', cardId: card.id, amount: 30 })).body.data.transactionId;
    env.hook.respond(echo('00'));
    expect((await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} })).body).toEqual({ delivered: 1, pending: 0 });
    const records = (await ofTx(advice)).reverse();
    expect(records.map((x) => [x.kind, x.mti, x.attempt, x.verdict, x.response?.status])).toEqual([
      ['advice', '0120', 1, 'refused', 503], ['advice-repeat', '0121', 2, 'accepted', 200],
    ]);
    expect(records[0]!.reason).toMatch(/HTTP 503/);
    expect((await exchanges('?failed=true')).data.some((x) => x.id === records[0]!.id)).toBe(true);
    expect((await exchanges('?failed=true')).data.every((x) => x.verdict !== 'accepted')).toBe(true);
  });

  it('a reversal with no answer stands and is repeated (0421): each attempt recorded, the first with no reply', async () => {
    const original = (await simulate(env.sb, forward({ amount: 90 }))).body.data.transactionId;
    await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: { reset: 1 } });
    const reversal = (await simulate(env.sb, { intent: 'reversal', processingFlow: 'purchase', amount: 90, originalTransactionId: original, responseMode: 'forward' })).body.data.transactionId;
    await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: {} });
    await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} });
    const records = (await ofTx(reversal)).reverse();
    expect(records.map((x) => [x.kind, x.mti, x.attempt, x.verdict])).toEqual([['reversal', '0420', 1, 'no-answer'], ['reversal-repeat', '0421', 2, 'accepted']]);
    expect(records[0]).toMatchObject({ response: null, faults: ['reset'], reason: expect.stringMatching(/reset/) });
  });

  it('a network repeat (0101) is recorded as a repeat', async () => {
    const id = (await simulate(env.sb, forward())).body.data.transactionId;
    await call<SimulateEnvelope>(env.sb, 'POST', `/sandbox/transactions/${id}/repeat`, { token: env.sb.token, body: { responseMode: 'forward' } });
    expect((await ofTx(id)).map((x) => `${x.kind} ${x.mti} ${x.attempt}`)).toEqual(['authorization-repeat 0101 2', 'authorization 0100 1']);
  });

  it('a duplicate delivery is two records, both marked with the fault', async () => {
    await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: { duplicate: 1 } });
    const id = (await simulate(env.sb, forward())).body.data.transactionId;
    expect(env.hook.received).toHaveLength(2);
    const records = await ofTx(id);
    expect(records).toHaveLength(2);
    for (const x of records) expect(x).toMatchObject({ kind: 'authorization', attempt: 1, faults: ['duplicate'], verdict: 'accepted' });
  });

  it('a reply that is not an answer is refused, its body kept (card numbers masked) and the reason said', async () => {
    const pan = clearPan(env.sb, card.id);
    env.hook.respond((_received, res) => { res.writeHead(200, { 'content-type': 'text/plain', 'x-echo': SECRET }).end(`card ${pan} secret ${SECRET}`); });
    const id = (await simulate(env.sb, forward())).body.data.transactionId;
    const [x] = await ofTx(id);
    expect(x).toMatchObject({ verdict: 'refused', response: { status: 200 }, reason: expect.stringMatching(/content type/) });
    expect(x!.response!.body).toContain(pan.slice(-4));
    expectClean(JSON.stringify(await exchanges('?limit=100')), pan);
  });

  it('past the deadline: no answer, no reply taken, the fault named; what follows (the timeout reversal) recorded too', async () => {
    await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: { deadline: '30ms' } });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    env.hook.respond(async (received, res) => {
      if (received.message['0'] === '0100') await gate;
      return echo('00')(received, res);
    });
    const id = (await simulate(env.sb, forward({ amount: 7 }))).body.data.transactionId;
    await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: {} });
    expect((await ofTx(id))[0]).toMatchObject({ verdict: 'no-answer', response: null, faults: ['deadline 30ms'], reason: expect.stringMatching(/timeout/) });
    release();
    for (;;) {
      const reversal = (await exchanges(`?transactionId=${id}`)).data.find((x) => x.kind === 'timeout-reversal');
      if (reversal) {
        expect(reversal).toMatchObject({ mti: '0420', originalId: id, attempt: 1, verdict: 'accepted' });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });

  it('a signature fault: the record shows what went out (a tampered body as tampered, a missing signature as missing) and names the fault', async () => {
    for (const fault of ['tampered', 'missing'] as const) {
      await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: { signature: fault } });
      const id = (await simulate(env.sb, forward({ amount: 9 }))).body.data.transactionId;
      await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: {} });
      const [x] = await ofTx(id);
      const received = env.hook.received.at(-1)!;
      expect(x!.faults).toEqual([`signature ${fault}`]);
      expect(x!.request.body).toEqual(redactValue(received.message));
      expect('x-webhook-signature' in x!.request.headers).toBe(received.headers['x-webhook-signature'] !== undefined);
    }
  });

  it('a webhook that closes the connection after reading the request was reached: the reason says it closed, not "could not be reached"', async () => {
    const closing = createServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    await updateProgram(env.sb, env.programId, { webHookConfig: { url: `http://127.0.0.1:${(closing.address() as AddressInfo).port}/hook` } });
    try {
      const id = (await simulate(env.sb, forward())).body.data.transactionId;
      const [x] = await ofTx(id);
      expect(x).toMatchObject({ verdict: 'no-answer', response: null, reason: expect.stringMatching(/^the webhook closed the connection after the request, without a reply \(\w+\)$/) });
    } finally {
      await updateProgram(env.sb, env.programId, { webHookConfig: { url: env.hook.url } });
      await new Promise((resolve) => closing.close(resolve));
    }
  });

  it('unreachable: no answer, no reply', async () => {
    const dead = await startWebhook();
    await dead.close();
    await updateProgram(env.sb, env.programId, { webHookConfig: { url: dead.url } });
    try {
      const id = (await simulate(env.sb, forward())).body.data.transactionId;
      expect((await ofTx(id))[0]).toMatchObject({ verdict: 'no-answer', response: null, reason: expect.stringMatching(/could not be reached/) });
    } finally {
      await updateProgram(env.sb, env.programId, { webHookConfig: { url: env.hook.url } });
    }
  });

  it('tells listeners of each exchange and each transaction stored or changed', async () => {
    const seen: Array<WebhookExchange | Transaction> = [];
    const onExchange = (x: WebhookExchange) => seen.push(x);
    const onTransaction = (tx: Transaction) => seen.push(tx);
    env.sb.deps.events.on('exchange', onExchange);
    env.sb.deps.events.on('transaction', onTransaction);
    try {
      const id = (await simulate(env.sb, forward())).body.data.transactionId;
      const states = seen.filter((x): x is Transaction => 'transactionStatus' in x && x.id === id).map((tx) => tx.responseCode);
      expect(states.length).toBeGreaterThanOrEqual(2);
      expect(states.at(-1)).toBe('00');
      expect(seen.some((x) => 'verdict' in x && x.transactionId === id)).toBe(true);
    } finally {
      env.sb.deps.events.off('exchange', onExchange);
      env.sb.deps.events.off('transaction', onTransaction);
    }
  });

  it('a transaction is told once its write commits, never when the write is rolled back', async () => {
    const id = (await simulate(env.sb, forward())).body.data.transactionId;
    const stored = env.sb.deps.store.transactions.getStored(env.sb.institutionId, id)!;
    const events = createSandboxEvents();
    const told: string[] = [];
    events.on('transaction', (tx) => told.push(tx.id));
    const store = switchStore(env.sb.deps.store, { events });
    const index = { channel: 'pos' as const, amountMinor: stored.amountMinor, day: '2026-11-27', state: stored.state, kind: stored.kind, flow: stored.flow, currency: stored.currency };
    expect(() => store.atomically(() => {
      store.insert({ ...stored.record, id: 'rolled-back-0000000000001', _id: 'rolled-back-0000000000001' }, index);
      expect(told).toEqual([]);
      throw new Error('rolled back');
    })).toThrow('rolled back');
    expect(told).toEqual([]);
    expect(env.sb.deps.store.transactions.get(env.sb.institutionId, 'rolled-back-0000000000001')).toBeUndefined();
    store.atomically(() => store.insert({ ...stored.record, id: 'committed-00000000000000001', _id: 'committed-00000000000000001' }, index));
    expect(told).toEqual(['committed-00000000000000001']);
  });

  it('a listener that throws never fails the switch', async () => {
    const boom = () => { throw new Error('listener bug'); };
    env.sb.deps.events.on('exchange', boom);
    env.sb.deps.events.on('transaction', boom);
    try {
      const response = await simulate(env.sb, forward());
      expect(response.status).toBe(200);
      expect(response.body.data.responseCode).toBe('00');
      expect(await ofTx(response.body.data.transactionId)).toHaveLength(1);
    } finally {
      env.sb.deps.events.off('exchange', boom);
      env.sb.deps.events.off('transaction', boom);
    }
  });

  it('a replay record holds no secret or full card number either', async () => {
    const id = (await simulate(env.sb, forward())).body.data.transactionId;
    const [first] = await ofTx(id);
    const replay = await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first!.id}/replay`, { token: env.sb.token, body: { keepTimestamp: true } });
    expectClean(replay.text, clearPan(env.sb, card.id));
  });

});

describe('paging, filters, tenancy', () => {
  it('newest first, paged, since', async () => {
    const before = new Date(Date.now() - 1).toISOString();
    for (let i = 0; i < 3; i++) await simulate(env.sb, forward({ amount: 1 + i }));
    const page = await exchanges(`?since=${encodeURIComponent(before)}&limit=2`);
    expect(page.body.pagination).toMatchObject({ page: 1, limit: 2, total: 3, pages: 2 });
    expect(page.data.map((x) => (x.request.body as Record<string, string>)['4'])).toEqual(['000000000300', '000000000200']);
    expect((await exchanges(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).data).toEqual([]);
  });

  it("another institution sees none of these, and cannot read or replay one (404)", async () => {
    const id = (await simulate(env.sb, forward())).body.data.transactionId;
    const [x] = await ofTx(id);
    const other = (await call<DataEnvelope<SandboxInstitutionCredentials>>(env.sb, 'POST', '/sandbox/institutions', { body: { name: 'Other Bank' } })).body.data;
    expect((await exchanges('', other.token)).data).toEqual([]);
    expect((await call<DataEnvelope<WebhookExchange>>(env.sb, 'GET', `/sandbox/webhook-exchanges/${x!.id}`, { token: other.token })).status).toBe(404);
    expect((await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${x!.id}/replay`, { token: other.token, body: {} })).status).toBe(404);
    expect((await call<ListDataEnvelope<WebhookExchange>>(env.sb, 'GET', '/sandbox/webhook-exchanges')).status).toBe(401);
  });
});

describe('replay', () => {
  it('arrives as it was, freshly signed (verifiable), recorded and linked; the ledger is unchanged', async () => {
    const response = await simulate(env.sb, forward({ amount: 40 }));
    const id = response.body.data.transactionId;
    const [first] = await ofTx(id);
    const sent = env.hook.received.at(-1)!;
    const before = (await call<DataEnvelope<Lifecycle>>(env.sb, 'GET', `/sandbox/transactions/${id}/lifecycle`, { token: env.sb.token })).body.data;
    env.hook.respond(echo('51'));
    const replay = await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first!.id}/replay`, { token: env.sb.token, body: {} });
    expect(replay.status, replay.text).toBe(201);
    const again = env.hook.received.at(-1)!;
    expect(again.body).toBe(sent.body);
    expect(again.headers['x-hook-key']).toBe(SECRET);
    expect(verifySignature(again.headers['x-webhook-signature'], SECRET, again.body)).toMatchObject({ ok: true });
    expect(replay.body.data).toMatchObject({ replayOf: first!.id, transactionId: id, kind: 'authorization', attempt: 1, verdict: 'accepted', responseCode: '51' });
    expect(replay.body.data.id).not.toBe(first!.id);
    expect((await ofTx(id))[0]!.id).toBe(replay.body.data.id);
    expect((await call<DataEnvelope<Lifecycle>>(env.sb, 'GET', `/sandbox/transactions/${id}/lifecycle`, { token: env.sb.token })).body.data).toEqual(before);
    expect((await call<DataEnvelope<Transaction>>(env.sb, 'GET', `/institutions/transactions/${id}`, { token: env.sb.token })).body.data.responseCode).toBe('00');
  });

  it('keepTimestamp signs with the original t=; a handler checking freshness refuses it once older than its tolerance', async () => {
    const id = (await simulate(env.sb, forward())).body.data.transactionId;
    const [first] = await ofTx(id);
    const t = /t=(\d+)/.exec(first!.request.headers['x-webhook-signature']!)![1];
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first!.id}/replay`, { token: env.sb.token, body: { keepTimestamp: true } });
    const kept = env.hook.received.at(-1)!;
    expect(kept.headers['x-webhook-signature']).toMatch(new RegExp(`^t=${t},v1=`));
    expect(verifySignature(kept.headers['x-webhook-signature'], SECRET, kept.body, { toleranceSeconds: 300 })).toMatchObject({ ok: true });
    expect(verifySignature(kept.headers['x-webhook-signature'], SECRET, kept.body, { toleranceSeconds: 0 })).toMatchObject({ ok: false, reason: expect.stringMatching(/off/) });
    await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first!.id}/replay`, { token: env.sb.token, body: {} });
    expect(env.hook.received.at(-1)!.headers['x-webhook-signature']).not.toMatch(new RegExp(`^t=${t},`));
  });

  it('to: another loopback URL, signed but without the secret header; not a URL, not http(s), or not this machine: 400; unknown id: 404', async () => {
    const id = (await simulate(env.sb, forward())).body.data.transactionId;
    const [first] = await ofTx(id);
    const elsewhere: TestWebhook = await startWebhook();
    try {
      const replay = await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first!.id}/replay`, { token: env.sb.token, body: { to: elsewhere.url } });
      expect(replay.status).toBe(201);
      expect(replay.body.data.request.url).toBe(elsewhere.url);
      expect(elsewhere.received).toHaveLength(1);
      const [arrived] = elsewhere.received;
      expect(arrived!.headers['x-hook-key']).toBeUndefined();
      expect(JSON.stringify(arrived!.headers)).not.toContain(SECRET);
      expect(verifySignature(arrived!.headers['x-webhook-signature'], SECRET, arrived!.body)).toMatchObject({ ok: true });
      // By name: localhost is resolved once, checked, and connected by that address.
      const byName = elsewhere.url.replace('127.0.0.1', 'localhost');
      const named = await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first!.id}/replay`, { token: env.sb.token, body: { to: byName } });
      expect(named.status, named.text).toBe(201);
      expect(elsewhere.received).toHaveLength(2);
    } finally {
      await elsewhere.close();
    }
    const port = new URL(env.hook.url).port;
    for (const to of ['not a url', 'ftp://127.0.0.1/x', 'http://example.com/hook', `http://127.0.0.1.attacker.example:${port}/`, `http://localhost.attacker.example:${port}/`,
      `http://127.0.0.1@attacker.example:${port}/`, `http://attacker.example#@127.0.0.1:${port}/`, `http://0.0.0.0:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`]) {
      const refused = await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first!.id}/replay`, { token: env.sb.token, body: { to } });
      expect(refused.status, to).toBe(400);
    }
    expect((await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', '/sandbox/webhook-exchanges/wx_nope/replay', { token: env.sb.token, body: {} })).status).toBe(404);
  });

  it('to another URL needs read:card_program: a token with create:transaction alone gets 403 and nothing is sent; to the program\'s own webhook it may', async () => {
    const id = (await simulate(env.sb, forward())).body.data.transactionId;
    const [first] = await ofTx(id);
    const user = await call<DataEnvelope<SandboxUserCredentials>>(env.sb, 'POST', '/sandbox/users', { token: env.sb.token, body: { roles: [{ role: 'replayer', permissions: ['create:transaction'] }] } });
    expect(user.status, user.text).toBe(201);
    const narrow = user.body.data.token as string;
    const listener = await startWebhook();
    try {
      const refused = await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first!.id}/replay`, { token: narrow, body: { to: listener.url } });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: 'FORBIDDEN', details: { requiredScope: 'read:card_program' } });
      expect(listener.received).toHaveLength(0);
      const before = env.hook.received.length;
      const own = await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first!.id}/replay`, { token: narrow, body: {} });
      expect(own.status, own.text).toBe(201);
      expect(env.hook.received).toHaveLength(before + 1);
      const sameUrl = await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first!.id}/replay`, { token: narrow, body: { to: env.hook.url } });
      expect(sameUrl.status, sameUrl.text).toBe(201);
      expect(env.hook.received.at(-1)!.headers['x-hook-key']).toBe(SECRET);
    } finally {
      await listener.close();
    }
  });
});

describe('bounds', () => {
  let sb: Sandbox;
  let hook: TestWebhook;
  beforeAll(async () => {
    sb = await startTestSandbox({ exchangesMax: 3 });
    hook = await startWebhook();
    await updateProgram(sb, sb.cardProgramId, { webHookConfig: { url: hook.url } });
  });
  afterAll(async () => { await hook.close(); await sb.close(); });

  it('past the count, the oldest go first', async () => {
    const program = sb.cardProgramId;
    const c = await cardOf(sb, program);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await simulate(sb, auth(c.id, { responseMode: 'forward' }))).body.data.transactionId);
    const listed = (await call<ListDataEnvelope<WebhookExchange>>(sb, 'GET', '/sandbox/webhook-exchanges?limit=100', { token: sb.token })).body.data as WebhookExchange[];
    expect(listed.map((x) => x.transactionId)).toEqual(ids.slice(2).reverse());
    expect(sb.deps.exchanges.size().count).toBe(3);
  });

  it('past the bytes, the oldest go first', () => {
    const log = new ExchangeLog({ count: 100, bytes: 3000 });
    const record = (n: number) => ({ id: `wx_${n}`, at: new Date().toISOString(), transactionId: 't', originalId: null, cardId: null, kind: 'authorization', mti: '0100', attempt: 1, replayOf: null, signatureScheme: 'cardctl', request: { method: 'POST', url: 'http://127.0.0.1/', headers: {}, body: { pad: 'x'.repeat(800) } }, response: null, latencyMs: 1, verdict: 'accepted' as const, reason: null, responseCode: '00', faults: [] });
    for (let n = 0; n < 6; n++) log.add('inst', record(n), { '0': '0100' });
    const kept = log.list({ institutionId: 'inst', limit: 100, offset: 0 }).records.map((x) => x.id);
    expect(log.size().bytes).toBeLessThanOrEqual(3000);
    expect(kept[0]).toBe('wx_5');
    expect(kept).not.toContain('wx_0');
    expect(kept.length).toBeLessThan(6);
  });
});
