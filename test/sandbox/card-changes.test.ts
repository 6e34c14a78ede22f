// The card changes of the sandbox (renew, PIN change and reset, customer update, status), the
// bodies they accept, and card program changes merged member by member.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Card, CardProgram } from '../../src/api/schemas.js';
import { call, createCard, encryptClearBlock, encryptPin, OpenApiChecker, startTestSandbox, type Sandbox, errorOf, fieldErrorsOf, type DataEnvelope, type ListDataEnvelope, expanded } from './helpers.js';

let sandbox: Sandbox;
let openapi: OpenApiChecker;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  openapi = await OpenApiChecker.load(sandbox);
});
afterAll(async () => {
  await sandbox?.close();
});

function monthsFromNow(months: number): string {
  const now = new Date();
  const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1));
  return `${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

describe('card changes', () => {
  test('renew: future month within maxExpiry, new seqNumber, active, program expanded, message says replacement', async () => {
    const card = await createCard(sandbox, { status: 'suspended' });
    const expiration = monthsFromNow(24);
    const response = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/${card.id}/renew`, { token: sandbox.token, body: { expiration, renewReason: 'RENEW' } });
    expect(response.status).toBe(200);
    openapi.expectMatches('PUT', '/institutions/cards/{cardId}/renew', response);
    const renewed = response.body.data;
    expect(response.body.message).toMatch(/replacement/i);
    expect(renewed.status).toBe('active');
    expect(renewed.seqNumber).toBe('002');
    expect(`${renewed.expiryYear}${renewed.expiryMonth}`).toBe(expiration);
    expect(renewed.cardProgram).toMatchObject({ id: sandbox.cardProgramId, losesAccount: expect.any(String) });
    expect(renewed.__v).toBe(card.__v + 1);
    expect(renewed.cvv2).not.toBe(card.cvv2);
    expect(renewed.pan).toBe(card.pan);
  });

  test.each([
    ['the current month', () => monthsFromNow(0), 'expiration'],
    ['a past month', () => monthsFromNow(-3), 'expiration'],
    ['beyond maxExpiry (60 months)', () => monthsFromNow(61), 'expiration'],
    ['a month 13', () => '202913', 'expiration'],
  ])('renew to %s is a 400', async (_name, expiration, field) => {
    const card = await createCard(sandbox);
    const response = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/${card.id}/renew`, { token: sandbox.token, body: { expiration: expiration(), renewReason: 'RENEW' } });
    expect(response.status).toBe(400);
    expect(fieldErrorsOf(response)[0].field).toBe(field);
  });

  test('renew without renewReason is a 400; unknown card is a 404', async () => {
    const card = await createCard(sandbox);
    const missing = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/${card.id}/renew`, { token: sandbox.token, body: { expiration: monthsFromNow(12) } });
    expect(missing.status).toBe(400);
    expect(fieldErrorsOf(missing)).toContainEqual({ field: 'renewReason', message: 'is required' });
    const unknown = await call<DataEnvelope<Card>>(sandbox, 'PUT', '/institutions/cards/ffffffffffffffffffffffff/renew', { token: sandbox.token, body: { expiration: monthsFromNow(12), renewReason: 'RENEW' } });
    expect(unknown.status).toBe(404);
    openapi.expectMatches('PUT', '/institutions/cards/{cardId}/renew', unknown);
  });

  test('PIN change checks the old PIN, counts wrong attempts, locks after 3, and reset unlocks', async () => {
    const card = await createCard(sandbox);
    const path = `/institutions/cards/pin/${card.id}/change`;
    const ok = await call<DataEnvelope<Card>>(sandbox, 'PUT', path, { token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '1234'), newPIN: encryptPin(sandbox, '4321') } });
    expect(ok.status).toBe(200);
    openapi.expectMatches('PUT', '/institutions/cards/pin/{cardId}/change', ok);
    expect(ok.body.data.pinAttempts).toBe(0);

    for (const attemptsLeft of [2, 1, 0]) {
      const wrong = await call(sandbox, 'PUT', path, { token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '1234'), newPIN: encryptPin(sandbox, '5555') } });
      expect(wrong.status).toBe(422);
      expect(wrong.body).toMatchObject({ error: 'PIN_MISMATCH', details: { attemptsLeft } });
      openapi.expectMatches('PUT', '/institutions/cards/pin/{cardId}/change', wrong);
    }
    const locked = await call(sandbox, 'PUT', path, { token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '4321'), newPIN: encryptPin(sandbox, '5555') } });
    expect(locked.status).toBe(423);
    expect(errorOf(locked).error).toBe('PIN_LOCKED');

    const list = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${card.id}`, { token: sandbox.token });
    expect(list.body.data[0].pinAttempts).toBe(3);

    const reset = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/pin/${card.id}/reset`, { token: sandbox.token, body: { newPIN: encryptPin(sandbox, '8642') } });
    expect(reset.status).toBe(200);
    openapi.expectMatches('PUT', '/institutions/cards/pin/{cardId}/reset', reset);
    expect(reset.body.data.pinAttempts).toBe(0);

    const oldAfterReset = await call(sandbox, 'PUT', path, { token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '4321'), newPIN: encryptPin(sandbox, '1111') } });
    expect(oldAfterReset.status).toBe(422);
    const newAfterReset = await call<DataEnvelope<Card>>(sandbox, 'PUT', path, { token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '8642'), newPIN: encryptPin(sandbox, '1111') } });
    expect(newAfterReset.status).toBe(200);
    expect(newAfterReset.body.data.pinAttempts).toBe(0);
  });

  test('PIN change and reset reject bad blocks, missing fields and unknown cards', async () => {
    const card = await createCard(sandbox);
    const badKey = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/pin/${card.id}/change`, {
      token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '1234'), newPIN: encryptPin(sandbox, '5555', '00'.repeat(32)) },
    });
    expect(badKey.status).toBe(400);
    expect(errorOf(badKey).error).toBe('UNKNOWN_KEY');
    const missing = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/pin/${card.id}/change`, { token: sandbox.token, body: { newPIN: encryptPin(sandbox, '5555') } });
    expect(missing.status).toBe(400);
    expect(fieldErrorsOf(missing)).toContainEqual({ field: 'oldPIN', message: 'is required' });
    const badBlock = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/pin/${card.id}/reset`, {
      token: sandbox.token, body: { newPIN: encryptClearBlock(sandbox, Buffer.from('0412340000000000', 'hex')) },
    });
    expect(badBlock.status).toBe(400);
    expect(errorOf(badBlock).error).toBe('INVALID_PIN_BLOCK');
    const unknown = await call<DataEnvelope<Card>>(sandbox, 'PUT', '/institutions/cards/pin/nope/reset', { token: sandbox.token, body: { newPIN: encryptPin(sandbox, '5555') } });
    expect(unknown.status).toBe(404);
    // A failed block leaves the attempt counter alone.
    const list = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${card.id}`, { token: sandbox.token });
    expect(list.body.data[0].pinAttempts).toBe(0);
  });

  test('customer update replaces the customer, keeps uniqueId, moves updatedAt', async () => {
    const card = await createCard(sandbox);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const customer = {
      firstName: 'Grace', middleName: 'B', lastName: 'Hopper', emailAddress: 'grace@example.com', phoneNumber: '+15550100',
      dateOfBirth: '1906-12-09T00:00:00.000Z',
      address: { line1: '1 Navy Way', line2: 'Apt 2', city: 'Arlington', state: 'VA', country: 'US', postalCode: '22201' },
    };
    const response = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/${card.id}/customer`, { token: sandbox.token, body: customer });
    expect(response.status).toBe(200);
    openapi.expectMatches('PUT', '/institutions/cards/{cardId}/customer', response);
    expect(response.body.data.customer).toEqual({ ...customer, uniqueId: card.customer.uniqueId, honorific: '', gender: '' });
    expect(response.body.data.updatedAt > card.updatedAt).toBe(true);
    const search = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?search=hopper', { token: sandbox.token });
    expect(search.body.data.map((c: Card) => c.id)).toContain(card.id);

    const partial = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/${card.id}/customer`, { token: sandbox.token, body: { firstName: 'X' } });
    expect(partial.status).toBe(400);
    expect(fieldErrorsOf(partial).map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['lastName', 'emailAddress', 'address']));
    const badAddress = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/${card.id}/customer`, { token: sandbox.token, body: { ...customer, address: { line1: 1 } } });
    expect(badAddress.status).toBe(400);
    expect(fieldErrorsOf(badAddress)).toContainEqual({ field: 'address.line1', message: 'must be a string' });
  });

  test('deactivate suspends, activate reactivates (both GET), expired cards cannot be activated', async () => {
    const card = await createCard(sandbox);
    const off = await call<DataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards/${card.id}/deactivate`, { token: sandbox.token });
    expect(off.status).toBe(200);
    openapi.expectMatches('GET', '/institutions/cards/{cardId}/deactivate', off);
    expect(off.body.data.status).toBe('suspended');
    const on = await call<DataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards/${card.id}/activate`, { token: sandbox.token });
    expect(on.status).toBe(200);
    openapi.expectMatches('GET', '/institutions/cards/{cardId}/activate', on);
    expect(on.body.data.status).toBe('active');

    const expired = await createCard(sandbox, { status: 'expired' });
    const refused = await call<DataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards/${expired.id}/activate`, { token: sandbox.token });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).error).toBe('VALIDATION_ERROR');
    openapi.expectMatches('GET', '/institutions/cards/{cardId}/activate', refused);
    expect((await call<DataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards/nope/deactivate', { token: sandbox.token })).status).toBe(404);
    expect((await call<DataEnvelope<Card>>(sandbox, 'POST', `/institutions/cards/${card.id}/activate`, { token: sandbox.token })).status).toBe(404);
  });
});

describe('bodies of the card changes', () => {
  test.each([
    ['renew', 'PUT', (id: string) => `/institutions/cards/${id}/renew`, () => ({ expiration: monthsFromNow(12), renewReason: 'RENEW' }), 'renewReason'],
    ['PIN reset', 'PUT', (id: string) => `/institutions/cards/pin/${id}/reset`, () => ({ newPIN: encryptPin(sandbox, '1234') }), 'newPIN'],
    ['PIN change', 'PUT', (id: string) => `/institutions/cards/pin/${id}/change`, () => ({ oldPIN: encryptPin(sandbox, '1234'), newPIN: encryptPin(sandbox, '4321') }), 'oldPIN'],
  ])('%s rejects extra, missing and wrong-typed fields', async (_name, method, path, valid, required) => {
    const card = await createCard(sandbox);
    const extra = await call(sandbox, method, path(card.id), { token: sandbox.token, body: { ...valid(), reason: 'x' } });
    expect(extra.status).toBe(400);
    expect(fieldErrorsOf(extra)).toContainEqual({ field: 'reason', message: 'is not an allowed field' });
    const body: Record<string, unknown> = valid();
    delete body[required];
    const missing = await call(sandbox, method, path(card.id), { token: sandbox.token, body });
    expect(missing.status).toBe(400);
    expect(fieldErrorsOf(missing)).toContainEqual({ field: required, message: 'is required' });
    const wrongType = await call(sandbox, method, path(card.id), { token: sandbox.token, body: { ...valid(), [required]: 42 } });
    expect(wrongType.status).toBe(400);
    expect(fieldErrorsOf(wrongType).map((e: { field: string }) => e.field)).toContain(required);
    // Nothing changed on the card.
    const after = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${card.id}`, { token: sandbox.token });
    expect(after.body.data[0].__v).toBe(0);
  });
});

describe('card program changes merge nested objects member by member', () => {
  type Program = CardProgram;
  const newProgram = async (): Promise<Program> => {
    const created = await call<DataEnvelope<CardProgram>>(sandbox, 'POST', '/sandbox/card-programs', { token: sandbox.token, body: { name: 'Merge' } });
    expect(created.status, created.text).toBe(201);
    return created.body.data;
  };
  const update = (id: string, body: unknown) => call<DataEnvelope<CardProgram>>(sandbox, 'PUT', `/sandbox/card-programs/${id}`, { token: sandbox.token, body });

  // [the change, what it must change; everything else of the program stays as it was]
  const cases: Array<[string, Record<string, unknown>, (before: Program) => Program]> = [
    ['a channel\'s limit count alone', { channels: { pos: { dailyLimit: { count: 5 } } } },
      (p) => ({ ...p, channels: { ...p.channels, pos: { ...p.channels.pos, dailyLimit: { ...p.channels.pos.dailyLimit, count: 5 } } } })],
    ['a channel\'s limit amount alone', { channels: { atm: { dailyLimit: { amount: 0 } } } },
      (p) => ({ ...p, channels: { ...p.channels, atm: { ...p.channels.atm, dailyLimit: { ...p.channels.atm.dailyLimit, amount: 0 } } } })],
    ['a channel\'s enabled alone', { channels: { web: { enabled: false } } },
      (p) => ({ ...p, channels: { ...p.channels, web: { ...p.channels.web, enabled: false } } })],
    ['two channels, each partly', { channels: { pos: { enabled: false }, web: { dailyLimit: { count: 0 } } } },
      (p) => ({ ...p, channels: { ...p.channels, pos: { ...p.channels.pos, enabled: false }, web: { ...p.channels.web, dailyLimit: { ...p.channels.web.dailyLimit, count: 0 } } } })],
    ['an empty channel', { channels: { pos: {} } }, (p) => p],
    ['the webhook URL alone', { webHookConfig: { url: 'http://127.0.0.1:9/merge' } },
      (p) => ({ ...p, webHookConfig: { ...p.webHookConfig, url: 'http://127.0.0.1:9/merge' } })],
    ['a stand-in mode alone, on a program without a policy', { standIn: { mode: 'decline' } },
      (p) => ({ ...p, standIn: { mode: 'decline', maxAmount: 0, dailyAmount: 0 } })],
  ];

  test.each(cases)('%s', async (_name, change, expected) => {
    const before = await newProgram();
    const response = await update(before.id, change);
    expect(response.status, response.text).toBe(200);
    const { updatedAt, ...after } = response.body.data;
    const { updatedAt: _, ...wanted } = expected(before);
    expect(after).toEqual(wanted);
  });

  test('a stand-in change keeps the amounts it leaves out', async () => {
    const program = await newProgram();
    expect((await update(program.id, { standIn: { mode: 'approve', maxAmount: 500, dailyAmount: 2000 } })).status).toBe(200);
    const changed = await update(program.id, { standIn: { dailyAmount: 3000 } });
    expect(changed.body.data.standIn).toEqual({ mode: 'approve', maxAmount: 500, dailyAmount: 3000 });
  });

  test.each([
    ['an unknown channel member', { channels: { pos: { enable: false } } }],
    ['an unknown limit member', { channels: { pos: { dailyLimit: { counts: 1 } } } }],
    ['an unknown channel', { channels: { ussd: { enabled: false } } }],
    ['a negative count', { channels: { pos: { dailyLimit: { count: -1 } } } }],
    ['an unknown stand-in member', { standIn: { mode: 'approve', max: 1 } }],
  ])('%s is a 400, and nothing changes', async (_name, change) => {
    const before = await newProgram();
    const response = await update(before.id, change);
    expect(response.status, response.text).toBe(400);
    const programs = await call<DataEnvelope<CardProgram[]>>(sandbox, 'GET', '/sandbox/card-programs', { token: sandbox.token });
    expect(programs.body.data.find((p: Program) => p.id === before.id)).toEqual(before);
  });

  test('the schema says that a limit of 0 is no limit', async () => {
    const doc = (await call(sandbox, 'GET', '/openapi.json')).body;
    const text = JSON.stringify(doc);
    expect(text).toContain('transactions per card, channel and UTC day; 0: no limit');
    expect(text).toContain('major units of the card currency per card, channel and UTC day; 0: no limit');
  });
});
