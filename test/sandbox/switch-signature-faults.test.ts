// The `signature` webhook fault: the sandbox sends, on request, what a handler must refuse (another
// secret, a stale timestamp either way, no signature, a body changed after signing), under both
// signature schemes; each verified here with the protocol's own verifier and, for Standard
// Webhooks, the `standardwebhooks` library. Recorded on the transaction like the other faults.
import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseWebhookFaults, WebhookFaultSpecError } from '../../src/sandbox/switch/webhook-faults.js';
import { verifyRequest, type SignatureScheme } from '../../src/webhook-protocol/signature.js';
import { SIGNATURE_FAULTS, signMessage } from '../../src/webhook-protocol/signature-faults.js';
import { call, type DataEnvelope, type WebhookFaultState } from './helpers.js';
import { auth, cardOf, echo, simulate, updateProgram, useForwardSandbox, type Received } from './switch-helpers.js';
import type { Transaction, SimulateEnvelope } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';

const SECRET = 'whsec_c2lnbmF0dXJlLWZhdWx0cy10ZXN0LXNlY3JldC0zMmI=';
const env = useForwardSandbox({ secret: SECRET, header: 'x-webhook-secret' }, { adviceRetryFirstMs: 3_600_000 });
let cardId = '';
beforeEach(async () => {
  await setFaults('');
  cardId = (await cardOf(env.sb, env.programId)).id;
});

async function setFaults(spec: string) {
  const response = await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: { spec } });
  expect(response.status, response.text).toBe(200);
}

const flat = (headers: Received['headers']) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v[0]! : v ?? '']));

describe('signMessage during a rotation (two secrets)', () => {
  const secrets = [SECRET, 'whsec_b2xkLXNlY3JldC1vZi10aGUtcm90YXRpb24tMzJi'];
  const message = { '0': '0100', '4': '000000001000', '11': '000001' };
  for (const scheme of ['cardctl', 'standard-webhooks'] as SignatureScheme[]) {
    it(`${scheme}: unfaulted verifies with either secret; wrong-secret and tampered with neither`, () => {
      const ok = signMessage(scheme, secrets, message, undefined);
      for (const secret of secrets) expect(verifyRequest(scheme, ok.headers, secret, ok.body)).toMatchObject({ ok: true });
      for (const fault of ['wrong-secret', 'tampered'] as const) {
        const bad = signMessage(scheme, secrets, message, fault);
        for (const secret of secrets) expect(verifyRequest(scheme, bad.headers, secret, bad.body)).toMatchObject({ ok: false });
      }
    });
  }
});

describe('the signature fault key', () => {
  it('parses each named fault, keeps it in the text form, and refuses anything else naming the choices', () => {
    for (const fault of SIGNATURE_FAULTS) expect(parseWebhookFaults(`signature=${fault}`).signature).toBe(fault);
    expect(() => parseWebhookFaults('signature=0.5')).toThrow(WebhookFaultSpecError);
    expect(() => parseWebhookFaults('signature=bogus')).toThrow(/wrong-secret, stale-past, stale-future, missing, tampered/);
  });

  it('GET /sandbox/webhook-faults shows it', async () => {
    await setFaults('signature=stale-future');
    expect((await call<WebhookFaultState>(env.sb, 'GET', '/sandbox/webhook-faults', { token: env.sb.token })).body.spec).toContain('signature=stale-future');
  });
});

for (const scheme of ['cardctl', 'standard-webhooks'] as SignatureScheme[]) {
  describe(`under the ${scheme} scheme`, () => {
    beforeEach(async () => { await updateProgram(env.sb, env.programId, { webHookConfig: { type: scheme === 'cardctl' ? 'http' : scheme } }); });

    it('an unfaulted message verifies (and with the standardwebhooks library under its scheme)', async () => {
      await simulate(env.sb, auth(cardId, { responseMode: 'forward' }));
      const [received] = env.hook.received;
      expect(verifyRequest(scheme, received!.headers, SECRET, received!.body)).toMatchObject({ ok: true });
      if (scheme === 'standard-webhooks') expect(() => new Webhook(SECRET).verify(received!.body, flat(received!.headers))).not.toThrow();
    });

    const expected: Record<(typeof SIGNATURE_FAULTS)[number], RegExp> = {
      'wrong-secret': /does not match/,
      'stale-past': /tolerance/,
      'stale-future': /tolerance/,
      missing: /no (X-Webhook-Signature|webhook-id)/,
      tampered: /does not match/,
    };
    for (const fault of SIGNATURE_FAULTS) {
      it(`signature=${fault}: the webhook gets a message its verifier refuses; recorded on the transaction`, async () => {
        await setFaults(`signature=${fault}`);
        const response = await simulate(env.sb, auth(cardId, { responseMode: 'forward', amount: 12.34 }));
        const received = env.hook.received.at(-1)!;
        const verdict = verifyRequest(scheme, received.headers, SECRET, received.body);
        expect(verdict).toMatchObject({ ok: false, reason: expect.stringMatching(expected[fault]) });
        if (scheme === 'standard-webhooks') expect(() => new Webhook(SECRET).verify(received.body, flat(received.headers))).toThrow();
        if (fault === 'missing') expect(received.headers['x-webhook-secret']).toBeUndefined();
        if (fault === 'wrong-secret') expect(received.headers['x-webhook-secret']).not.toBe(SECRET);
        if (fault === 'tampered') expect(received.message['4']).toBe('000000001235');
        const stored = await call<DataEnvelope<Transaction>>(env.sb, 'GET', `/institutions/transactions/${response.body.data.transactionId}`, { token: env.sb.token });
        expect(stored.body.data.webhookFaults).toEqual([`signature ${fault}`]);
      });
    }

    it('a handler that approves a tampered body is seen approving it (the reply is checked against what was sent)', async () => {
      env.hook.respond(echo('00'));
      await setFaults('signature=tampered');
      const response = await simulate(env.sb, auth(cardId, { responseMode: 'forward', amount: 12.34 }));
      expect(response.body.data).toMatchObject({ responseCode: '00' });
      expect(response.body.data.standIn).toBeUndefined();
    });
  });
}

describe('a repeat records the MTI of the webhook\'s answer', () => {
  it('0101 answered 0110 (or 0111) is recorded as such', async () => {
    const original = (await simulate(env.sb, auth(cardId, { responseMode: 'forward' }))).body.data;
    const answerWith = (mti: string) => env.hook.respond((received, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...received.message, '0': mti, '39': '00' }));
    });
    answerWith('0110');
    await call<SimulateEnvelope>(env.sb, 'POST', `/sandbox/transactions/${original.transactionId}/repeat`, { token: env.sb.token, body: { responseMode: 'forward' } });
    answerWith('0111');
    await call<SimulateEnvelope>(env.sb, 'POST', `/sandbox/transactions/${original.transactionId}/repeat`, { token: env.sb.token, body: { responseMode: 'forward' } });
    const stored = await call<DataEnvelope<Transaction>>(env.sb, 'GET', `/institutions/transactions/${original.transactionId}`, { token: env.sb.token });
    expect(present(stored.body.data.repeats, 'the repeats').map((r) => r.replyMti)).toEqual(['0110', '0111']);
  });
});
