// Forward mode: the simulator POSTs the request message to the program's webhook, signed, and
// uses the reply — approved, declined, timeout, invalid replies, a webhook that refuses the
// signature — and forwarded reversals.
import { beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/webhook-protocol/signature.js';
import { call, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import type { ServerResponse } from 'node:http';
import { auth, cardOf, clearPan, createProgram, echo, simulate, updateProgram, useForwardSandbox, type Received } from './switch-helpers.js';
import type { Card, Transaction } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';

const SECRET = 'whsec_test_0123456789';

let card: Card;

const env = useForwardSandbox({ secret: SECRET, header: 'x-webhook-secret' });
beforeEach(async () => {
  card = await cardOf(env.sb, env.programId);
});

const forward = (extra: Record<string, unknown> = {}) => auth(card.id, { responseMode: 'forward', ...extra });

async function stored(id: string) {
  return (await call<DataEnvelope<Transaction>>(env.sb, 'GET', `/institutions/transactions/${id}`, { token: env.sb.token })).body.data;
}

describe('forward mode', () => {
  it('sends the clear request, signed, with the secret header, and uses an approving reply', async () => {
    const response = await simulate(env.sb, forward({ amount: 1500 }));
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ status: 'success', data: { responseCode: '00', transactionStatus: 'pending' } });
    // Sandbox extensions of the answer: how the exchange went, no stand-in.
    expect(response.body.data.webhook).toEqual({ latencyMs: expect.any(Number), timedOut: false });
    expect(present(response.body.data.webhook, 'the webhook exchange').latencyMs).toBeLessThanOrEqual(response.body.data.duration);
    expect(response.body.data).not.toHaveProperty('standIn');
    expect(env.hook.received).toHaveLength(1);
    const [received] = env.hook.received;
    expect(received!.headers['content-type']).toMatch(/application\/json/);
    expect(received!.headers['x-webhook-secret']).toBe(SECRET);
    expect(verifySignature(received!.headers['x-webhook-signature'], SECRET, received!.body)).toMatchObject({ ok: true });
    expect(verifySignature(received!.headers['x-webhook-signature'], 'another secret', received!.body)).toMatchObject({ ok: false });
    expect(received!.message).toMatchObject({ '0': '0100', '2': clearPan(env.sb, card.id), '4': '000000150000', '11': response.body.data.stan });
    const tx = await stored(response.body.data.transactionId);
    expect(tx.response['39']).toBe('00');
    expect(tx.timestamps.serviceToInstitution.description).toContain(env.hook.url);
    expect(tx.timestamps.institutionToService.description).toContain('00');
    expect(Date.parse(tx.timestamps.institutionToService.timestamp)).toBeGreaterThanOrEqual(Date.parse(tx.timestamps.serviceToInstitution.timestamp));
  });

  it("stores the webhook's decline", async () => {
    env.hook.respond(echo('51'));
    const response = await simulate(env.sb, forward());
    expect(response.body).toMatchObject({ status: 'failed', data: { responseCode: '51', responseMessage: 'Insufficient funds', transactionStatus: 'failed' } });
    expect(response.body.data.response).toMatchObject({ '0': '0110', '39': '51' });
    const list = await call<ListDataEnvelope<Transaction>>(env.sb, 'GET', '/institutions/transactions?transactionStatus=failed&limit=100', { token: env.sb.token });
    expect(present(list.body.data.find((t: Transaction) => t.id === response.body.data.transactionId)).responseCode).toBe('51');
  });

  it('a financial approved by the webhook is completed', async () => {
    const response = await simulate(env.sb, forward({ intent: 'financial' }));
    expect(response.body.data).toMatchObject({ mti: '0200', responseCode: '00', transactionStatus: 'completed' });
    expect(env.hook.received[0]!.message['0']).toBe('0200');
  });

  it('does not ask the webhook when the service declines', async () => {
    const response = await simulate(env.sb, forward({ cardId: '000000000000000000000000' }));
    expect(response.body.data.responseCode).toBe('14');
    expect(response.body.data).not.toHaveProperty('webhook');
    expect(env.hook.received).toHaveLength(0);
  });

  it('fails with 96 when the webhook does not answer within 5 s', async () => {
    env.hook.respond(async (received, res) => {
      await new Promise((resolve) => setTimeout(resolve, 6_500));
      echo('00')(received, res);
    });
    const started = Date.now();
    const response = await simulate(env.sb, forward());
    const elapsed = Date.now() - started;
    expect(response.body).toMatchObject({ status: 'failed', data: { responseCode: '96', transactionStatus: 'failed' } });
    expect(response.body.message).toMatch(/timeout/);
    expect(response.body.data.webhook).toMatchObject({ timedOut: true, failure: expect.stringMatching(/within 5 s/) });
    expect(present(response.body.data.webhook, 'the webhook exchange').latencyMs).toBeGreaterThanOrEqual(4_900);
    expect(response.body.data.standIn).toEqual({ decision: '96', reason: present(response.body.data.webhook, 'the webhook exchange').failure });
    expect(elapsed).toBeGreaterThanOrEqual(4_900);
    expect(elapsed).toBeLessThan(6_400);
    const tx = await stored(response.body.data.transactionId);
    expect(tx.response['39']).toBe('96');
    expect(tx.timestamps.institutionToService.description).toMatch(/timeout/);
  }, 15_000);

  it.each([
    ['no field 39', (res: ServerResponse, m: Received['message']) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...m, '0': '0110' }))],
    ['a field 39 that is not a code', (res: ServerResponse, m: Received['message']) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...m, '0': '0110', '39': 0 }))],
    ['the request MTI', (res: ServerResponse, m: Received['message']) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...m, '39': '00' }))],
    ['a body that is not JSON', (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>ok</html>')],
    ['an array', (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('[]')],
    ['HTTP 500', (res: ServerResponse) => res.writeHead(500).end('boom')],
    ['a dropped connection', (res: ServerResponse) => res.destroy()],
  ])('fails with 96 on a reply with %s', async (_label, reply) => {
    env.hook.respond((received, res) => { reply(res, received.message); });
    const response = await simulate(env.sb, forward());
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', data: { responseCode: '96', responseMessage: 'System malfunction', transactionStatus: 'failed' } });
    expect(response.body.data.response['39']).toBe('96');
    expect(response.body.data.webhook).toMatchObject({ timedOut: false, failure: expect.any(String) });
    expect(response.body.data.standIn).toEqual({ decision: '96', reason: present(response.body.data.webhook, 'the webhook exchange').failure });
  });

  it('fails with 96 when the webhook refuses the signature (secret mismatch)', async () => {
    // The institution verifies with the secret it knows; the program now holds another one.
    env.hook.respond((received, res) => {
      const verdict = verifySignature(received.headers['x-webhook-signature'], SECRET, received.body);
      if (!verdict.ok) return void res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: verdict.reason }));
      echo('00')(received, res);
    });
    expect((await simulate(env.sb, forward())).body.data.responseCode).toBe('00');
    await updateProgram(env.sb, env.programId, { webHookConfig: { secret: 'rotated-secret' } });
    try {
      const response = await simulate(env.sb, forward());
      expect(response.body).toMatchObject({ status: 'failed', data: { responseCode: '96' } });
      expect(response.body.message).toMatch(/HTTP 401/);
    } finally {
      await updateProgram(env.sb, env.programId, { webHookConfig: { secret: SECRET } });
    }
  });

  it('fails with 96 when the program has no webhook URL', async () => {
    const plain = await createProgram(env.sb, { webHookConfig: { url: '' } });
    const other = await cardOf(env.sb, plain.id);
    const response = await simulate(env.sb, auth(other.id, { responseMode: 'forward' }));
    expect(response.body.data.responseCode).toBe('96');
    expect(response.body.message).toMatch(/webHookConfig\.url/);
  });

  it('a failed forward does not use up the daily count', async () => {
    const limited = await createProgram(env.sb, { webHookConfig: { url: env.hook.url, secret: SECRET }, channels: { pos: { enabled: true, dailyLimit: { count: 1, amount: 1_000_000 } } } });
    const one = await cardOf(env.sb, limited.id);
    env.hook.respond(echo('05'));
    expect((await simulate(env.sb, auth(one.id, { responseMode: 'forward' }))).body.data.responseCode).toBe('05');
    env.hook.respond(echo('00'));
    expect((await simulate(env.sb, auth(one.id, { responseMode: 'forward' }))).body.data.responseCode).toBe('00');
    expect((await simulate(env.sb, auth(one.id, { responseMode: 'forward' }))).body.data.responseCode).toBe('65');
  });

  it('parallel forwarded simulations reserve the count before the webhook answers', async () => {
    const limited = await createProgram(env.sb, { webHookConfig: { url: env.hook.url, secret: SECRET }, channels: { pos: { enabled: true, dailyLimit: { count: 5, amount: 1_000_000 } } } });
    const one = await cardOf(env.sb, limited.id);
    env.hook.respond(async (received, res) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      echo('00')(received, res);
    });
    const results = await Promise.all(Array.from({ length: 20 }, () => simulate(env.sb, auth(one.id, { responseMode: 'forward', amount: 1 }))));
    const codes = results.map((r) => r.body.data.responseCode);
    expect(codes.filter((c) => c === '00')).toHaveLength(5);
    expect(codes.filter((c) => c === '65')).toHaveLength(15);
    expect(env.hook.received).toHaveLength(5);
  });
});

describe('forwarded reversals', () => {
  it('an approved reversal marks the original; a declined one leaves it reversible', async () => {
    const original = (await simulate(env.sb, forward())).body.data;
    env.hook.respond(echo('05'));
    const declined = await simulate(env.sb, { intent: 'reversal', processingFlow: 'purchase', amount: 100, originalTransactionId: original.transactionId, responseMode: 'forward' });
    expect(declined.body.data).toMatchObject({ mti: '0420', responseCode: '05', transactionStatus: 'failed' });
    expect(env.hook.received.at(-1)!.message['0']).toBe('0420');
    expect(env.hook.received.at(-1)!.message['90']).toMatch(new RegExp(`^0100${original.stan}`));
    expect(await stored(original.transactionId)).toMatchObject({ transactionStatus: 'pending', reversed: false, reversalId: '' });

    env.hook.respond(echo('00'));
    const approved = await simulate(env.sb, { intent: 'reversal', processingFlow: 'purchase', amount: 100, originalTransactionId: original.transactionId, responseMode: 'forward' });
    expect(approved.body.data).toMatchObject({ responseCode: '00', transactionStatus: 'completed' });
    expect(approved.body.data.response['0']).toBe('0430');
    expect(await stored(original.transactionId)).toMatchObject({ transactionStatus: 'reversed', reversed: true, reversalId: approved.body.data.transactionId });
  });

  it('a reversal in flight blocks a second one (409)', async () => {
    const original = (await simulate(env.sb, forward())).body.data;
    env.hook.respond(async (received, res) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      echo('00')(received, res);
    });
    const body = { intent: 'reversal', processingFlow: 'purchase', amount: 100, originalTransactionId: original.transactionId, responseMode: 'forward' };
    const first = simulate(env.sb, body);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await simulate(env.sb, body);
    expect(second.status).toBe(409);
    expect(second.body.message).toMatch(/in progress/);
    expect((await first).body.data.responseCode).toBe('00');
  });
});
