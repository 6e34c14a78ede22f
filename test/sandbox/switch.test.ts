// The simulator's rules in stub mode: message building, every decline code of the service
// checks, limits per channel and per day, amounts by currency exponent, overrides (reversals:
// switch-reversals.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createCard, OpenApiChecker, startTestSandbox, type Sandbox, errorOf, fieldErrorsOf, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { auth, cardOf, clearPan, createProgram, financial, simulate, updateProgram } from './switch-helpers.js';
import type { Transaction, Card, SimulateEnvelope, SandboxInstitutionCredentials } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';

let sb: Sandbox;
let openapi: OpenApiChecker;

beforeAll(async () => {
  sb = await startTestSandbox();
  openapi = await OpenApiChecker.load(sb);
});
afterAll(async () => {
  await sb.close();
});

describe('approved in stub mode', () => {
  it('an authorization is approved and stored as pending, with the whole record', async () => {
    const card = await cardOf(sb);
    const response = await simulate(sb, auth(card.id, { amount: 1500, channel: 'pos', paymentMethod: 'chip' }));
    expect(response.status, response.text).toBe(200);
    openapi.expectMatches('POST', '/institutions/{switch}/simulate', response);
    const { data, status, message } = response.body;
    expect(status).toBe('success');
    expect(message).toMatch(/approved/i);
    expect(data).toMatchObject({ mti: '0100', responseCode: '00', responseMessage: 'Approved or completed successfully', transactionStatus: 'pending' });
    // The reference's fields and no others: the sandbox's `standIn` and `webhook` are for forward mode.
    expect(Object.keys(data).sort()).toEqual(['duration', 'mti', 'request', 'response', 'responseCode', 'responseMessage', 'rrn', 'stan', 'transactionId', 'transactionStatus']);
    expect(data.stan).toMatch(/^\d{6}$/);
    expect(data.rrn).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(data.request).toMatchObject({
      '0': '0100', '3': '000000', '4': '000000150000', '11': data.stan, '14': expect.stringMatching(/^\d{4}$/), '22': '051', '25': '00',
      '37': data.rrn, '41': 'SBXPOS01', '42': 'SBXMERCHANT0001', '49': '566', '102': card.account.number,
    });
    expect(data.request['7']).toMatch(/^\d{10}$/);
    expect(data.request['12']).toMatch(/^\d{6}$/);
    expect(data.request['13']).toMatch(/^\d{4}$/);
    expect(data.request['123']).toMatch(/^[0-9A-Z]{15}$/);
    // The answer and the stored record show the PAN masked; track 2 is PAN=YYMM + service code.
    expect(data.request['2']).toMatch(/^\d{6}\*+\d{4}$/);
    expect(data.request['35']).toBe(`${data.request['2']}=${data.request['14']}${card.serviceCode}`);
    expect(response.text).not.toContain(clearPan(sb, card.id));
    expect(data.response).toMatchObject({ '0': '0110', '39': '00', '11': data.stan, '37': data.rrn });
    expect(data.response['38']).toMatch(/^\d{6}$/);

    const stored = await call<DataEnvelope<Transaction>>(sb, 'GET', `/institutions/transactions/${data.transactionId}`, { token: sb.token });
    expect(stored.status).toBe(200);
    openapi.expectMatches('GET', '/institutions/transactions/{id}', stored);
    const tx = stored.body.data;
    expect(tx).toMatchObject({
      id: data.transactionId, _id: data.transactionId, mti: '0100', stan: data.stan, rrn: data.rrn, processingCode: '000000',
      terminalId: 'SBXPOS01', merchantId: 'SBXMERCHANT0001', amount: 1500, transactionAmount: 1500, merchantFeeAmount: 0,
      amounts: { amount: '000000150000', currency: '566' }, responseCode: '00', transactionStatus: 'pending', reversed: false, reversalId: '',
      messageType: 'authorization', isDeleted: false,
      card: { id: card.id, status: 'active' }, institution: { id: sb.institutionId },
      cardData: { pan: card.pan }, accounts: { account1: card.account.number },
      transactionChannel: { channelType: 'pos', entryMode: '051', posConditionCode: '00', isCardPresent: true, isPhysical: true, isAtm: false, isOnline: true },
      originalMessage: data.request, response: data.response,
    });
    expect(tx.dates).toMatchObject({ transmission: data.request['7'], expiration: data.request['14'] });
    const hops = tx.timestamps;
    expect(Object.keys(hops)).toEqual(['switchToService', 'serviceToInstitution', 'institutionToService', 'serviceToSwitch']);
    expect(hops.switchToService.direction).toBe('inbound');
    expect(hops.serviceToInstitution.direction).toBe('outbound');
    expect(hops.institutionToService.direction).toBe('inbound');
    expect(hops.serviceToSwitch.direction).toBe('outbound');
    expect(Date.parse(hops.serviceToSwitch.timestamp)).toBeGreaterThanOrEqual(Date.parse(hops.switchToService.timestamp));
    expect(tx.duration).toBe(data.duration);

    const list = await call<ListDataEnvelope<Transaction>>(sb, 'GET', '/institutions/transactions?limit=5', { token: sb.token });
    openapi.expectMatches('GET', '/institutions/transactions', list);
    expect(list.body.data.map((t: { id: string }) => t.id)).toContain(data.transactionId);
  });

  it('a financial transaction is completed; flows, channels and methods set fields 3, 22 and 25', async () => {
    const card = await cardOf(sb);
    const cases = [
      { flow: 'cash_withdrawal', channel: 'atm', method: 'magstripe', f3: '010000', f22: '901', f25: '02', terminal: 'SBXATM01' },
      { flow: 'balance_inquiry', channel: 'atm', method: 'chip', f3: '310000', f22: '051', f25: '02', terminal: 'SBXATM01' },
      { flow: 'refund', channel: 'pos', method: 'contactless', f3: '200000', f22: '071', f25: '00', terminal: 'SBXPOS01' },
      { flow: 'purchase', channel: 'pos', method: 'manual', f3: '000000', f22: '012', f25: '00', terminal: 'SBXPOS01' },
      { flow: 'purchase', channel: 'web', method: 'ecom', f3: '000000', f22: '810', f25: '59', terminal: 'SBXWEB01' },
      { flow: 'purchase', channel: 'web', method: 'moto', f3: '000000', f22: '812', f25: '08', terminal: 'SBXWEB01' },
    ];
    for (const c of cases) {
      // A balance inquiry moves no money: its amount is 0.
      const response = await simulate(sb, financial(card.id, { processingFlow: c.flow, channel: c.channel, paymentMethod: c.method, ...(c.flow === 'balance_inquiry' ? { amount: 0 } : {}) }));
      expect(response.status, response.text).toBe(200);
      const { data } = response.body;
      expect(data, JSON.stringify(c)).toMatchObject({ mti: '0200', responseCode: '00', transactionStatus: 'completed' });
      expect(data.request).toMatchObject({ '3': c.f3, '22': c.f22, '25': c.f25, '41': c.terminal });
      expect(data.response['0']).toBe('0210');
      // Track 2 only when the card was read.
      expect('35' in data.request).toBe(['chip', 'magstripe', 'contactless'].includes(c.method));
    }
  });

  it('defaults: channel pos, method chip, currency 566; merchant and terminal can be given', async () => {
    const card = await cardOf(sb);
    const { data } = (await simulate(sb, auth(card.id, { merchantId: 'M-42', terminalId: 'T-42' }))).body;
    expect(data.request).toMatchObject({ '22': '051', '25': '00', '49': '566', '41': 'T-42', '42': 'M-42' });
    const filtered = await call<ListDataEnvelope<Transaction>>(sb, 'GET', '/institutions/transactions?merchantId=M-42&terminalId=T-42', { token: sb.token });
    expect(filtered.body.data.map((t: { id: string }) => t.id)).toEqual([data.transactionId]);
  });

  it('accepts any switch path segment', async () => {
    const card = await cardOf(sb);
    const response = await simulate(sb, auth(card.id), { switchSegment: 'interswitch' });
    expect(response.body.data.responseCode).toBe('00');
  });

  it('needs a bearer token', async () => {
    const response = await call<SimulateEnvelope>(sb, 'POST', '/institutions/switch/simulate', { body: auth('x') });
    expect(response.status).toBe(401);
  });
});

describe('card by pan, expiry and account (rule 1)', () => {
  it('approves matching card data and declines what does not match', async () => {
    const card = await cardOf(sb);
    const pan = clearPan(sb, card.id);
    const expiry = `${card.expiryYear}${card.expiryMonth}`; // YYYYMM is accepted too
    const base = { intent: 'authorization', processingFlow: 'purchase', amount: 10 };
    const ok = await simulate(sb, { ...base, pan, expiry, accountNumber: card.account.number });
    expect(ok.body.data.responseCode).toBe('00');
    expect(ok.body.data.request['14']).toBe(expiry.slice(2));

    const wrongExpiry = await simulate(sb, { ...base, pan, expiry: '3001', accountNumber: card.account.number });
    expect(wrongExpiry.body.data).toMatchObject({ responseCode: '54', transactionStatus: 'failed' });
    const wrongAccount = await simulate(sb, { ...base, pan, expiry: expiry.slice(2), accountNumber: '9999999999' });
    expect(wrongAccount.body.data.responseCode).toBe('14');
    const unknownPan = await simulate(sb, { ...base, pan: '4111111111111111', expiry: '2912', accountNumber: '1' });
    expect(unknownPan.body).toMatchObject({ status: 'failed', data: { responseCode: '14', responseMessage: 'Invalid card number (no such number)', transactionStatus: 'failed' } });
    const stored = await call<DataEnvelope<Transaction>>(sb, 'GET', `/institutions/transactions/${unknownPan.body.data.transactionId}`, { token: sb.token });
    expect(stored.body.data.card).toBeNull();
    expect(stored.body.data.cardData.pan).toBe('411111******1111');
  });

  it('is a 400 naming the missing fields when cardId is absent and the card data are incomplete', async () => {
    const response = await simulate(sb, { intent: 'authorization', processingFlow: 'purchase', amount: 10, pan: '4111111111111111' });
    expect(response.status).toBe(400);
    expect(errorOf(response).error).toBe('VALIDATION_ERROR');
    expect(fieldErrorsOf(response).map((e: { field: string }) => e.field).sort()).toEqual(['accountNumber', 'expiry']);
  });

  it("does not find another institution's card by PAN", async () => {
    const other = await call<DataEnvelope<SandboxInstitutionCredentials>>(sb, 'POST', '/sandbox/institutions', { body: { name: 'Other Bank' } });
    expect(other.status, other.text).toBe(201);
    const card = await cardOf(sb);
    const response = await simulate(sb, { intent: 'authorization', processingFlow: 'purchase', amount: 10, pan: clearPan(sb, card.id), expiry: `${String(card.expiryYear).slice(2)}${card.expiryMonth}`, accountNumber: card.account.number }, { token: other.body.data.token });
    expect(response.body.data.responseCode).toBe('14');
    const byId = await simulate(sb, auth(card.id), { token: other.body.data.token });
    expect(byId.body.data.responseCode).toBe('14');
    const read = await call<DataEnvelope<Transaction>>(sb, 'GET', `/institutions/transactions/${byId.body.data.transactionId}`, { token: sb.token });
    expect(read.status).toBe(404);
  });
});

describe('declines of the service checks', () => {
  it('14 for an unknown card id', async () => {
    const response = await simulate(sb, auth('000000000000000000000000'));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', data: { responseCode: '14', transactionStatus: 'failed' } });
    expect(response.body.data.response['39']).toBe('14');
    expect(response.body.data.response['38']).toBeUndefined();
  });

  it('54 for a card past its expiry month', async () => {
    const card = await cardOf(sb);
    const after = new Date(Date.UTC(card.expiryYear, Number(card.expiryMonth), 2)).toISOString();
    const response = await simulate(sb, auth(card.id, { transactionDate: after }));
    expect(response.body.data).toMatchObject({ responseCode: '54', responseMessage: 'Expired card', transactionStatus: 'failed' });
  });

  it('62 for a suspended or inactive card', async () => {
    const card = await cardOf(sb);
    expect((await call<DataEnvelope<Card>>(sb, 'GET', `/institutions/cards/${card.id}/deactivate`, { token: sb.token })).status).toBe(200);
    expect((await simulate(sb, auth(card.id))).body.data.responseCode).toBe('62');
    expect((await call<DataEnvelope<Card>>(sb, 'GET', `/institutions/cards/${card.id}/activate`, { token: sb.token })).status).toBe(200);
    expect((await simulate(sb, auth(card.id))).body.data.responseCode).toBe('00');
  });

  it('57 when the channel is disabled in the program', async () => {
    const program = await createProgram(sb, { channels: { web: { enabled: false, dailyLimit: { count: 10, amount: 1000 } } } });
    const card = await cardOf(sb, program.id);
    expect((await simulate(sb, auth(card.id, { channel: 'web', paymentMethod: 'ecom' }))).body.data.responseCode).toBe('57');
    expect((await simulate(sb, auth(card.id, { channel: 'pos' }))).body.data.responseCode).toBe('00');
  });

  it('checks in order: 14, then 54, then 62, then 57', async () => {
    const program = await createProgram(sb, { channels: { pos: { enabled: false, dailyLimit: { count: 1, amount: 1 } } } });
    const card = await cardOf(sb, program.id);
    await call<DataEnvelope<Card>>(sb, 'GET', `/institutions/cards/${card.id}/deactivate`, { token: sb.token });
    const late = new Date(Date.UTC(card.expiryYear + 1, 0, 1)).toISOString();
    expect((await simulate(sb, auth(card.id, { transactionDate: late, amount: 5 }))).body.data.responseCode).toBe('54');
    expect((await simulate(sb, auth(card.id, { amount: 5 }))).body.data.responseCode).toBe('62');
    await call<DataEnvelope<Card>>(sb, 'GET', `/institutions/cards/${card.id}/activate`, { token: sb.token });
    expect((await simulate(sb, auth(card.id, { amount: 5 }))).body.data.responseCode).toBe('57');
  });
});

describe('daily limits per card, channel and day', () => {
  it('61 when the amount would pass the daily amount, per channel', async () => {
    const program = await createProgram(sb, { channels: { pos: { enabled: true, dailyLimit: { count: 100, amount: 1000 } }, atm: { enabled: true, dailyLimit: { count: 100, amount: 500 } } } });
    const card = await cardOf(sb, program.id);
    expect((await simulate(sb, auth(card.id, { amount: 600 }))).body.data.responseCode).toBe('00');
    expect((await simulate(sb, financial(card.id, { amount: 400 }))).body.data.responseCode).toBe('00'); // exactly the limit
    const over = await simulate(sb, auth(card.id, { amount: 0.01 }));
    expect(over.body.data).toMatchObject({ responseCode: '61', responseMessage: 'Exceeds withdrawal amount limit', transactionStatus: 'failed' });
    // The ATM channel has its own limit; a declined one does not use it up.
    expect((await simulate(sb, financial(card.id, { channel: 'atm', processingFlow: 'cash_withdrawal', amount: 501 }))).body.data.responseCode).toBe('61');
    expect((await simulate(sb, financial(card.id, { channel: 'atm', processingFlow: 'cash_withdrawal', amount: 500 }))).body.data.responseCode).toBe('00');
    // Another card of the same program is not affected.
    const other = await cardOf(sb, program.id);
    expect((await simulate(sb, auth(other.id, { amount: 1000 }))).body.data.responseCode).toBe('00');
  });

  it("65 when one more would pass the daily count, whatever day the messages are dated; the switch clock's next day starts afresh", async () => {
    // Its own sandbox: the switch clock moves forward here, and stays moved.
    const own = await startTestSandbox();
    try {
      const program = await createProgram(own, { channels: { pos: { enabled: true, dailyLimit: { count: 3, amount: 1_000_000 } }, web: { enabled: true, dailyLimit: { count: 1, amount: 1_000_000 } } } });
      const card = await cardOf(own, program.id);
      // Dated on three other days, they all count against the switch's day.
      const dated = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
      for (const days of [1, 2, 30]) expect((await simulate(own, auth(card.id, { transactionDate: dated(days) }))).body.data.responseCode).toBe('00');
      const fourth = await simulate(own, auth(card.id, { transactionDate: dated(400) }));
      expect(fourth.body.data).toMatchObject({ responseCode: '65', responseMessage: 'Exceeds withdrawal frequency limit' });
      // Same day, other channel: its own count.
      expect((await simulate(own, auth(card.id, { channel: 'web', paymentMethod: 'ecom' }))).body.data.responseCode).toBe('00');
      expect((await simulate(own, auth(card.id, { channel: 'web', paymentMethod: 'ecom', transactionDate: dated(5) }))).body.data.responseCode).toBe('65');
      // A reversal gives the slot back.
      const first = present((await call<ListDataEnvelope<Transaction>>(own, 'GET', '/institutions/transactions?limit=100', { token: own.token })).body.data
        .find((t: Transaction) => t.card?.id === card.id && t.transactionStatus === 'pending' && t.transactionChannel.channelType === 'pos'), 'the pending pos transaction');
      const reversal = await simulate(own, { intent: 'reversal', processingFlow: 'purchase', amount: 100, originalTransactionId: first.id });
      expect(reversal.body.data.responseCode).toBe('00');
      expect((await simulate(own, auth(card.id))).body.data.responseCode).toBe('00');
      expect((await simulate(own, auth(card.id))).body.data.responseCode).toBe('65');
      // The switch's next day (UTC): fresh.
      expect((await call(own, 'POST', '/sandbox/switch/clock', { body: { advanceSeconds: 86_400 } })).status).toBe(200);
      expect((await simulate(own, auth(card.id))).body.data.responseCode).toBe('00');
    } finally {
      await own.close();
    }
  });

  it('61: amounts dated on other days (future, or past within the card\'s life) count against the switch\'s day too', async () => {
    const program = await createProgram(sb, { channels: { pos: { enabled: true, dailyLimit: { count: 100, amount: 500_000 } } } });
    const card = await cardOf(sb, program.id);
    const days = [1, 7, 90, 365];
    const codes = [];
    for (const ahead of days) codes.push((await simulate(sb, auth(card.id, { amount: 450_000, transactionDate: new Date(Date.now() + ahead * 86_400_000).toISOString() }))).body.data.responseCode);
    expect(codes).toEqual(['00', '61', '61', '61']);
    // Dated a moment after the card was made (its past), on the same switch day: still 61.
    const past = new Date(Date.parse(card.createdAt) + 1_000).toISOString();
    expect((await simulate(sb, auth(card.id, { amount: 60_000, transactionDate: past }))).body.data.responseCode).toBe('61');
  });

  it('a limit of 0 means no limit (channels are closed with enabled: false)', async () => {
    const program = await createProgram(sb, { channels: { pos: { enabled: true, dailyLimit: { count: 0, amount: 0 } } } });
    const card = await cardOf(sb, program.id);
    for (let i = 0; i < 25; i++) expect((await simulate(sb, auth(card.id, { amount: 1_000_000 }))).body.data.responseCode).toBe('00');
  });

  it('50 parallel simulations on one card never pass its daily count', async () => {
    const program = await createProgram(sb, { channels: { pos: { enabled: true, dailyLimit: { count: 10, amount: 1_000_000 } } } });
    const card = await cardOf(sb, program.id);
    const results = await Promise.all(Array.from({ length: 50 }, () => simulate(sb, auth(card.id, { amount: 1 }))));
    const codes = results.map((r) => r.body.data.responseCode);
    expect(codes.filter((c) => c === '00')).toHaveLength(10);
    expect(codes.filter((c) => c === '65')).toHaveLength(40);
    const stans = new Set(results.map((r) => r.body.data.stan));
    const rrns = new Set(results.map((r) => r.body.data.rrn));
    expect(stans.size).toBe(50);
    expect(rrns.size).toBe(50);
  });
});

describe('amounts: field 4 by the currency exponent', () => {
  it('0 decimals (392 JPY), 2 (566 NGN) and 3 (048 BHD)', async () => {
    const card = await cardOf(sb);
    const cases = [
      { currency: '392', amount: 1500, field4: '000000001500' },
      { currency: '566', amount: 1500, field4: '000000150000' },
      { currency: '566', amount: 1500.5, field4: '000000150050' },
      { currency: '048', amount: 1500, field4: '000001500000' },
      { currency: '048', amount: 1.234, field4: '000000001234' },
    ];
    for (const c of cases) {
      const response = await simulate(sb, auth(card.id, { currency: c.currency, amount: c.amount }));
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.request['4'], JSON.stringify(c)).toBe(c.field4);
      expect(response.body.data.request['49']).toBe(c.currency);
      const stored = (await call<DataEnvelope<Transaction>>(sb, 'GET', `/institutions/transactions/${response.body.data.transactionId}`, { token: sb.token })).body.data;
      expect(stored.amounts).toEqual({ amount: c.field4, currency: c.currency });
      expect(stored.amount).toBe(c.amount);
    }
  });

  it('rejects more decimals than the currency allows, and unknown currencies', async () => {
    const card = await cardOf(sb);
    for (const [currency, amount] of [['392', 1500.5], ['566', 10.001], ['048', 1.2345]] as const) {
      const response = await simulate(sb, auth(card.id, { currency, amount }));
      expect(response.status, `${currency} ${amount}`).toBe(400);
      expect(fieldErrorsOf(response)[0].field).toBe('amount');
    }
    const unknown = await simulate(sb, auth(card.id, { currency: '000' }));
    expect(unknown.status).toBe(400);
    expect(fieldErrorsOf(unknown)[0].field).toBe('currency');
    const schema = await simulate(sb, auth(card.id, { amount: -1 }));
    expect(schema.status).toBe(400);
  });
});

describe('overrides and identifiers', () => {
  it('replaces fields verbatim; an overridden field 4 is the amount that counts', async () => {
    const card = await cardOf(sb);
    const response = await simulate(sb, auth(card.id, { amount: 1, overrides: { '4': '000000150000', '43': 'ACME STORE LAGOS NG', '18': '5411' } }));
    const { data } = response.body;
    expect(data.request).toMatchObject({ '4': '000000150000', '43': 'ACME STORE LAGOS NG', '18': '5411' });
    expect(data.response['43']).toBe('ACME STORE LAGOS NG');
    const stored = (await call<DataEnvelope<Transaction>>(sb, 'GET', `/institutions/transactions/${data.transactionId}`, { token: sb.token })).body.data;
    expect(stored.amounts.amount).toBe('000000150000');
    expect(stored.amount).toBe(1500);
  });

  it('STANs run per day and RRNs are unique: YDDDHH + STAN', async () => {
    const card = await cardOf(sb);
    const date = '2027-03-04T05:06:07.000Z';
    const first = (await simulate(sb, auth(card.id, { transactionDate: date }))).body.data;
    const second = (await simulate(sb, auth(card.id, { transactionDate: date }))).body.data;
    expect(first.stan).toBe('000001');
    expect(second.stan).toBe('000002');
    expect(first.rrn).toBe('706305000001');
    expect(first.request['7']).toBe('0304050607');
    expect(first.request['12']).toBe('050607');
    expect(first.request['13']).toBe('0304');
  });

  it("STANs count per institution: another institution's volume does not show in them", async () => {
    const date = '2028-07-08T09:10:11.000Z';
    const card = await cardOf(sb);
    for (let i = 0; i < 3; i++) await simulate(sb, auth(card.id, { transactionDate: date }));
    // Declines and unknown cards draw a STAN too.
    await simulate(sb, auth('000000000000000000000000', { transactionDate: date }));
    const other = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sb, 'POST', '/sandbox/institutions', { body: { name: 'Quiet Bank' } })).body.data;
    const otherCard = await createCard(sb, { cardProgram: other.cardProgramId }, other.token);
    const first = (await simulate(sb, auth(otherCard.id, { transactionDate: date }), { token: other.token })).body.data;
    expect(first.stan).toBe('000001');
    expect(first.rrn).toBe('819009000001');
    const mine = (await simulate(sb, auth(card.id, { transactionDate: date }))).body.data;
    expect(mine.stan).toBe('000005');
    // Without its counter (a database from before counters were per institution), the day
    // continues after the institution's own highest STAN, not from 1 and not from the others'.
    sb.deps.store.db.prepare('DELETE FROM meta WHERE key LIKE ?').run('switch.stan.%.2028-07-08');
    expect((await simulate(sb, auth(card.id, { transactionDate: date }))).body.data.stan).toBe('000006');
    expect((await simulate(sb, auth(otherCard.id, { transactionDate: date }), { token: other.token })).body.data.stan).toBe('000002');
  });

  it('a sandbox started with firstStan begins each new day there, then counts on (webhook certify: no STAN+RRN of an earlier run)', async () => {
    const other = await startTestSandbox({ firstStan: 424_242 });
    try {
      const card = await cardOf(other);
      const date = '2029-01-02T03:04:05.000Z';
      const first = (await simulate(other, auth(card.id, { transactionDate: date }))).body.data;
      const second = (await simulate(other, auth(card.id, { transactionDate: date }))).body.data;
      expect([first.stan, second.stan]).toEqual(['424242', '424243']);
      expect(first.rrn).toBe('900203424242');
    } finally {
      await other.close();
    }
  });

  it('GET /institutions/transactions/{id} is a 404 for an unknown id', async () => {
    const response = await call<DataEnvelope<Transaction>>(sb, 'GET', '/institutions/transactions/ffffffffffffffffffffffff', { token: sb.token });
    expect(response.status).toBe(404);
    expect(response.body.message).toBe('transaction ffffffffffffffffffffffff not found');
  });
});
