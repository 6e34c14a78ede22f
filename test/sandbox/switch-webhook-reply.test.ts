// Forward mode against a webhook that is careless or hostile: replies that do not answer their
// request (every field that must echo, the MTI), non-JSON, wrong content types, a reply far
// over the size bound (streamed: the sandbox stops reading and its memory stays flat), one
// that declares such a size, and a slow drip. Each is a failed transaction (96) whose reason
// is recorded on it; nothing is stored as approved.
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_REPLY_BYTES, MUST_ECHO } from '../../src/webhook-protocol/reply.js';
import { call, type DataEnvelope } from './helpers.js';
import { auth, cardOf, clearPan, echo, simulate, useForwardSandbox, type Responder } from './switch-helpers.js';
import type { Card, Transaction } from '../../src/api/schemas.js';

let card: Card;

const env = useForwardSandbox({ secret: 'whsec_reply' });
beforeAll(async () => {
  card = await cardOf(env.sb, env.programId);
});

const forward = (extra: Record<string, unknown> = {}) => auth(card.id, { responseMode: 'forward', ...extra });

async function stored(id: string) {
  return (await call<DataEnvelope<Transaction>>(env.sb, 'GET', `/institutions/transactions/${id}`, { token: env.sb.token })).body.data;
}

/** Simulates with `responder` as the webhook and checks the transaction failed with 96 for `reason`. */
async function expectFailed(responder: Responder, reason: RegExp, body: Record<string, unknown> = forward()) {
  env.hook.respond(responder);
  const response = await simulate(env.sb, body);
  expect(response.status, response.text).toBe(200);
  expect(response.body).toMatchObject({ status: 'failed', data: { responseCode: '96', transactionStatus: 'failed' } });
  expect(response.body.message).toMatch(reason);
  const tx = await stored(response.body.data.transactionId);
  expect(tx).toMatchObject({ responseCode: '96', transactionStatus: 'failed', response: { '39': '96' } });
  expect(tx.timestamps.institutionToService.description).toMatch(reason);
  expect(env.sb.deps.store.transactions.getStored(env.sb.institutionId, tx.id)!.state).toBe('declined');
  return { response, tx };
}

const json = (reply: unknown, type = 'application/json'): Responder => (_received, res) => {
  res.writeHead(200, { 'content-type': type }).end(typeof reply === 'string' ? reply : JSON.stringify(reply));
};
const echoed = (received: { message: Record<string, string> }, changes: Record<string, string | number | undefined>) => {
  const reply: Record<string, string | number | undefined> = { ...received.message, '0': '0110', '39': '00', ...changes };
  for (const [k, v] of Object.entries(reply)) if (v === undefined) delete reply[k];
  return reply;
};

describe('a reply must answer its request', () => {
  it('every field that must echo is in the request the webhook gets', async () => {
    await simulate(env.sb, forward());
    for (const field of MUST_ECHO.filter((f) => f !== '90')) expect(env.hook.received[0]!.message[field], field).toEqual(expect.any(String));
  });

  for (const field of MUST_ECHO.filter((f) => f !== '90')) {
    it(`field ${field} changed is a 96`, async () => {
      const { response } = await expectFailed((received, res) => json(echoed(received, { [field]: field === '2' ? '4111111111111111' : `${received.message[field]}9` }))(received, res),
        new RegExp(`field ${field} \\[.*\\] differs`));
      // A PAN never shows in the reason, neither the request's nor the reply's.
      expect(response.text).not.toContain('4111111111111111');
      expect(response.text).not.toContain(clearPan(env.sb, card.id));
    });
    it(`field ${field} missing is a 96`, async () => {
      await expectFailed((received, res) => json(echoed(received, { [field]: undefined }))(received, res), new RegExp(`does not echo field ${field} `));
    });
  }

  it('field 90 of a reversal changed is no answer: the reversal stands (stand-in) and is repeated (0421) until a reply answers it', async () => {
    env.hook.respond(echo('00'));
    const original = (await simulate(env.sb, forward({ amount: 70 }))).body.data;
    env.hook.respond((received, res) => json(echoed(received, { '0': '0430', '90': `${received.message['90']!.slice(0, -1)}1` }))(received, res));
    const reversal = await simulate(env.sb, { intent: 'reversal', processingFlow: 'purchase', amount: 70, originalTransactionId: original.transactionId, responseMode: 'forward' });
    expect(reversal.body).toMatchObject({ status: 'success', data: { responseCode: '00', standIn: { decision: '00', reason: expect.stringMatching(/field 90 \[.*\] differs/) } } });
    expect(await stored(reversal.body.data.transactionId)).toMatchObject({ advice: { acknowledged: false, attempts: 1, lastResult: expect.stringMatching(/field 90/) } });
    expect(await stored(original.transactionId)).toMatchObject({ transactionStatus: 'reversed', reversed: true });
    env.hook.respond(echo('00'));
    expect((await call<{ delivered: number; pending: number }>(env.sb, 'POST', '/sandbox/switch/advices/deliver', { body: {} })).body).toEqual({ delivered: 1, pending: 0 });
    expect(env.hook.received.at(-1)!.message).toMatchObject({ '0': '0421', '11': reversal.body.data.stan, '37': reversal.body.data.rrn, '90': reversal.body.data.request['90'] });
    expect(await stored(reversal.body.data.transactionId)).toMatchObject({ advice: { acknowledged: true, attempts: 2 } });
  });

  it.each([
    ['the MTI of another pairing (0210 for 0100)', { '0': '0210' }, /MTI is "0210", expected 0110/],
    ['no MTI', { '0': undefined }, /no MTI/],
    ['field 39 as a number', { '39': 0 }, /no valid field 39/],
    ['field 39 of three characters', { '39': '000' }, /no valid field 39/],
  ])('%s is a 96', async (_label, changes, reason) => {
    await expectFailed((received, res) => json(echoed(received, changes))(received, res), reason);
  });

  it('a full echo with numbers for numeric fields and extra fields is accepted', async () => {
    env.hook.respond((received, res) => json({ ...echoed(received, {}), '38': 123456, '48': 'x'.repeat(60_000), '62': { nested: true } })(received, res));
    const response = await simulate(env.sb, forward());
    expect(response.body.data).toMatchObject({ responseCode: '00', transactionStatus: 'pending' });
    expect(response.body.data.response['38']).toBe('123456');
    expect(response.body.data.response['62']).toBeUndefined();
  });
});

describe('what the webhook sends', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['text/html', 'text/html; charset=utf-8'],
    ['a missing content type', undefined],
  ])('a JSON reply as %s is a 96', async (_label, type) => {
    await expectFailed((received, res) => {
      res.writeHead(200, type ? { 'content-type': type } : {}).end(JSON.stringify(echoed(received, {})));
    }, /content type/);
  });

  it('application/problem+json and a charset are JSON content types', async () => {
    env.hook.respond((received, res) => json(echoed(received, {}), 'application/vnd.bank+json; charset=utf-8')(received, res));
    expect((await simulate(env.sb, forward())).body.data.responseCode).toBe('00');
  });

  it.each([
    ['broken JSON', '{"0":"0110","39":"00"'],
    ['random bytes', Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22]).toString('latin1')],
    ['an empty body', ''],
  ])('%s as application/json is a 96', async (_label, text) => {
    await expectFailed(json(text), /not JSON/);
  });

  it('a reply streamed far past the bound: the sandbox stops reading, answers 96, and its memory stays flat', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    const total = 400 * 1024 * 1024;
    const before = process.memoryUsage().rss;
    const { response } = await expectFailed((_received, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"39":"00","48":"');
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end('"}');
      };
      res.on('error', () => undefined);
      pump();
    }, new RegExp(`over the ${MAX_REPLY_BYTES}-byte limit`));
    expect(response.body.data.response).toMatchObject({ '39': '96' });
    // The webhook could push only what the socket buffers held before the sandbox hung up.
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
    // The sandbox is fine afterwards.
    env.hook.respond(echo('00'));
    expect((await simulate(env.sb, forward())).body.data.responseCode).toBe('00');
  });

  it('a reply that declares a Content-Length over the bound is refused without reading it', async () => {
    await expectFailed((_received, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(400 * 1024 * 1024) });
      res.write('{"39":"00"');
      res.on('error', () => undefined);
    }, /is 419430400 bytes, over the 65536-byte limit/);
  });

  it('a slow drip that never finishes is cut at the deadline (96, timeout)', async () => {
    const timers = new Set<NodeJS.Timeout>();
    try {
      await expectFailed((received, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const text = JSON.stringify(echoed(received, {}));
        let i = 0;
        const drip = () => {
          if (res.destroyed) return;
          res.write(text[i % text.length]!);
          i += 1;
          const timer = setTimeout(drip, 250);
          timers.add(timer);
        };
        res.on('error', () => undefined);
        drip();
      }, /timeout/);
    } finally {
      for (const timer of timers) clearTimeout(timer);
    }
  }, 15_000);
});
