// Card secrets (SENSITIVE_FIELDS: tracks, PIN block, chip data) sent in a message: the webhook gets
// them in the first send; the stored record, the simulator's answer, GET of the transaction and
// its lifecycle view never hold them in clear; a repeat or an advice sent again carries none.
import { beforeEach, describe, expect, it } from 'vitest';
import { SENSITIVE_FIELDS } from '../../src/core/card-secret-fields.js';
import { call, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { auth, cardOf, clearPan, simulate, useForwardSandbox } from './switch-helpers.js';
import type { Card, Transaction, Lifecycle, SimulateEnvelope } from '../../src/api/schemas.js';

const env = useForwardSandbox();
let card: Card;
let pan: string;

beforeEach(async () => {
  card = await cardOf(env.sb, env.programId);
  pan = clearPan(env.sb, card.id);
});

/** Each field with a value that holds a secret the text of a stored message must not show (the card number). */
function secretsOf(): Array<{ field: string; value: string; secret: string }> {
  return [
    { field: '35', value: `${pan}=31111010000012345678`, secret: '0000012345678' },
    { field: '36', value: `01${pan}=3111101000009876543210`, secret: '9876543210' },
    { field: '45', value: `B${pan}^LOVELACE/ADA^3111601`, secret: pan },
    { field: '52', value: 'A1B2C3D4E5F60718', secret: 'A1B2C3D4E5F60718' },
    { field: '55', value: '9F2608C3D4E5F6A7B8C9D09F2701809F10120110A00003220000000000000000000000FF', secret: '9F2608C3D4E5F6A7B8C9D0' },
  ];
}

async function stored(id: string) {
  return (await call<DataEnvelope<Transaction>>(env.sb, 'GET', `/institutions/transactions/${id}`, { token: env.sb.token })).body.data;
}

it('the table covers every field SENSITIVE_FIELDS names', () => {
  expect(new Set(secretsOf().map(({ field }) => field))).toEqual(SENSITIVE_FIELDS);
});

describe.each(['35', '36', '45', '52', '55'])('field %s', (field) => {
  const entry = () => secretsOf().find((row) => row.field === field)!;

  it('reaches the webhook in the first send, and is never stored or answered in clear', async () => {
    const { value, secret } = entry();
    const response = await simulate(env.sb, auth(card.id, { responseMode: 'forward', overrides: { [field]: value } }));
    expect(response.status, response.text).toBe(200);
    expect(env.hook.received[0]!.message[field]).toBe(value);

    const { data } = response.body;
    const tx = await stored(data.transactionId);
    const lifecycle = (await call<DataEnvelope<Lifecycle>>(env.sb, 'GET', `/sandbox/transactions/${data.transactionId}/lifecycle`, { token: env.sb.token })).body;
    const list = (await call<ListDataEnvelope<Transaction>>(env.sb, 'GET', '/institutions/transactions?limit=100', { token: env.sb.token })).body;
    const row = env.sb.deps.store.transactions.getStored(env.sb.institutionId, data.transactionId);
    for (const [where, text] of Object.entries({ answer: JSON.stringify(data), get: JSON.stringify(tx), lifecycle: JSON.stringify(lifecycle), list: JSON.stringify(list), store: JSON.stringify(row) })) {
      expect(text, where).not.toContain(secret);
      expect(text, where).not.toContain(pan);
    }
    expect(tx.originalMessage[field]).toBeDefined();
    if (field !== '35') expect(tx.originalMessage[field]).toBe('[REDACTED]');
  });

  it("the stub's response does not echo it", async () => {
    const response = await simulate(env.sb, auth(card.id, { overrides: { [field]: entry().value } }));
    expect(response.body.data.responseCode).toBe('00');
    expect(response.body.data.response).not.toHaveProperty(field);
  });

  it('a repeat and an advice sent again carry none of it, with the clear PAN', async () => {
    const { value } = entry();
    const original = (await simulate(env.sb, auth(card.id, { responseMode: 'forward', overrides: { [field]: value } }))).body.data.transactionId;
    const repeat = await call<SimulateEnvelope>(env.sb, 'POST', `/sandbox/transactions/${original}/repeat`, { token: env.sb.token, body: { responseMode: 'forward' } });
    expect(repeat.status, repeat.text).toBe(200);
    const sentRepeat = env.hook.received.at(-1)!.message;
    expect(sentRepeat['0']).toBe('0101');
    expect(sentRepeat['2']).toBe(pan);

    env.hook.respond((_received, res) => { res.writeHead(500).end(); });
    const advice = await call<SimulateEnvelope>(env.sb, 'POST', '/sandbox/switch/messages', { token: env.sb.token, body: { responseMode: 'forward', message: 'advice', cardId: card.id, amount: 30, overrides: { [field]: value } } });
    expect(advice.status, advice.text).toBe(200);
    expect(env.hook.received.at(-1)!.message[field]).toBe(value);
    env.hook.respond((received, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...received.message, '0': '0130', '39': '00' })); });
    expect((await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} })).body).toMatchObject({ delivered: 1 });
    const sentAdvice = env.hook.received.at(-1)!.message;
    expect(sentAdvice['0']).toBe('0121');
    expect(sentAdvice['2']).toBe(pan);

    for (const message of [sentRepeat, sentAdvice]) {
      for (const secret of SENSITIVE_FIELDS) expect(message, `field ${secret}`).not.toHaveProperty(secret);
    }
  });
});
