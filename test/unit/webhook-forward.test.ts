// `webhook listen --forward-to`: the listener relays each message to the institution's handler
// and logs what the handler did, never answering an approval the handler did not give.
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startListener, type Exchange, type Received, type RunningListener } from '../../src/listener/server.js';
import { humanPrinter } from '../../src/commands/webhook/listen.js';
import { json, startTestServer, type Handler, type RecordedRequest, type TestServer } from '../helpers/http-server.js';
import { testContext } from '../helpers/context.js';
import { jsonOf } from '../helpers/json.js';
import { MESSAGE } from '../helpers/webhook-message.js';

/** A listener relaying to a test handler (each test starts its own), both closed after each test. */
class Relay {
  listener?: RunningListener;
  handler?: TestServer;
  readonly exchanges: Exchange[] = [];
}

function useRelay(): Relay {
  const relay = new Relay();
  afterEach(async () => {
    await relay.listener?.close();
    await relay.handler?.close();
    relay.listener = undefined;
    relay.handler = undefined;
    relay.exchanges.length = 0;
  });
  return relay;
}

describe('listener --forward-to: each outcome of the handler, logged as what it was and never answered as an approval', () => {
  const relay = useRelay();

  const answer = (message: Record<string, string>, changes: Record<string, string> = {}) => ({ ...message, '0': '0110', '39': '00', ...changes });

  async function through(handle: Handler | undefined, options: { timeoutMs?: number; target?: string } = {}) {
    if (handle) {
      relay.handler = await startTestServer(handle);
    }
    const forwardTo = options.target ?? `${relay.handler!.url}/auth`;
    relay.listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', forwardTo, forwardTimeoutMs: options.timeoutMs, onExchange: (x) => relay.exchanges.push(x) });
    const res = await request(relay.listener.url, { method: 'POST', body: JSON.stringify(MESSAGE), headers: { 'content-type': 'application/json' } });
    const text = await res.body.text();
    const ctx = testContext();
    (await humanPrinter(ctx))(relay.exchanges[0]!);
    return { status: res.statusCode, text, exchange: relay.exchanges[0]!, printed: ctx.io.stdoutText() };
  }

  /** A failure: the switch gets `status` and no response code; the log says `reason`, not "Approved". */
  function expectFailure(result: Awaited<ReturnType<typeof through>>, status: number, outcome: string, reason: RegExp) {
    expect(result.status).toBe(status);
    expect(JSON.parse(result.text)).toEqual({ error: expect.stringMatching(reason) });
    expect(result.exchange).toMatchObject({ status, forwardOutcome: outcome, decidedBy: 'forward', error: expect.stringMatching(reason) });
    expect(result.exchange.responseCode).toBeUndefined();
    expect(result.printed).toMatch(reason);
    expect(result.printed).toContain(`answered the switch HTTP ${status}`);
    expect(result.printed).not.toMatch(/Approved/);
  }

  it('a valid answer is relayed and logged with its code', async () => {
    const result = await through((req, res) => json(res, 200, answer(JSON.parse(req.body), { '39': '51' })));
    expect(result.status).toBe(200);
    expect(JSON.parse(result.text)['39']).toBe('51');
    expect(result.exchange).toMatchObject({ status: 200, forwardStatus: 200, forwardOutcome: 'answered', responseCode: '51', responseMessage: 'Insufficient funds' });
    expect(result.exchange.error).toBeUndefined();
    expect(result.printed).toMatch(/0110 51 Insufficient funds/);
  });

  it('a handler that does not answer in time: 504, logged as a timeout (not "could not reach …: 23")', async () => {
    const result = await through(() => new Promise(() => undefined), { timeoutMs: 300 });
    expectFailure(result, 504, 'timeout', /did not answer within 0\.3 s \(timeout\)/);
    expect(result.printed).not.toMatch(/could not reach|: 23/);
  });

  it('by default the handler gets half a second less than the sandbox waits', async () => {
    const { WEBHOOK_TIMEOUT_MS } = await import('../../src/webhook-protocol/reply.js');
    const result = await through(() => new Promise(() => undefined));
    expect(result.exchange.error).toBe(`your handler did not answer within ${(WEBHOOK_TIMEOUT_MS - 500) / 1000} s (timeout)`);
  }, 10_000);

  it('a handler that refuses the connection: 502, logged as unreachable', async () => {
    const closed = await startTestServer();
    const target = `${closed.url}/auth`;
    await closed.close();
    expectFailure(await through(undefined, { target }), 502, 'unreachable', /could not reach your handler at .*ECONNREFUSED/);
  });

  it('HTTP 500 (even with "39":"00" in its body): 502, logged as the error status, not as 00 Approved', async () => {
    const result = await through((req, res) => json(res, 500, answer(JSON.parse(req.body))));
    expectFailure(result, 502, 'http-error', /your handler answered HTTP 500/);
    expect(result.exchange.forwardStatus).toBe(500);
  });

  it.each([
    ['a body that is not JSON', (_req: RecordedRequest, res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('<html>ok</html>'), /not JSON/],
    ['JSON as text/plain', (req: RecordedRequest, res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/plain' }).end(JSON.stringify(answer(JSON.parse(req.body)))), /your handler's reply: its content type is "text\/plain", expected application\/json/],
    ['no field 39', (req: RecordedRequest, res: ServerResponse) => json(res, 200, { ...JSON.parse(req.body), '0': '0110' }), /no valid field 39/],
    ['another STAN', (req: RecordedRequest, res: ServerResponse) => json(res, 200, answer(JSON.parse(req.body), { '11': '999999' })), /field 11 .* differs/],
    ['the request MTI', (req: RecordedRequest, res: ServerResponse) => json(res, 200, answer(JSON.parse(req.body), { '0': '0100' })), /MTI is "0100", expected 0110/],
    ['a reply over 64 KiB', (req: RecordedRequest, res: ServerResponse) => json(res, 200, answer(JSON.parse(req.body), { '48': 'x'.repeat(70_000) })), /your handler's reply is over the 65536-byte limit/],
  ])('%s: 502, logged as an invalid reply', async (_label, handle, reason) => {
    const result = await through(handle as Handler);
    expectFailure(result, 502, 'invalid-reply', reason);
    expect(result.exchange.forwardStatus).toBe(200);
  });
});

describe('listener --forward-to: repeats and duplicates are counted as when it answers itself', () => {
  const relay = useRelay();

  async function relayTo(code: (message: Record<string, string>, call: number) => string, approvalCode: (call: number) => string = () => 'A12345') {
    let calls = 0;
    relay.handler = await startTestServer((req, res) => {
      const message = JSON.parse(req.body);
      const call = calls++;
      json(res, 200, { ...message, '0': `${message['0'].slice(0, 2)}${Number(message['0'][2]) + 1}0`, '38': approvalCode(call), '39': code(message, call) });
    });
    relay.listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', forwardTo: `${relay.handler.url}/auth`, onExchange: (x) => relay.exchanges.push(x) });
  }
  const send = (message: Record<string, string>) => request(relay.listener!.url, { method: 'POST', body: JSON.stringify(message), headers: { 'content-type': 'application/json' } }).then((res) => res.body.json());
  const received = async () => jsonOf<Received>(await request(`${relay.listener!.url}/exchanges?stan=${MESSAGE['11']}&rrn=${MESSAGE['37']}`));

  it('a duplicate delivery and a repeat (0101) are counted, and whether the handler answered them alike', async () => {
    await relayTo(() => '00');
    await Promise.all([send(MESSAGE), send(MESSAGE)]);
    await send({ ...MESSAGE, '0': '0101' });
    expect(await received()).toMatchObject({ deliveries: 3, repeats: 2 });
    expect((await received()).messages.map((x) => x.repeat)).toEqual([undefined, 'consistent', 'consistent']);
    expect(relay.exchanges.filter((x) => x.repeat)).toEqual([expect.objectContaining({ decidedBy: 'forward', repeat: 'consistent' }), expect.objectContaining({ decidedBy: 'forward', repeat: 'consistent' })]);
  });

  it('a handler that answers a repeat otherwise is shown so', async () => {
    await relayTo((_message, call) => (call === 0 ? '00' : '05'));
    await send(MESSAGE);
    await send({ ...MESSAGE, '0': '0101' });
    expect((await received()).messages.map((x) => x.repeat)).toEqual([undefined, 'inconsistent']);
    const ctx = testContext();
    (await humanPrinter(ctx))(relay.exchanges[1]!);
    expect(ctx.io.stdoutText()).toMatch(/a repeat, answered unlike the first/);
  });

  it('a repeat approved again under another approval code is not the same answer', async () => {
    await relayTo(() => '00', (call) => (call === 0 ? 'A12345' : 'B67890'));
    await send(MESSAGE);
    await send({ ...MESSAGE, '0': '0101' });
    expect((await received()).messages.map((x) => x.repeat)).toEqual([undefined, 'inconsistent']);
  });
});
