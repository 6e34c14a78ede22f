// The protocol document proved by a handler in another language: the Python standard-library
// handler written from docs/webhook-protocol.md alone, under both signature schemes, through
// the built CLI and a sandbox process: an authorization (approved, partly approved, declined),
// an increment, a repeat, an advice, each answered as the document says; signatures it refuses;
// and its deliberately broken variants doing what they are named for.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders, type SignatureScheme } from '../../src/webhook-protocol/signature.js';
import { cardctl, startSandboxProcess, startWebhookListener, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { pythonMissing, startPythonHandler, type HandlerVariant, type PythonHandler } from '../helpers/python-handler.js';
import { call, createCardOverHttp, type DataEnvelope } from '../sandbox/helpers.js';
import type { CardProgram, SimulateResult, Transaction, Lifecycle } from '../../src/api/schemas.js';

const SECRETS: Record<SignatureScheme, string> = {
  cardctl: 'python-handler-e2e-secret',
  'standard-webhooks': 'whsec_cHl0aG9uLWhhbmRsZXItZTJlLXNlY3JldC0wMTIz',
};

const AUTH = { '0': '0100', '2': '5060990000000008', '3': '000000', '4': '000000015000', '7': '1127173651', '11': '000001', '37': '633117000001', '49': '566' };

async function post(url: string, message: Record<string, string>, headers: Record<string, string>) {
  const body = JSON.stringify(message);
  const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

const signed = (scheme: SignatureScheme, secret: string, message: Record<string, string>, nowSeconds?: number) =>
  signedHeaders(scheme, secret, JSON.stringify(message), { nowSeconds, messageId: 'msg_e2e' });

describe.skipIf(pythonMissing)(`the Python handler of docs/webhook-protocol.md${pythonMissing ? ` (skipped: ${pythonMissing})` : ''}`, () => {
  describe.each(['cardctl', 'standard-webhooks'] as const)('scheme %s, through the CLI and a sandbox', (scheme) => {
    const secret = SECRETS[scheme];
    let config: { path: string; remove(): void };
    let handler: PythonHandler;
    let sandbox: RunningSandbox;
    let env: Record<string, string>;
    const json = async <T = unknown>(args: string[]): Promise<T> => {
      const result = await cardctl([...args, '-o', 'json'], { configDir: config.path, env, timeout: 60_000 });
      expect(result.exitCode, `${args.join(' ')}\n${result.stderr}`).toBe(0);
      return JSON.parse(result.stdout);
    };

    beforeAll(async () => {
      config = tempDir();
      handler = await startPythonHandler({ secret, scheme });
      sandbox = await startSandboxProcess(['--webhook-url', handler.url, '--webhook-scheme', scheme], { configDir: config.path });
      const put = await call<DataEnvelope<CardProgram>>(sandbox.info, 'PUT', `/sandbox/card-programs/${sandbox.info.cardProgramId}`, { token: sandbox.info.token, body: { webHookConfig: { secret } } });
      expect(put.status, put.text).toBe(200);
      expect(put.body.data.webHookConfig.type).toBe(scheme === 'cardctl' ? 'http' : 'standard-webhooks');
      env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
    }, 60_000);
    afterAll(async () => {
      await sandbox?.stop();
      await handler?.stop();
      config?.remove();
    });

    it('answers authorizations: approved, partly approved above its limit, declined far above it', async () => {
      const card = await createCardOverHttp(sandbox.info);
      const approved = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '150', '--forward']);
      expect(approved).toMatchObject({ responseCode: '00', response: { 0: '0110', 4: '000000015000' } });
      expect(approved.webhook).toMatchObject({ timedOut: false });
      expect(approved.webhook).not.toHaveProperty('failure');
      const partial = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '6000', '--forward']);
      expect(partial).toMatchObject({ responseCode: '10', response: { 0: '0110', 4: '000000500000' } });
      const declined = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '20000', '--forward']);
      expect(declined).toMatchObject({ responseCode: '51', response: { 0: '0110' } });
    });

    it('approves an increment on the new total, answers a repeat as the first time, acknowledges an advice', async () => {
      const card = await createCardOverHttp(sandbox.info);
      const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '100', '--forward']);
      const increment = await json<SimulateResult>(['simulate', 'increment', '--original-tx', auth.transactionId, '--amount', '25', '--forward']);
      expect(increment).toMatchObject({ responseCode: '00', response: { 0: '0110' } });
      expect((await json<Lifecycle>(['tx', 'show', auth.transactionId, '--lifecycle'])).amounts).toMatchObject({ authorized: 125, held: 125 });
      // Over the handler's decline limit (10,000.00) as a total, though small as an increase.
      const big = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '4000', '--forward']);
      expect((await json<SimulateResult>(['simulate', 'increment', '--original-tx', big.transactionId, '--amount', '7000', '--forward'])).responseCode).toBe('51');

      await json<SimulateResult>(['simulate', 'repeat', '--tx', auth.transactionId, '--forward']);
      const repeated = await json<Transaction>(['tx', 'show', auth.transactionId]);
      expect(repeated.repeats).toEqual([expect.objectContaining({ mti: '0101', responseCode: '00', agreed: true })]);

      const advice = await json<SimulateResult>(['simulate', 'advice', '--card', card, '--amount', '30', '--network-code', '00', '--forward']);
      expect(advice).toMatchObject({ mti: '0120', responseCode: '00' });
      expect((await json<Transaction>(['tx', 'show', advice.transactionId])).advice).toMatchObject({ acknowledged: true, attempts: 1 });
    });

    it('answers the rest of the lifecycle: a partial reversal, a completion, a financial and its refund', async () => {
      const card = await createCardOverHttp(sandbox.info);
      const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '200', '--forward']);
      expect(await json<SimulateResult>(['simulate', 'reversal', '--original-tx', auth.transactionId, '--amount', '50', '--forward'])).toMatchObject({ responseCode: '00', response: { 0: '0430' } });
      const complete = await json<SimulateResult>(['simulate', 'complete', '--original-tx', auth.transactionId, '--forward']);
      expect(complete).toMatchObject({ mti: '0220', response: { 0: '0230', 39: '00' } });
      expect((await json<Transaction>(['tx', 'show', complete.transactionId])).advice).toMatchObject({ acknowledged: true });
      expect((await json<Lifecycle>(['tx', 'show', auth.transactionId, '--lifecycle'])).amounts).toMatchObject({ captured: 150, held: 0 });
      const purchase = await json<SimulateResult>(['simulate', 'financial', '--card', card, '--amount', '90', '--forward']);
      expect(purchase).toMatchObject({ responseCode: '00', response: { 0: '0210' } });
      expect(await json<SimulateResult>(['simulate', 'refund', '--original-tx', purchase.transactionId, '--amount', '40', '--forward'])).toMatchObject({ responseCode: '00', response: { 0: '0210', 3: '200000' } });
    });

    it('refuses a wrong secret, a stale or future timestamp, a changed body and no signature (401)', async () => {
      expect((await post(handler.url, AUTH, signed(scheme, secret, AUTH))).status).toBe(200);
      const other = scheme === 'cardctl' ? 'another-secret' : 'whsec_YW5vdGhlci1zZWNyZXQtZm9yLXRoZS10ZXN0cy0w';
      expect((await post(handler.url, AUTH, signed(scheme, other, AUTH))).status).toBe(401);
      const now = Math.floor(Date.now() / 1000);
      expect((await post(handler.url, AUTH, signed(scheme, secret, AUTH, now - 301))).status).toBe(401);
      // Well past the 300 s tolerance: the handler reads its clock later than this test did (a loaded machine).
      expect((await post(handler.url, AUTH, signed(scheme, secret, AUTH, now + 330))).status).toBe(401);
      expect((await post(handler.url, { ...AUTH, '4': '000009900000' }, signed(scheme, secret, AUTH))).status).toBe(401);
      expect((await post(handler.url, AUTH, {})).status).toBe(401);
    });
  });

  describe('variants', () => {
    const scheme: SignatureScheme = 'cardctl';
    const secret = SECRETS.cardctl;
    const running: PythonHandler[] = [];
    const start = async (variant: HandlerVariant) => {
      const handler = await startPythonHandler({ secret, scheme, variant });
      running.push(handler);
      return handler;
    };
    afterAll(async () => { await Promise.all(running.map((h) => h.stop())); });

    it('no-signature-check answers an unsigned message', async () => {
      const handler = await start('no-signature-check');
      expect(await post(handler.url, AUTH, {})).toMatchObject({ status: 200, body: { '0': '0110', '39': '00' } });
    });

    it('refuse-advices answers advices 500, requests as usual', async () => {
      const handler = await start('refuse-advices');
      const advice = { ...AUTH, '0': '0120', '39': '00' };
      expect((await post(handler.url, advice, signed(scheme, secret, advice))).status).toBe(500);
      expect((await post(handler.url, AUTH, signed(scheme, secret, AUTH))).status).toBe(200);
    });

    it('repeat-0111 answers a repeat with 0111; the handler itself with 0110', async () => {
      const repeat = { ...AUTH, '0': '0101' };
      const broken = await start('repeat-0111');
      expect((await post(broken.url, repeat, signed(scheme, secret, repeat))).body).toMatchObject({ '0': '0111', '39': '00' });
      const sound = await start('none');
      expect((await post(sound.url, AUTH, signed(scheme, secret, AUTH))).body).toMatchObject({ '0': '0110', '38': expect.stringMatching(/^\d{6}$/) });
      const again = (await post(sound.url, repeat, signed(scheme, secret, repeat))).body;
      expect(again).toMatchObject({ '0': '0110', '39': '00' });
      // The same approval code as the first answer: a repeat is answered as the first time.
      const first = (await post(sound.url, AUTH, signed(scheme, secret, AUTH))).body;
      expect(again['38']).toBe(first['38']);
    });

    it('accepts either secret of a rotation', async () => {
      const handler = await startPythonHandler({ secret: 'the-new-secret', previousSecret: secret, scheme });
      running.push(handler);
      expect((await post(handler.url, AUTH, signedHeaders(scheme, ['the-new-secret', secret], JSON.stringify(AUTH)))).status).toBe(200);
      expect((await post(handler.url, AUTH, signed(scheme, secret, AUTH))).status).toBe(200);
    });
  });
});

describe('webhook listen --scheme standard-webhooks with a sandbox serve --webhook-scheme standard-webhooks', () => {
  it('verifies the sandbox signatures and answers', async () => {
    const config = tempDir();
    const secret = SECRETS['standard-webhooks'];
    const listener = await startWebhookListener({ configDir: config.path, secret, args: ['--scheme', 'standard-webhooks'] });
    const sandbox = await startSandboxProcess(['--webhook-url', listener.url, '--webhook-scheme', 'standard-webhooks'], { configDir: config.path });
    try {
      const put = await call<DataEnvelope<CardProgram>>(sandbox.info, 'PUT', `/sandbox/card-programs/${sandbox.info.cardProgramId}`, { token: sandbox.info.token, body: { webHookConfig: { secret } } });
      expect(put.status, put.text).toBe(200);
      const card = await createCardOverHttp(sandbox.info);
      const env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
      const result = await cardctl(['simulate', 'authorization', '--card', card, '--amount', '10', '--forward', '-o', 'json'], { configDir: config.path, env, timeout: 60_000 });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ responseCode: '00' });
      const exchanges = listener.lines.map((line) => JSON.parse(line)).filter((x) => x.type === 'exchange');
      expect(exchanges).toEqual([expect.objectContaining({ signature: 'valid', status: 200 })]);
      expect(JSON.parse(listener.lines[0]!)).toMatchObject({ scheme: 'standard-webhooks', signatures: 'verified' });
    } finally {
      await sandbox.stop();
      await listener.stop();
      config.remove();
    }
  }, 60_000);
});
