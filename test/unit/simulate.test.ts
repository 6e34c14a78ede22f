// Parsing of the simulate flags into the simulate body, and run() against a mocked API.
import { stripVTControlCharacters } from 'node:util';
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { buildSimulateBody, type SimulationInput } from '../../src/api/simulate-request.js';
import { parseTimeBound } from '../../src/core/datetime.js';
import { UsageError } from '../../src/core/errors.js';
import { main } from '../../src/app/cli.js';
import { testIO } from '../helpers/context.js';
import { isolatedDirs, scratchDirs } from '../helpers/dirs.js';

describe('buildSimulateBody', () => {
  it('turns flags into the body: amounts by currency exponent, card, flow, overrides', () => {
    expect(buildSimulateBody({ intent: 'authorization', amount: '1,500.00', card: 'c1' }).body).toEqual({
      intent: 'authorization', processingFlow: 'purchase', amount: 1500, cardId: 'c1',
    });
    const { body } = buildSimulateBody({
      intent: 'financial', amount: '1500', currency: 'JPY', pan: '5060 9900 0000 0000 08', expiry: '2912', account: '0123',
      flow: 'cash_withdrawal', channel: 'atm', method: 'magstripe', merchant: 'M', terminal: 'T', forward: true,
      date: '2026-11-22', set: ['43=ACME STORE', '4=000000150000', '043=X=Y'],
    });
    expect(body).toEqual({
      intent: 'financial', processingFlow: 'cash_withdrawal', amount: 1500, currency: '392', channel: 'atm', paymentMethod: 'magstripe',
      pan: '506099000000000008', expiry: '2912', accountNumber: '0123', merchantId: 'M', terminalId: 'T', responseMode: 'forward',
      transactionDate: '2026-11-22T00:00:00.000Z', overrides: { '43': 'X=Y', '4': '000000150000' },
    });
    expect(buildSimulateBody({ intent: 'authorization', amount: '1.234', currency: '048', card: 'c' }).body.amount).toBe(1.234);
    // A balance inquiry moves no money: without --amount its amount is 0.
    expect(buildSimulateBody({ intent: 'financial', flow: 'balance_inquiry', card: 'c' }).body).toMatchObject({ processingFlow: 'balance_inquiry', amount: 0 });
    expect(buildSimulateBody({ intent: 'reversal', amount: '10', originalStan: '12', originalRrn: '632614000001' }).body).toMatchObject({ originalStan: '000012', originalRrn: '632614000001' });
  });

  it.each<[SimulationInput, RegExp]>([
    [{ intent: 'authorization', card: 'c' }, /--amount is required/],
    [{ intent: 'authorization', amount: '1500.001', card: 'c' }, /at most 2/],
    [{ intent: 'authorization', amount: '10.5', currency: '392', card: 'c' }, /no minor units/],
    [{ intent: 'authorization', amount: '1,50', card: 'c' }, /not an amount/],
    [{ intent: 'authorization', amount: '10', currency: 'XYZ1', card: 'c' }, /--currency/],
    [{ intent: 'authorization', amount: '10' }, /a card is required/],
    [{ intent: 'authorization', amount: '10', pan: '4111111111111111' }, /--expiry and --account are required/],
    [{ intent: 'authorization', amount: '10', card: 'c', pan: '4111111111111111' }, /not both/],
    [{ intent: 'authorization', amount: '10', pan: '41', expiry: '2912', account: '1' }, /12 to 19 digits/],
    [{ intent: 'authorization', amount: '10', pan: '4111111111111111', expiry: '2913', account: '1' }, /YYMM/],
    [{ intent: 'authorization', amount: '10', card: 'c', originalTx: 't' }, /only for reversals/],
    [{ intent: 'reversal', amount: '10' }, /needs the original/],
    [{ intent: 'reversal', amount: '10', originalStan: '1' }, /go together/],
    [{ intent: 'reversal', amount: '10', originalTx: 't', card: 'c' }, /not used by a reversal/],
    [{ intent: 'authorization', amount: '10', card: 'c', set: ['x=1'] }, /field number/],
    [{ intent: 'authorization', amount: '10', card: 'c', set: ['4=150'] }, /12 digits/],
    [{ intent: 'authorization', amount: '10', card: 'c', set: ['43'] }, /FIELD=VALUE/],
    [{ intent: 'authorization', amount: '10', card: 'c', flow: 'steal' }, /--flow/],
    [{ intent: 'authorization', amount: '10', card: 'c', date: 'yesterday' }, /--date/],
    [{ intent: 'authorization', amount: '10', card: 'c', currency: '000' }, /--currency: "000" is not an ISO 4217 currency code/],
    [{ intent: 'authorization', amount: '10', card: 'c', currency: '959' }, /--currency: "959" is XAU, an ISO 4217 code that is not a currency/],
    [{ intent: 'authorization', amount: '10', card: 'c', currency: 'XXX' }, /not a currency cards transact in/],
  ])('rejects %j', (input, message) => {
    expect(() => buildSimulateBody(input)).toThrow(UsageError);
    expect(() => buildSimulateBody(input)).toThrow(message);
  });
});

describe('--since / --until', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  it('takes durations and ISO times', () => {
    expect(parseTimeBound('--since', '24h', now).toISOString()).toBe('2026-11-21T12:00:00.000Z');
    expect(parseTimeBound('--since', '7d', now).toISOString()).toBe('2026-11-15T12:00:00.000Z');
    expect(parseTimeBound('--since', '30m', now).toISOString()).toBe('2026-11-22T11:30:00.000Z');
    expect(parseTimeBound('--since', '2026-11-01', now).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseTimeBound('--until', '2026-11-01T10:00:00+01:00', now).toISOString()).toBe('2026-11-01T09:00:00.000Z');
    expect(() => parseTimeBound('--since', 'last week', now)).toThrow(/--since/);
  });
});

const RESULT = {
  transactionId: 'tx1', mti: '0100', stan: '000001', rrn: '632614000001', responseCode: '51', responseMessage: 'Insufficient funds',
  transactionStatus: 'failed', request: { '0': '0100', '2': '506099******0008', '4': '000000150000', '49': '566' }, response: { '0': '0110', '39': '51' }, duration: 3,
};

function mockApi(reply: { status: number; body: unknown }, seen: Array<{ path: string; body: unknown }> = []) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent.get('http://127.0.0.1:4010').intercept({ path: (p) => p.includes('/simulate') || p.includes('/switch/messages'), method: 'POST' }).reply((opts) => {
    seen.push({ path: opts.path, body: JSON.parse(String(opts.body)) });
    return { statusCode: reply.status, data: JSON.stringify(reply.body), responseOptions: { headers: { 'content-type': 'application/json' } } };
  }).persist();
  return agent;
}

async function run(args: string[], reply: { status: number; body: unknown }, options: { tty?: boolean } = {}) {
  const io = testIO(options);
  const seen: Array<{ path: string; body: unknown }> = [];
  const code = await main(args, {
    io,
    env: { CARDCTL_BASE_URL: 'http://127.0.0.1:4010', CARDCTL_TOKEN: 't', ...scratchDirs(), CI: '1' },
    dispatcher: mockApi(reply, seen),
    signal: new AbortController().signal,
  });
  return { code, out: io.stdoutText(), err: io.stderrText(), seen };
}

describe('simulate run()', () => {
  it('posts the body to /institutions/switch/simulate and prints the data object with -o json; a decline still exits 0', async () => {
    const r = await run(['simulate', 'authorization', '--card', 'c1', '--amount', '1,500.00', '--set', '43=ACME', '-o', 'json'], { status: 200, body: { status: 'failed', message: 'declined', data: RESULT } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual(RESULT);
    expect(r.seen[0]!.path).toBe('/institutions/switch/simulate');
    expect(r.seen[0]!.body).toEqual({ intent: 'authorization', processingFlow: 'purchase', amount: 1500, cardId: 'c1', overrides: { '43': 'ACME' } });
  });

  it('--expect-approved makes a decline exit 5', async () => {
    const r = await run(['simulate', 'authorization', '--card', 'c1', '--amount', '10', '--expect-approved'], { status: 200, body: { status: 'failed', message: 'declined', data: RESULT } });
    expect(r.code).toBe(5);
    expect(r.out).toMatch(/outcome\tdeclined/);
    expect(r.out).toMatch(/responseCode\t51/);
    expect(r.err).toMatch(/not approved: 51 Insufficient funds/);
  });

  // The approval codes of the docs (isApproved) pass, whichever verb; a decline exits 5.
  it.each([
    ['00', 0], ['10', 0], ['11', 0], ['08', 0], ['51', 5], ['05', 5], ['96', 5],
  ])('--expect-approved with response code %s exits %i on simulate authorization and on a lifecycle message', async (code, exit) => {
    const data = { ...RESULT, responseCode: code, responseMessage: 'x', response: { '0': '0110', '39': code } };
    const reply = { status: 200, body: { status: exit ? 'failed' : 'success', message: 'm', data } };
    expect((await run(['simulate', 'authorization', '--card', 'c1', '--amount', '10', '--expect-approved'], reply)).code).toBe(exit);
    expect((await run(['simulate', 'increment', '--original-tx', 'tx0', '--amount', '10', '--expect-approved'], reply)).code).toBe(exit);
  });

  it('--messages prints both messages with field names, PAN masked', async () => {
    const r = await run(['simulate', 'financial', '--card', 'c1', '--amount', '10', '--messages'], { status: 200, body: { status: 'failed', message: 'declined', data: RESULT } });
    expect(r.code).toBe(0);
    expect(r.out).toContain('# request');
    expect(r.out).toContain('4\tAmount, transaction\t000000150000\t₦1,500.00');
    expect(r.out).toContain('39\tResponse code\t51\tInsufficient funds');
    expect(r.out).toContain('506099******0008');
  });

  it('the summary of a partial approval shows the approved amount and the amount asked', async () => {
    const partial = { ...RESULT, responseCode: '10', responseMessage: 'Approved for partial amount', transactionStatus: 'pending', response: { '0': '0110', '4': '000000000060', '39': '10', '49': '566' } };
    const r = await run(['simulate', 'authorization', '--card', 'c1', '--amount', '15', '--forward'], { status: 200, body: { status: 'success', message: 'm', data: { ...partial, request: { ...RESULT.request, '4': '000000000100' } } } }, { tty: true });
    expect(r.code, r.err).toBe(0);
    expect(stripVTControlCharacters(r.out)).toMatch(/Amount\s+approved ₦0\.60 of ₦1\.00\n/);
    const full = await run(['simulate', 'authorization', '--card', 'c1', '--amount', '15'], { status: 200, body: { status: 'success', message: 'm', data: { ...RESULT, responseCode: '00', response: { '0': '0110', '4': '000000150000', '39': '00' } } } }, { tty: true });
    expect(stripVTControlCharacters(full.out)).toMatch(/Amount\s+₦1,500\.00\n/);
  });

  it('a usage error sends nothing (exit 2); a 409 from the simulator is exit 5', async () => {
    const bad = await run(['simulate', 'authorization', '--card', 'c1', '--amount', '1.001'], { status: 200, body: {} });
    expect(bad.code).toBe(2);
    expect(bad.seen).toHaveLength(0);
    const conflict = await run(['simulate', 'reversal', '--original-tx', 't1', '--amount', '1'], { status: 409, body: { statusCode: 409, error: 'CONFLICT', message: 'transaction t1 is already reversed' } });
    expect(conflict.code).toBe(5);
    expect(conflict.err).toMatch(/already reversed/);
  });

  it('reversal --help says what a reversal without --amount takes: the rest', async () => {
    const help = await run(['simulate', 'reversal', '--help'], { status: 200, body: {} });
    expect(help.out.replace(/\s+/g, ' ')).toMatch(/Without --amount, a reversal of --original-tx takes the rest: what the original may still give back/);
  });

  it('uses the profile switch segment', async () => {
    const io = testIO();
    const seen: Array<{ path: string; body: unknown }> = [];
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-sim-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentProfile: 'p', profiles: { p: { baseUrl: 'http://127.0.0.1:4010', token: 't', switch: 'interswitch' } } }));
    const code = await main(['simulate', 'authorization', '--card', 'c', '--amount', '1', '-q'], {
      io, env: { ...isolatedDirs(dir), CI: '1' }, dispatcher: mockApi({ status: 200, body: { status: 'success', message: 'ok', data: { ...RESULT, responseCode: '00' } } }, seen), signal: new AbortController().signal,
    });
    expect(code).toBe(0);
    expect(seen[0]!.path).toBe('/institutions/interswitch/simulate');
    expect(io.stdoutText()).toBe('tx1\n');
  });
});

describe('webhook listen on a terminal', () => {
  // The answer line is coloured by the one approval rule: a partial approval (10) is approved.
  it.each([['00', true], ['10', true], ['11', true], ['51', false]])('colours an answer %s as approved: %s', async (code, approved) => {
    const { humanPrinter } = await import('../../src/commands/webhook/listen.js');
    const { testContext } = await import('../helpers/context.js');
    const { createStyle } = await import('../../src/output/style.js');
    const ctx = testContext({ tty: true, env: { FORCE_COLOR: '1' } });
    (await humanPrinter(ctx))({ type: 'exchange', at: '2026-11-27T10:00:00.000Z', status: 200, signature: 'valid', mti: '0100', responseCode: code, responseMessage: 'm', decidedBy: 'default', durationMs: 1, response: { '0': '0110', '39': code } });
    const style = createStyle(true);
    expect(ctx.io.stdoutText()).toContain((approved ? style.ok : style.error)(`${code} m`));
  });
});
