// `webhook listen`: rules, signature checks, answers, delays and --forward-to, against the
// listener in-process with plain undici requests (--forward-to: webhook-forward.test.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startListener, type Exchange, type Received, type RunningListener } from '../../src/listener/server.js';
import { decide, parseRules } from '../../src/listener/rules.js';
import { UsageError } from '../../src/core/errors.js';
import { signatureHeader, verifySignature } from '../../src/webhook-protocol/signature.js';
import { testContext } from '../helpers/context.js';
import { jsonOf } from '../helpers/json.js';
import { MESSAGE } from '../helpers/webhook-message.js';

describe('signatures', () => {
  it('verifies t=…,v1=… and refuses wrong secrets, changed bodies, stale times and junk', () => {
    const body = JSON.stringify(MESSAGE);
    const now = 1_800_000_000;
    const header = signatureHeader('s3cret', body, now);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(header, 's3cret', body, { nowSeconds: now + 10 })).toEqual({ ok: true, timestamp: now });
    expect(verifySignature(header, 'other', body, { nowSeconds: now })).toMatchObject({ ok: false, reason: expect.stringMatching(/does not match/) });
    expect(verifySignature(header, 's3cret', `${body} `, { nowSeconds: now })).toMatchObject({ ok: false });
    expect(verifySignature(header, 's3cret', body, { nowSeconds: now + 301 })).toMatchObject({ ok: false, reason: expect.stringMatching(/tolerance/) });
    expect(verifySignature('garbage', 's3cret', body)).toMatchObject({ ok: false, reason: expect.stringMatching(/malformed/) });
    expect(verifySignature(undefined, 's3cret', body)).toMatchObject({ ok: false, reason: expect.stringMatching(/no X-Webhook-Signature/) });
  });
});

describe('rules', () => {
  it('parses YAML and decides by amount, PAN suffix, processing code, channel and MTI; first match wins', async () => {
    const rules = await parseRules(`
default: "05"
rules:
  - name: big
    match: { amount: { min: 1000.01 } }
    respond: "51"
  - match: { panSuffix: "0008", channel: atm, processingCode: "01" }
    respond: 57
  - match: { amount: 13.13, mti: "0200" }
    respond: "00"
    delay: 6000
`, 'rules.yaml');
    expect(decide(rules, MESSAGE, '00')).toEqual({ code: '51', delay: 0, reason: 'rule 1 (big)' });
    expect(decide(rules, { ...MESSAGE, '4': '000000100000' }, '00')).toEqual({ code: '05', delay: 0, reason: 'default' });
    expect(decide(rules, { ...MESSAGE, '4': '000000000100', '3': '010000', '25': '02' }, '00')).toMatchObject({ code: '57', reason: 'rule 2' });
    expect(decide(rules, { ...MESSAGE, '4': '000000000100', '3': '010000', '25': '00' }, '00').code).toBe('05');
    expect(decide(rules, { ...MESSAGE, '0': '0200', '4': '000000001313' }, '00')).toMatchObject({ code: '00', delay: 6000 });
    // Exponent of field 49: 13.13 BHD is 13130 minor units.
    expect(decide(rules, { ...MESSAGE, '0': '0200', '4': '000000013130', '49': '048' }, '00')).toMatchObject({ code: '00', delay: 6000 });
    expect(decide(undefined, MESSAGE, '91')).toEqual({ code: '91', delay: 0, reason: '--respond' });
  });

  it('accepts JSON and a bare list', async () => {
    const rules = await parseRules('[{"match": {"panSuffix": "0008"}, "respond": "05"}]', 'rules.json');
    expect(decide(rules, MESSAGE, '00').code).toBe('05');
  });

  it.each([
    ['rules: [{ match: { colour: red }, respond: "00" }]', /rule 1: unknown match key "colour"/],
    ['rules: [{ match: {}, respond: "banana" }]', /rule 1: respond must be/],
    ['rules: [{ match: {}, respond: "00", delay: -1 }]', /delay must be/],
    ['rules: [{ match: { channel: phone }, respond: "00" }]', /channel is one of/],
    ['rules: [{ match: { amount: "lots" }, respond: "00" }]', /amount is a number/],
    ['rules: {}', /"rules" must be a list/],
    ['rules: [{ match: {}, respond: "00", approvedAmount: 5 }]', /approvedAmount goes with respond "10"/],
    ['rules: [{ match: {}, respond: "10", approvedAmount: 0 }]', /approvedAmount must be a number above 0/],
    ['{ rules: [], failEvery: 0 }', /failEvery: must be a whole number/],
    ['{ rules: [], repeats: sometimes }', /repeats: must be one of consistent, inconsistent/],
    ['rules: [\n  - match: {\n', /line \d/],
  ])('refuses %s', async (text, message) => {
    await expect(parseRules(text, 'r.yaml')).rejects.toBeInstanceOf(UsageError);
    await expect(parseRules(text, 'r.yaml')).rejects.toThrow(message);
  });
});

describe('listener', () => {
  let listener: RunningListener | undefined;
  const exchanges: Exchange[] = [];
  afterEach(async () => {
    await listener?.close();
    listener = undefined;
    exchanges.length = 0;
  });

  async function post(url: string, message: unknown, headers: Record<string, string> = {}) {
    const body = JSON.stringify(message);
    const res = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    return { status: res.statusCode, body: await res.body.json() as Record<string, string> };
  }

  it('answers with MTI + 10, the request echoed without card secrets, 38 and 39', async () => {
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', onExchange: (x) => exchanges.push(x) });
    const { status, body } = await post(listener.url, MESSAGE);
    expect(status).toBe(200);
    expect(body).toMatchObject({ '0': '0110', '2': MESSAGE['2'], '4': MESSAGE['4'], '11': '000001', '37': '632614000001', '39': '00' });
    expect(body['38']).toMatch(/^\d{6}$/);
    expect(body['35']).toBeUndefined();
    expect(body['14']).toBeUndefined();
    expect(exchanges[0]).toMatchObject({
      type: 'exchange', status: 200, signature: 'unchecked', mti: '0100', pan: '506099*********0008', amount: '₦1,500.00', channel: 'pos',
      responseCode: '00', decidedBy: '--respond',
    });
    expect(JSON.stringify(exchanges[0])).not.toContain(MESSAGE['2']);
  });

  it('with a secret: a good signature is answered, a bad one gets 401', async () => {
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '51', secret: 'whsec', onExchange: (x) => exchanges.push(x) });
    const body = JSON.stringify(MESSAGE);
    const good = await post(listener.url, MESSAGE, { 'x-webhook-signature': signatureHeader('whsec', body) });
    expect(good).toMatchObject({ status: 200, body: { '39': '51' } });
    const bad = await post(listener.url, MESSAGE, { 'x-webhook-signature': signatureHeader('wrong', body) });
    expect(bad.status).toBe(401);
    const none = await post(listener.url, MESSAGE);
    expect(none.status).toBe(401);
    expect(exchanges.map((x) => x.signature)).toEqual(['valid', 'invalid', 'invalid']);
    expect(exchanges[1]!.error).toMatch(/does not match/);
  });

  it('waits the delay of a rule before answering', async () => {
    const rules = await parseRules('rules: [{ match: { amount: 1500 }, respond: "00", delay: 300 }]', 'r.yaml');
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', rules, onExchange: (x) => exchanges.push(x) });
    const started = Date.now();
    await post(listener.url, MESSAGE);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(exchanges[0]).toMatchObject({ delayMs: 300, decidedBy: 'rule 1' });
  });

  it('--forward-to relays the message with its headers and answers with the handler reply', async () => {
    const seen: Array<{ headers: Record<string, unknown>; body: string }> = [];
    const handler = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...JSON.parse(body), '0': '0110', '39': '62' }));
      });
    });
    await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/auth`;
    try {
      listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', forwardTo: target, onExchange: (x) => exchanges.push(x) });
      const signature = signatureHeader('k', JSON.stringify(MESSAGE));
      const { status, body } = await post(listener.url, MESSAGE, { 'x-webhook-signature': signature });
      expect(status).toBe(200);
      expect(body['39']).toBe('62');
      expect(seen[0]!.headers['x-webhook-signature']).toBe(signature);
      expect(JSON.parse(seen[0]!.body)).toEqual(MESSAGE);
      expect(exchanges[0]).toMatchObject({ decidedBy: 'forward', forwardedTo: target, forwardStatus: 200, responseCode: '62' });
      await new Promise<void>((resolve) => handler.close(() => resolve()));
      const down = await post(listener.url, MESSAGE);
      expect(down.status).toBe(502);
      expect(exchanges[1]!.error).toMatch(/could not reach/);
    } finally {
      handler.close();
    }
  });

  it('partial approval: code 10 with the approved amount as field 4, from a rule or --approved-amount', async () => {
    const rules = await parseRules('{ rules: [{ match: { amount: { min: 1000 } }, respond: "10", approvedAmount: 600 }], failEvery: 3, repeats: inconsistent }', 'r.yaml');
    expect(rules).toMatchObject({ failEvery: 3, repeats: 'inconsistent' });
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', rules, onExchange: (x) => exchanges.push(x) });
    const { body } = await post(listener.url, MESSAGE);
    expect(body).toMatchObject({ '39': '10', '4': '000000060000', '11': '000001' });
    expect(exchanges[0]).toMatchObject({ responseCode: '10', approvedAmount: '₦600.00', decidedBy: 'rule 1' });
    await listener.close();

    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '10', defaults: { approvedAmount: 1234.5 }, onExchange: (x) => exchanges.push(x) });
    expect((await post(listener.url, MESSAGE)).body).toMatchObject({ '39': '10', '4': '000000123450' });
  });

  it('--delay holds the answers no rule decides', async () => {
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', defaults: { delay: 250 }, onExchange: (x) => exchanges.push(x) });
    const started = Date.now();
    await post(listener.url, MESSAGE);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(exchanges[0]).toMatchObject({ delayMs: 250, decidedBy: '--respond' });
  });

  it('--fail-every N answers every Nth message HTTP 500', async () => {
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', failEvery: 2, onExchange: (x) => exchanges.push(x) });
    const statuses: number[] = [];
    for (let stan = 1; stan <= 5; stan++) {
      const res = await request(listener.url, { method: 'POST', body: JSON.stringify({ ...MESSAGE, '11': String(stan).padStart(6, '0') }) });
      statuses.push(res.statusCode);
      await res.body.text();
    }
    expect(statuses).toEqual([200, 500, 200, 500, 200]);
    expect(exchanges[1]).toMatchObject({ status: 500, decidedBy: '--fail-every', error: 'failed on purpose: message 2, every 2th fails' });
  });

  it('a repeat (same STAN, RRN, message class) gets the first answer again by default, another one with repeats inconsistent', async () => {
    const rules = await parseRules('rules: [{ match: { mti: "0100" }, respond: "10", approvedAmount: 600 }]', 'r.yaml');
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', rules, onExchange: (x) => exchanges.push(x) });
    const first = (await post(listener.url, MESSAGE)).body;
    const repeat = (await post(listener.url, { ...MESSAGE, '0': '0101', '7': '1122100001' })).body;
    expect(repeat).toMatchObject({ '39': '10', '4': '000000060000', '38': first['38'], '7': '1122100001' });
    expect(exchanges[1]).toMatchObject({ decidedBy: 'repeat', repeat: 'consistent', responseCode: '10' });
    // Another STAN is not a repeat; a reversal of the same STAN and RRN is another message class.
    expect((await post(listener.url, { ...MESSAGE, '0': '0420' })).body['39']).toBe('00');
    await listener.close();

    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', repeats: 'inconsistent', onExchange: (x) => exchanges.push(x) });
    expect((await post(listener.url, MESSAGE)).body['39']).toBe('00');
    expect((await post(listener.url, MESSAGE)).body['39']).toBe('05');
    expect(exchanges.at(-1)).toMatchObject({ decidedBy: 'repeat', repeat: 'inconsistent', responseCode: '05' });
  });

  it('GET /exchanges?stan&rrn tells what was received: deliveries, repeats, signatures', async () => {
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', secret: 'whsec', onExchange: (x) => exchanges.push(x) });
    const signed = async (message: Record<string, string>) => {
      const body = JSON.stringify(message);
      return post(listener!.url, message, { 'x-webhook-signature': signatureHeader('whsec', body) });
    };
    await signed(MESSAGE);
    await signed({ ...MESSAGE, '0': '0101' });
    await signed({ ...MESSAGE, '11': '000002' });
    const asked = await request(`${listener.url}/exchanges?stan=000001&rrn=632614000001`);
    expect(await asked.body.json()).toEqual({
      stan: '000001', rrn: '632614000001', deliveries: 2, repeats: 1, signature: 'valid',
      messages: [
        { mti: '0100', status: 200, signature: 'valid', responseCode: '00', decidedBy: '--respond' },
        { mti: '0101', status: 200, signature: 'valid', responseCode: '00', decidedBy: 'repeat', repeat: 'consistent' },
      ],
    });
    await post(listener.url, MESSAGE, { 'x-webhook-signature': signatureHeader('wrong', JSON.stringify(MESSAGE)) });
    const after = await request(`${listener.url}/exchanges?stan=000001&rrn=632614000001`);
    expect(await after.body.json()).toMatchObject({ deliveries: 3, signature: 'invalid' });
  });

  it('answers a repeat the ISO way (0110 to a 0101, 0430 to a 0421, 0130 to a 0121) with its first answer', async () => {
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '51', onExchange: (x) => exchanges.push(x) });
    for (const [mti, repeat, answer] of [['0100', '0101', '0110'], ['0420', '0421', '0430'], ['0120', '0121', '0130']] as const) {
      const first = (await post(listener.url, { ...MESSAGE, '0': mti })).body;
      const again = (await post(listener.url, { ...MESSAGE, '0': repeat })).body;
      expect(first['0']).toBe(answer);
      expect(again).toMatchObject({ '0': answer, '39': first['39'] });
      expect(exchanges.at(-1)).toMatchObject({ mti: repeat, decidedBy: 'repeat', repeat: 'consistent' });
    }
    // A repeat whose first is not answered yet waits for that answer (a duplicate delivery).
    await listener.close();
    const rules = await parseRules('rules: [{ match: { mti: "0100" }, respond: "05", delay: 200 }]', 'r.yaml');
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', rules, onExchange: (x) => exchanges.push(x) });
    const both = await Promise.all([post(listener.url, MESSAGE), new Promise((resolve) => setTimeout(resolve, 50)).then(() => post(listener!.url, MESSAGE))]);
    expect(both.map((x) => x.body['39'])).toEqual(['05', '05']);
  });

  it('messages without a STAN or an RRN are never repeats of each other', async () => {
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', repeats: 'inconsistent', onExchange: (x) => exchanges.push(x) });
    const { '11': _stan, '37': _rrn, ...bare } = MESSAGE;
    for (const message of [bare, bare, { ...bare, '11': '000001' }, { ...bare, '11': '000001' }, { ...bare, '37': MESSAGE['37'] }, { ...bare, '37': MESSAGE['37'] }]) {
      expect((await post(listener.url, message)).body['39']).toBe('00');
    }
    expect(exchanges.map((x) => x.decidedBy)).toEqual(Array(6).fill('--respond'));
    expect(exchanges.every((x) => x.repeat === undefined)).toBe(true);
  });

  it('remembers at most its bound of exchanges, oldest first out, counting them and their size', async () => {
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', repeats: 'inconsistent', historyBound: { exchanges: 3, bytes: 1_000_000 }, onExchange: (x) => exchanges.push(x) });
    const stans = ['000001', '000002', '000003', '000004'];
    for (const stan of stans) await post(listener.url, { ...MESSAGE, '11': stan });
    const deliveries = async (stan: string, rrn = MESSAGE['37']) => (await jsonOf<Received>(await request(`${listener!.url}/exchanges?stan=${stan}&rrn=${rrn}`))).deliveries;
    expect(await Promise.all(stans.map((stan) => deliveries(stan)))).toEqual([0, 1, 1, 1]);
    // Forgotten, the first is no longer a repeat's first: the repeat is decided afresh (00, not the inconsistent 05).
    expect((await post(listener.url, { ...MESSAGE, '11': '000001', '0': '0101' })).body['39']).toBe('00');
    await listener.close();

    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', historyBound: { exchanges: 100, bytes: 50_000 }, onExchange: (x) => exchanges.push(x) });
    const rrns = ['A', 'B', 'C', 'D'].map((c) => c.repeat(12_000));
    for (const rrn of rrns) await post(listener.url, { ...MESSAGE, '37': rrn });
    expect(await Promise.all(rrns.map((rrn) => deliveries(MESSAGE['11'], rrn)))).toEqual([0, 0, 1, 1]);
  });

  it('the first answers kept for repeats count toward the bound too', async () => {
    const { ExchangeHistory } = await import('../../src/listener/history.js');
    const history = new ExchangeHistory({ exchanges: 100, bytes: 50_000 });
    const keep = (stan: string) => {
      const { entry } = history.arrive(stan);
      entry.answered({ '0': '0110', '4': '9'.repeat(30_000), '39': '10', '48': 'x'.repeat(100_000) });
    };
    keep('a');
    expect(history.arrive('a').first).toBeDefined();
    keep('b');
    expect(history.arrive('a').first).toBeUndefined();
    expect(history.arrive('b').first).toBeDefined();
  });

  it('a body over the bound is answered 413 with the limit, and the listener goes on', async () => {
    const { MAX_BODY_BYTES } = await import('../../src/listener/behaviours.js');
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', onExchange: (x) => exchanges.push(x) });
    const big = JSON.stringify({ ...MESSAGE, '48': 'x'.repeat(MAX_BODY_BYTES) });
    const res = await request(listener.url, { method: 'POST', body: big, headers: { 'content-type': 'application/json' } }).catch((error: Error) => error);
    if (!(res instanceof Error)) {
      expect(res.statusCode).toBe(413);
      expect(await res.body.json()).toEqual({ error: `the body is over the ${MAX_BODY_BYTES}-byte limit of a switch message` });
    }
    expect(exchanges[0]).toMatchObject({ status: 413, error: expect.stringMatching(/over the 1048576-byte limit/) });
    expect((await post(listener.url, MESSAGE)).status).toBe(200);
  });

  it('refuses bodies that are not messages', async () => {
    listener = await startListener({ port: 0, host: '127.0.0.1', respond: '00', onExchange: (x) => exchanges.push(x) });
    const res = await request(listener.url, { method: 'POST', body: 'nope' });
    expect(res.statusCode).toBe(400);
    await res.body.text();
  });
});

describe('webhook listen warnings', () => {
  it.each([
    ['0.0.0.0', /^.*listening on 0\.0\.0\.0 without a webhook secret.*anyone who reaches this address.*$/m],
    ['127.0.0.1', /^.*no webhook secret .*signatures are not checked$/m],
  ])('--host %s without a secret: one line on stderr', async (host, warning) => {
    const { runCommand } = await import('../helpers/parse.js');
    const { default: listen } = await import('../../src/commands/webhook/listen.js');
    const ctx = testContext();
    const stop = new AbortController();
    (ctx as { signal: AbortSignal }).signal = stop.signal;
    const running = runCommand(listen, ctx, ['--port', '0', '--host', host]);
    while (!ctx.io.stderrText().includes('Answering')) await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort();
    await running;
    expect(ctx.io.stderrText()).toMatch(warning);
    expect(ctx.io.stderrText().split('\n').filter((line) => line.includes('secret'))).toHaveLength(1);
  });
});

describe('webhook listen flags', () => {
  it.each([
    [['--approved-amount', '600'], /--approved-amount goes with --respond 10/],
    [['--respond', '10', '--approved-amount', 'lots'], /invalid --approved-amount "lots"/],
    [['--delay', '-5'], /invalid --delay/],
    [['--fail-every', '0'], /invalid --fail-every "0"/],
    [['--forward-to', 'http://127.0.0.1:9/x', '--fail-every', '2'], /--forward-to and --fail-every cannot be used together/],
    [['--repeats', 'sometimes'], /sometimes/],
  ])('%j is a usage error before anything listens', async (argv, message) => {
    const { runCommand } = await import('../helpers/parse.js');
    const { default: listen } = await import('../../src/commands/webhook/listen.js');
    await expect(runCommand(listen, testContext(), ['--port', '0', ...argv])).rejects.toThrow(message);
  });
});
