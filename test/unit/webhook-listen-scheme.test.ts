// `webhook listen --scheme`: the listener verifies the scheme it is told, refuses the other and
// a stale, tampered or missing signature (401), and accepts either secret of a rotation.
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startListener, type Exchange, type RunningListener } from '../../src/listener/server.js';
import { signedHeaders, type SignatureScheme } from '../../src/webhook-protocol/signature.js';

const MESSAGE = { '0': '0100', '3': '000000', '4': '000000150000', '11': '000001', '37': '632614000001', '49': '566' };
const BODY = JSON.stringify(MESSAGE);
const SECRET = 'whsec_bGlzdGVuLXNjaGVtZS10ZXN0LXNlY3JldC0wMTIzNDU=';
const OTHER = 'whsec_b3RoZXItc2NoZW1lLXRlc3Qtc2VjcmV0LTk4NzY1NDM=';

let listener: RunningListener | undefined;
const exchanges: Exchange[] = [];
afterEach(async () => {
  await listener?.close();
  listener = undefined;
  exchanges.length = 0;
});

async function post(headers: Record<string, string>, body = BODY) {
  const res = await request(listener!.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  await res.body.text();
  return res.statusCode;
}

const now = () => Math.floor(Date.now() / 1000);

describe.each(['cardctl', 'standard-webhooks'] as const)('webhook listen --scheme %s', (scheme: SignatureScheme) => {
  const other: SignatureScheme = scheme === 'cardctl' ? 'standard-webhooks' : 'cardctl';

  it('answers a good signature and refuses a wrong secret, the other scheme, a stale one, a changed body, none', async () => {
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', secret: SECRET, scheme, onExchange: (x) => exchanges.push(x) });
    expect(await post(signedHeaders(scheme, SECRET, BODY))).toBe(200);
    expect(await post(signedHeaders(scheme, OTHER, BODY))).toBe(401);
    expect(await post(signedHeaders(other, SECRET, BODY))).toBe(401);
    expect(await post(signedHeaders(scheme, SECRET, BODY, { nowSeconds: now() - 301 }))).toBe(401);
    expect(await post(signedHeaders(scheme, SECRET, BODY, { nowSeconds: now() + 301 }))).toBe(401);
    expect(await post(signedHeaders(scheme, SECRET, BODY), BODY.replace('150000', '990000'))).toBe(401);
    expect(await post({})).toBe(401);
    expect(exchanges.map((x) => x.signature)).toEqual(['valid', 'invalid', 'invalid', 'invalid', 'invalid', 'invalid', 'invalid']);
  });

  it('accepts a message signed with both secrets of a rotation, whichever it knows', async () => {
    for (const known of [SECRET, OTHER]) {
      listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', secret: known, scheme, onExchange: (x) => exchanges.push(x) });
      expect(await post(signedHeaders(scheme, [OTHER, SECRET], BODY))).toBe(200);
      await listener.close();
      listener = undefined;
    }
  });
});

describe('the --scheme flags', () => {
  it('webhook listen: cardctl by default, standard-webhooks, nothing else', async () => {
    const { optionsOf, parseCommand } = await import('../helpers/parse.js');
    const listen = (await import('../../src/commands/webhook/listen.js')).default;
    expect((await optionsOf(listen, [])).scheme).toBe('cardctl');
    expect((await optionsOf(listen, ['--scheme', 'standard-webhooks'])).scheme).toBe('standard-webhooks');
    await expect(parseCommand(listen, ['--scheme', 'svix'])).rejects.toThrow(/svix/);
  });

  it('sandbox serve --webhook-scheme: the two schemes, nothing else', async () => {
    const { optionsOf, parseCommand } = await import('../helpers/parse.js');
    const serve = (await import('../../src/commands/sandbox/serve.js')).default;
    expect((await optionsOf(serve, ['--webhook-scheme', 'standard-webhooks'])).webhookScheme).toBe('standard-webhooks');
    expect((await optionsOf(serve, [])).webhookScheme).toBeUndefined();
    await expect(parseCommand(serve, ['--webhook-scheme', 'http'])).rejects.toThrow(/http/);
  });
});
