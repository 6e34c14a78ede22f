// The signature scheme of a card program's webhook (webHookConfig.type) and secret rotation:
// the sandbox's Standard Webhooks signatures checked by the `standardwebhooks` library (the
// independent verifier), one webhook-id for every delivery of a message, whsec_ secrets made
// or refused, and both secrets signing during a rotation window, in either scheme.
import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Card, CardProgram, SimulateEnvelope, WebhookExchange } from '../../src/api/schemas.js';
import { verifyRequest, verifySignature } from '../../src/webhook-protocol/signature.js';
import { call, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { auth, cardOf, createProgram, echo, updateProgram, simulate, useForwardSandbox, type Received } from './switch-helpers.js';

const OLD = 'whsec_c2NoZW1lLXRlc3Qtb2xkLXNlY3JldC0wMTIzNDU2Nzg5';
const NEW = 'whsec_c2NoZW1lLXRlc3QtbmV3LXNlY3JldC05ODc2NTQzMjEw';

let card: Card;
const env = useForwardSandbox({}, { adviceRetryFirstMs: 3_600_000 });
beforeEach(async () => {
  await call(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: {} });
  await updateProgram(env.sb, env.programId, { webHookConfig: { type: 'standard-webhooks', secret: OLD, previousSecretUntil: new Date(0).toISOString() } });
  card = await cardOf(env.sb, env.programId);
});

const forward = (extra: Record<string, unknown> = {}) => auth(card.id, { responseMode: 'forward', ...extra });
const headersOf = (received: Received) => received.headers as Record<string, string>;
/** What the standardwebhooks library says of a delivery: true, or its error's message. */
function libraryVerdict(secret: string, received: Received): true | string {
  try {
    new Webhook(secret).verify(received.body, headersOf(received));
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('standard-webhooks scheme', () => {
  it('signs so that the standardwebhooks library verifies it, and only with the right secret', async () => {
    const response = await simulate(env.sb, forward());
    expect(response.body.data.responseCode).toBe('00');
    const [received] = env.hook.received;
    expect(libraryVerdict(OLD, received!)).toBe(true);
    expect(libraryVerdict(NEW, received!)).not.toBe(true);
    expect(headersOf(received!)['webhook-id']).toBe(`msg_${response.body.data.transactionId}`);
    expect(headersOf(received!)['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(received!.headers).not.toHaveProperty('x-webhook-signature');
    // The body changed after signing is refused by the library too.
    expect(libraryVerdict(OLD, { ...received!, body: received!.body.replace('"0100"', '"0200"') })).not.toBe(true);
  });

  it('gives every delivery of a message one webhook-id: a duplicate, a repeat, an advice sent again', async () => {
    await call(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: { duplicate: 1 } });
    const original = await simulate(env.sb, forward());
    await call(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: {} });
    const id = original.body.data.transactionId;
    const repeat = await call<SimulateEnvelope>(env.sb, 'POST', `/sandbox/transactions/${id}/repeat`, { token: env.sb.token, body: { responseMode: 'forward' } });
    expect(repeat.status, repeat.text).toBe(200);
    expect(env.hook.received.map((r) => r.message['0'])).toEqual(['0100', '0100', '0101']);
    expect(new Set(env.hook.received.map((r) => headersOf(r)['webhook-id']))).toEqual(new Set([`msg_${id}`]));
    for (const received of env.hook.received) expect(libraryVerdict(OLD, received)).toBe(true);

    env.hook.received.length = 0;
    env.hook.respond((_received, res) => { res.writeHead(500).end(); });
    const advice = await call<SimulateEnvelope>(env.sb, 'POST', '/sandbox/switch/messages', { token: env.sb.token, body: { responseMode: 'forward', message: 'advice', cardId: card.id, amount: 30 } });
    env.hook.respond(echo('00'));
    expect((await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} })).body).toEqual({ delivered: 1, pending: 0 });
    expect(env.hook.received.map((r) => r.message['0'])).toEqual(['0120', '0121']);
    expect(env.hook.received.map((r) => headersOf(r)['webhook-id'])).toEqual([`msg_${advice.body.data.transactionId}`, `msg_${advice.body.data.transactionId}`]);
    for (const received of env.hook.received) expect(libraryVerdict(OLD, received)).toBe(true);
  });

  it('makes a whsec_ secret when switched to standard-webhooks without one it can use, and refuses a set one that is not', async () => {
    const program = await createProgram(env.sb, { webHookConfig: { url: env.hook.url } });
    expect(program.webHookConfig).toMatchObject({ type: 'http' });
    expect(program.webHookConfig.secret).not.toMatch(/^whsec_/);
    const switched = await updateProgram(env.sb, program.id, { webHookConfig: { type: 'standard-webhooks' } });
    expect(switched.webHookConfig.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // A change that keeps a usable secret keeps it.
    expect((await updateProgram(env.sb, program.id, { webHookConfig: { header: '' } })).webHookConfig.secret).toBe(switched.webHookConfig.secret);
    const created = await createProgram(env.sb, { webHookConfig: { url: env.hook.url, type: 'standard-webhooks' } });
    expect(created.webHookConfig.secret).toMatch(/^whsec_/);

    for (const secret of ['plain-text', 'whsec_not base64!', 'whsec_c2hvcnQ=']) {
      const refused = await call<DataEnvelope<CardProgram>>(env.sb, 'PUT', `/sandbox/card-programs/${program.id}`, { token: env.sb.token, body: { webHookConfig: { secret } } });
      expect(refused.status, secret).toBe(400);
      expect(refused.body.message).toMatch(/webHookConfig\.secret.*whsec_ and the base64 of 24 to 64 bytes/);
      expect(refused.text).not.toContain(secret);
    }
    const badType = await call<DataEnvelope<CardProgram>>(env.sb, 'PUT', `/sandbox/card-programs/${program.id}`, { token: env.sb.token, body: { webHookConfig: { type: 'svix' } } });
    expect(badType.status).toBe(400);
    // Back to http: any secret, the whsec_ one kept.
    expect((await updateProgram(env.sb, program.id, { webHookConfig: { type: 'http', secret: 'plain-text' } })).webHookConfig).toMatchObject({ type: 'http', secret: 'plain-text' });
  });
});

describe('secret rotation', () => {
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

  it('signs with both secrets (standard-webhooks) until the window is ended', async () => {
    const rotated = await updateProgram(env.sb, env.programId, { webHookConfig: { secret: NEW, previousSecretUntil: inAnHour() } });
    expect(rotated.webHookConfig).toMatchObject({ secret: NEW, previousSecret: OLD, previousSecretUntil: expect.any(String) });
    await simulate(env.sb, forward());
    const [during] = env.hook.received;
    expect(headersOf(during!)['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(libraryVerdict(NEW, during!)).toBe(true);
    expect(libraryVerdict(OLD, during!)).toBe(true);

    const ended = await updateProgram(env.sb, env.programId, { webHookConfig: { previousSecretUntil: new Date().toISOString() } });
    expect(ended.webHookConfig).not.toHaveProperty('previousSecret');
    await simulate(env.sb, forward());
    const after = env.hook.received[1]!;
    expect(headersOf(after)['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(libraryVerdict(NEW, after)).toBe(true);
    expect(libraryVerdict(OLD, after)).not.toBe(true);
  });

  it('signs with both secrets (cardctl: two v1 entries), and a past window is over without a PUT', async () => {
    await updateProgram(env.sb, env.programId, { webHookConfig: { type: 'http', secret: 'old-plain', previousSecretUntil: new Date(0).toISOString() } });
    await updateProgram(env.sb, env.programId, { webHookConfig: { secret: 'new-plain', previousSecretUntil: inAnHour() } });
    await simulate(env.sb, forward());
    const [during] = env.hook.received;
    expect(during!.headers['x-webhook-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature(during!.headers['x-webhook-signature'], 'new-plain', during!.body)).toMatchObject({ ok: true });
    expect(verifySignature(during!.headers['x-webhook-signature'], 'old-plain', during!.body)).toMatchObject({ ok: true });
    expect(verifyRequest('cardctl', during!.headers, 'another', during!.body)).toMatchObject({ ok: false });

    // The window closes by itself: a stored end in the past signs with the new secret alone.
    const row = env.sb.deps.store.cardPrograms.get(env.sb.institutionId, env.programId)!;
    env.sb.deps.store.cardPrograms.update({ ...row, webHookConfig: { ...row.webHookConfig, previousSecretUntil: new Date(Date.now() - 1000).toISOString() } });
    await simulate(env.sb, forward());
    expect(env.hook.received[1]!.headers['x-webhook-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('a new secret without a window replaces the old at once; a window end without a rotation is a 400', async () => {
    await updateProgram(env.sb, env.programId, { webHookConfig: { secret: NEW, previousSecretUntil: inAnHour() } });
    const replaced = await updateProgram(env.sb, env.programId, { webHookConfig: { secret: OLD } });
    expect(replaced.webHookConfig).not.toHaveProperty('previousSecret');
    const none = await call<DataEnvelope<CardProgram>>(env.sb, 'PUT', `/sandbox/card-programs/${env.programId}`, { token: env.sb.token, body: { webHookConfig: { previousSecretUntil: inAnHour() } } });
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/moves no secret rotation/);
    const direct = await call<DataEnvelope<CardProgram>>(env.sb, 'PUT', `/sandbox/card-programs/${env.programId}`, { token: env.sb.token, body: { webHookConfig: { previousSecret: NEW } } });
    expect(direct.status).toBe(400);
  });
});

describe('sandbox serve --webhook-scheme (the seeded program)', () => {
  it('sets the type on the first start and on later ones, with a whsec_ secret for standard-webhooks kept across starts', async () => {
    const { openStore } = await import('../../src/sandbox/store/index.js');
    const { seedSandbox } = await import('../../src/sandbox/tenancy.js');
    const store = openStore({ memory: true });
    try {
      const seed = seedSandbox(store, new Date(), { webhookScheme: 'standard-webhooks' });
      const config = () => store.cardPrograms.get(seed.institutionId, seed.cardProgramId)!.webHookConfig;
      expect(config()).toMatchObject({ type: 'standard-webhooks', secret: expect.stringMatching(/^whsec_/) });
      const secret = config().secret;
      seedSandbox(store, new Date(), { webhookUrl: 'http://127.0.0.1:9/hook' });
      expect(config()).toMatchObject({ type: 'standard-webhooks', secret, url: 'http://127.0.0.1:9/hook' });
      seedSandbox(store, new Date(), { webhookScheme: 'cardctl' });
      expect(config()).toMatchObject({ type: 'http', secret });
    } finally {
      store.close();
    }
  });
});

describe('the exchange log in the standard-webhooks scheme', () => {
  it('records the scheme, redacts the signature, and a replay keeps the webhook-id, is verifiable, and with keepTimestamp keeps webhook-timestamp', async () => {
    const id = (await simulate(env.sb, forward())).body.data.transactionId;
    const [first] = (await call<ListDataEnvelope<WebhookExchange>>(env.sb, 'GET', `/sandbox/webhook-exchanges?transactionId=${id}`, { token: env.sb.token })).body.data;
    expect(first).toMatchObject({ signatureScheme: 'standard-webhooks', request: { headers: { 'webhook-id': `msg_${id}`, 'webhook-signature': 'v1,[REDACTED]' } } });
    expect(JSON.stringify(first)).not.toContain(OLD);
    const stamp = first.request.headers['webhook-timestamp'];
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const replay = await call<DataEnvelope<WebhookExchange>>(env.sb, 'POST', `/sandbox/webhook-exchanges/${first.id}/replay`, { token: env.sb.token, body: { keepTimestamp: true } });
    expect(replay.status, replay.text).toBe(201);
    const received = env.hook.received.at(-1)!;
    expect(headersOf(received)).toMatchObject({ 'webhook-id': `msg_${id}`, 'webhook-timestamp': stamp });
    expect(verifyRequest('standard-webhooks', received.headers, OLD, received.body, { toleranceSeconds: 300 })).toMatchObject({ ok: true });
    expect(verifyRequest('standard-webhooks', received.headers, OLD, received.body, { toleranceSeconds: 0 })).toMatchObject({ ok: false });
    expect(replay.body.data).toMatchObject({ replayOf: first.id, signatureScheme: 'standard-webhooks' });
  });
});
