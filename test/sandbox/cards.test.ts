import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/sandbox/store/index.js';
import { tempDir } from '../helpers/cli.js';
import { call, createCard, createCardBody, encryptClearBlock, encryptPin, OpenApiChecker, startTestSandbox, type Sandbox } from './helpers.js';
import type { Card, CardProgram } from '../../src/api/schemas.js';
import type { AnyJson } from '../helpers/json.js';

let sandbox: Sandbox;
let openapi: OpenApiChecker;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  openapi = await OpenApiChecker.load(sandbox);
});
afterAll(async () => {
  await sandbox?.close();
});

const CARD_FIELDS = [
  '_id', 'id', 'institution', 'cardProgram', 'referenceCode', 'scheme', 'type', 'bin', 'expiryMonth', 'expiryYear', 'expiryDate',
  'pinEnabled', 'seqNumber', 'enroll2FA', 'twoFAEnrolled', 'status', 'account', 'customer', 'cardHolderId', 'lastFour', 'pan', 'cvv2',
  'icvv', 'cvv', 'serviceCode', 'printCard', 'token', 'allowDigitization', 'embossingName', 'pinAttempts', 'honorific', 'gender',
  'createdAt', 'updatedAt', 'hash', 'secureData', '__v',
];

function monthsFromNow(months: number): string {
  const now = new Date();
  const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1));
  return `${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

function luhnDigit(body: string): string {
  let sum = 0;
  for (let i = body.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = Number(body[i]);
    if (double) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

describe('POST /institutions/cards', () => {
  test('creates a card with every field of the reference, a masked Luhn PAN from the program range and a pinOffset', async () => {
    const body = createCardBody(sandbox, { enroll2FA: true, printCard: true, defaultPIN: encryptPin(sandbox, '97531864') });
    const response = await call(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body });
    expect(response.status).toBe(201);
    expect(response.body.statusCode).toBe(200);
    openapi.expectMatches('POST', '/institutions/cards', response);
    const card = response.body.data;
    for (const field of CARD_FIELDS) expect(card, field).toHaveProperty(field);
    expect(card._id).toBe(card.id);
    expect(card.institution).toBe(sandbox.institutionId);
    expect(card.cardProgram).toBe(sandbox.cardProgramId);
    expect(card.referenceCode).toBe(body.referenceCode);
    expect(card.pan).toMatch(/^506099\*{6}\d{4}$/);
    expect(card.pan.slice(-4)).toBe(card.lastFour);
    expect(card.bin).toBe('506099');
    expect(card.status).toBe('active');
    expect(card.enroll2FA).toBe(true);
    expect(card.printCard).toBe(true);
    expect(card.pinAttempts).toBe(0);
    expect(card.pinOffset).toEqual(expect.any(String));
    expect(card.customer.uniqueId).toEqual(expect.any(String));
    expect(card.customer.emailAddress).toBe('ada@example.com');
    expect(card.expiryYear).toBe(new Date(body.expiryDate).getUTCFullYear());
    expect(card.expiryMonth).toBe(String(new Date(body.expiryDate).getUTCMonth() + 1).padStart(2, '0'));
    // Neither the clear PAN nor the PIN ever appears in a response.
    expect(response.text).not.toMatch(/506099\d{10}/);
    expect(response.text).not.toContain('97531864');
  });

  test('issues consecutive, distinct, Luhn-valid card numbers', async () => {
    const a = await createCard(sandbox);
    const b = await createCard(sandbox);
    expect(a.id).not.toBe(b.id);
    expect(a.hash).not.toBe(b.hash);
    expect(a.lastFour === b.lastFour && a.pan === b.pan).toBe(false);
  });

  test('accepts a caller PAN when the program allows it, in range and Luhn-valid', async () => {
    const body = '50609912345678';
    const pan = `${body}9${luhnDigit(`${body}9`)}`;
    const card = await createCard(sandbox, { pan });
    expect(card.pan).toBe(`506099******${pan.slice(-4)}`);
    const duplicate = await call(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: createCardBody(sandbox, { pan }) });
    expect(duplicate.status).toBe(409);
  });

  test.each([
    ['not Luhn-valid', (pan: string) => pan.slice(0, -1) + String((Number(pan.slice(-1)) + 1) % 10)],
    ['outside the range', () => { const b = '411111111111111'; return b + luhnDigit(b); }],
    ['of the wrong length', () => { const b = '50609912345678901'; return b + luhnDigit(b); }],
  ])('rejects a caller PAN %s', async (_name, make) => {
    const base = '506099111122223';
    const pan = make(base + luhnDigit(base));
    const response = await call(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: createCardBody(sandbox, { pan }) });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('VALIDATION_ERROR');
    expect(response.body.errors[0].field).toBe('pan');
    openapi.expectMatches('POST', '/institutions/cards', response);
  });

  test('rejects a caller PAN when the program generates numbers', async () => {
    const program = await call(sandbox, 'POST', '/sandbox/card-programs', { token: sandbox.token, body: { name: 'Strict', allowRandomPan: false, panPrefix: '539983' } });
    expect(program.status).toBe(201);
    const base = '539983000011112';
    const response = await call(sandbox, 'POST', '/institutions/cards', {
      token: sandbox.token,
      body: createCardBody(sandbox, { cardProgram: program.body.data.id, pan: base + luhnDigit(base) }),
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: 'pan', message: expect.stringContaining('generates') }]);
    const generated = await createCard(sandbox, { cardProgram: program.body.data.id });
    expect(generated.pan).toMatch(/^539983\*{6}\d{4}$/);
  });

  test('a repeated referenceCode in the institution is 409 CONFLICT', async () => {
    const body = createCardBody(sandbox);
    expect((await call(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body })).status).toBe(201);
    const again = await call(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: { ...body, defaultPIN: encryptPin(sandbox, '9999') } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ statusCode: 409, error: 'CONFLICT' });
    expect(again.body.errors[0].field).toBe('referenceCode');
    openapi.expectMatches('POST', '/institutions/cards', again);
  });

  test('an unknown card program is 404', async () => {
    const response = await call(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: createCardBody(sandbox, { cardProgram: 'ffffffffffffffffffffffff' }) });
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('NOT_FOUND');
  });

  test.each([
    ['a missing top-level field', (b: AnyJson) => { delete b.embossingName; }, 'embossingName', 'is required'],
    ['a missing nested field', (b: AnyJson) => { delete b.customer.emailAddress; }, 'customer.emailAddress', 'is required'],
    ['an extra field', (b: AnyJson) => { b.nickname = 'x'; }, 'nickname', 'is not an allowed field'],
    ['an extra nested field', (b: AnyJson) => { b.account.iban = 'x'; }, 'account.iban', 'is not an allowed field'],
    ['a wrong-typed boolean', (b: AnyJson) => { b.pinEnabled = 'yes'; }, 'pinEnabled', 'must be a boolean'],
    ['a number where a string belongs', (b: AnyJson) => { b.referenceCode = 42; }, 'referenceCode', 'must be a string'],
    ['a bad email', (b: AnyJson) => { b.customer.emailAddress = 'not-an-email'; }, 'customer.emailAddress', 'must be a valid email'],
    ['a bad date-time', (b: AnyJson) => { b.expiryDate = 'next year'; }, 'expiryDate', 'must be a valid date-time'],
    ['an unknown status', (b: AnyJson) => { b.status = 'frozen'; }, 'status', 'is not one of the allowed values'],
    ['non-hex encryptedData', (b: AnyJson) => { b.defaultPIN.encryptedData = 'zz'; }, 'defaultPIN.encryptedData', expect.stringContaining('must match')],
    ['a missing PIN block field', (b: AnyJson) => { delete b.defaultPIN.publicKeyFingerprint; }, 'defaultPIN.publicKeyFingerprint', 'is required'],
  ])('rejects %s with a field-level 400', async (_name, mutate, field, message) => {
    const body = createCardBody(sandbox);
    mutate(body);
    const response = await call(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
    expect(response.body.errors).toContainEqual({ field, message });
    expect(response.body.message).toContain(field);
    openapi.expectMatches('POST', '/institutions/cards', response);
  });

  test('expiryDate before startDate, or beyond the program maxExpiry, is a 400', async () => {
    const now = new Date();
    const before = await call(sandbox, 'POST', '/institutions/cards', {
      token: sandbox.token, body: createCardBody(sandbox, { expiryDate: new Date(now.getTime() - 86_400_000).toISOString() }),
    });
    expect(before.status).toBe(400);
    expect(before.body.errors[0].field).toBe('expiryDate');
    const far = await call(sandbox, 'POST', '/institutions/cards', {
      token: sandbox.token, body: createCardBody(sandbox, { expiryDate: new Date(Date.UTC(now.getUTCFullYear() + 10, 0, 1)).toISOString() }),
    });
    expect(far.status).toBe(400);
    expect(far.body.errors[0].field).toBe('expiryDate');
  });

  describe('PIN blocks', () => {
    test('a wrong key fingerprint is 400 UNKNOWN_KEY', async () => {
      const response = await call(sandbox, 'POST', '/institutions/cards', {
        token: sandbox.token, body: createCardBody(sandbox, { defaultPIN: encryptPin(sandbox, '1234', 'ab'.repeat(32)) }),
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('UNKNOWN_KEY');
      openapi.expectMatches('POST', '/institutions/cards', response);
    });

    test.each([
      ['ciphertext that does not decrypt', () => ({ encryptedData: 'ab'.repeat(256), publicKeyFingerprint: sandbox.pinKeyFingerprint })],
      ['an odd-length hex ciphertext', () => ({ encryptedData: 'abc', publicKeyFingerprint: sandbox.pinKeyFingerprint })],
      ['an ISO format 0 block', () => encryptClearBlock(sandbox, Buffer.from('041234ffffffffff', 'hex'))],
      ['a PIN of 3 digits', () => encryptClearBlock(sandbox, Buffer.from('13123fffffffffff', 'hex'))],
      ['a PIN of 13 digits', () => encryptClearBlock(sandbox, Buffer.from('1d12345678901234', 'hex'))],
      ['a PIN with a non-digit', () => encryptClearBlock(sandbox, Buffer.from('1412a4ffffffffff', 'hex'))],
      ['a block of 9 bytes', () => encryptClearBlock(sandbox, Buffer.from('141234ffffffffffff', 'hex'))],
    ])('%s is 400 INVALID_PIN_BLOCK', async (_name, block) => {
      const response = await call(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: createCardBody(sandbox, { defaultPIN: block() }) });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('INVALID_PIN_BLOCK');
      expect(response.body.errors[0].field).toBe('defaultPIN.encryptedData');
    });

    test('12-digit PINs and uppercase fingerprints are accepted', async () => {
      const block = encryptPin(sandbox, '123456789012');
      await createCard(sandbox, { defaultPIN: { ...block, publicKeyFingerprint: block.publicKeyFingerprint.toUpperCase() } });
    });
  });
});

describe('GET /institutions/cards', () => {
  let other: Sandbox;
  let ids: string[];

  beforeAll(async () => {
    // A fresh institution, so the list holds exactly the cards made here.
    const created = await call(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Listing Bank' } });
    other = { ...sandbox, token: created.body.data.token, cardProgramId: created.body.data.cardProgramId, institutionId: created.body.data.institutionId };
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await createCard(other, { embossingName: i === 2 ? 'GRACE HOPPER' : 'ADA LOVELACE' }, other.token)).id);
  });

  test('lists newest first with the program expanded (without ledger accounts) and pagination', async () => {
    const response = await call(sandbox, 'GET', '/institutions/cards', { token: other.token });
    expect(response.status).toBe(200);
    openapi.expectMatches('GET', '/institutions/cards', response);
    expect(response.body.data.map((c: Card) => c.id)).toEqual([...ids].reverse());
    expect(response.body.pagination).toEqual({ page: 1, limit: 20, total: 5, pages: 1 });
    const program = response.body.data[0].cardProgram;
    expect(program).toMatchObject({ id: other.cardProgramId, panPrefix: expect.stringMatching(/^\d{6}$/), channels: { pos: { enabled: true } } });
    // Its own BIN: the seeded institution's is 506099.
    expect(program.panPrefix).not.toBe('506099');
    expect(program).not.toHaveProperty('losesAccount');
    expect(program.webHookConfig).toEqual(expect.objectContaining({ url: expect.any(String) }));
    for (const field of CARD_FIELDS) expect(response.body.data[0], field).toHaveProperty(field);
  });

  test('pages are stable and cover every card once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const response = await call(sandbox, 'GET', `/institutions/cards?limit=2&page=${page}`, { token: other.token });
      expect(response.status).toBe(200);
      expect(response.body.pagination).toEqual({ page, limit: 2, total: 5, pages: 3 });
      seen.push(...response.body.data.map((c: Card) => c.id));
    }
    expect(seen).toEqual([...ids].reverse());
    const beyond = await call(sandbox, 'GET', '/institutions/cards?limit=2&page=9', { token: other.token });
    expect(beyond.body.data).toEqual([]);
  });

  test('search and cardId filter', async () => {
    const search = await call(sandbox, 'GET', '/institutions/cards?search=grace', { token: other.token });
    expect(search.body.data.map((c: Card) => c.id)).toEqual([ids[2]]);
    const byId = await call(sandbox, 'GET', `/institutions/cards?cardId=${ids[1]}`, { token: other.token });
    expect(byId.body.data.map((c: Card) => c.id)).toEqual([ids[1]]);
    expect(byId.body.pagination.total).toBe(1);
    const none = await call(sandbox, 'GET', '/institutions/cards?search=%25', { token: other.token });
    expect(none.body.data).toEqual([]);
  });

  test.each(['limit=0', 'limit=101', 'page=0', 'page=-1', 'limit=abc', 'page=1.5', 'sort=asc'])('%s is a 400, not clamped', async (query) => {
    const response = await call(sandbox, 'GET', `/institutions/cards?${query}`, { token: other.token });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('VALIDATION_ERROR');
    expect(response.body.errors[0].field).toBe(query.split('=')[0]);
    openapi.expectMatches('GET', '/institutions/cards', response);
  });

  test('a page of cards from two programs expands each card\'s own program, byte for byte beside non-ASCII text', async () => {
    const created = await call(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Two Programs Bank' } });
    const bank = { ...sandbox, token: created.body.data.token, cardProgramId: created.body.data.cardProgramId };
    const second = await call(sandbox, 'POST', '/sandbox/card-programs', { token: bank.token, body: { name: 'Zweite Karte ü', panPrefix: '539984' } });
    expect(second.status).toBe(201);
    const customer = {
      firstName: 'Adé 😀', middleName: '"cardProgram":"x"', lastName: 'Łovelace', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678',
      address: { line1: '1 Marina', line2: '', city: 'Lagos', state: 'Lagos', country: 'NG', postalCode: '100001' },
    };
    const programOf: Record<string, string> = {};
    for (let i = 0; i < 4; i++) {
      const cardProgram = i % 2 ? second.body.data.id : bank.cardProgramId;
      const card = await createCard(bank, { cardProgram, customer, embossingName: 'ADÉ ŁOVELACE' }, bank.token);
      programOf[card.id] = cardProgram;
    }
    const before = await call(sandbox, 'GET', '/institutions/cards', { token: bank.token });
    expect(before.body.data.map((c: AnyJson) => c.cardProgram.name)).toContain('Zweite Karte ü');
    // A program written after the page was answered shows on the next page.
    const renamed = await call(sandbox, 'PUT', `/sandbox/card-programs/${second.body.data.id}`, { token: bank.token, body: { name: 'Zweite Karte ö' } });
    expect(renamed.status).toBe(200);

    const response = await call(sandbox, 'GET', '/institutions/cards', { token: bank.token });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
    expect(response.body.data).toHaveLength(4);
    for (const card of response.body.data) {
      expect(card.cardProgram.id).toBe(programOf[card.id]);
      expect(card.cardProgram.name).toBe(programOf[card.id] === bank.cardProgramId ? 'Sandbox Virtual Debit' : 'Zweite Karte ö');
      expect(card.cardProgram).not.toHaveProperty('feeAccount');
      expect(card.customer).toMatchObject({ firstName: 'Adé 😀', middleName: '"cardProgram":"x"', lastName: 'Łovelace' });
      expect(card.embossingName).toBe('ADÉ ŁOVELACE');
    }
  });

  test('a page asked for again shows every write since: a new card, a changed card, and nothing of another institution', async () => {
    const created = await call(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Polling Bank' } });
    const bank = { ...sandbox, token: created.body.data.token, cardProgramId: created.body.data.cardProgramId };
    const first = await createCard(bank, {}, bank.token);
    const page = () => call(sandbox, 'GET', '/institutions/cards?limit=5', { token: bank.token });
    const once = await page();
    expect((await page()).text).toBe(once.text);
    expect(once.body.data.map((c: Card) => c.id)).toEqual([first.id]);

    const second = await createCard(bank, {}, bank.token);
    const afterCreate = await page();
    expect(afterCreate.body.data.map((c: Card) => c.id)).toEqual([second.id, first.id]);
    expect(afterCreate.body.pagination.total).toBe(2);

    expect((await call(sandbox, 'GET', `/institutions/cards/${first.id}/deactivate`, { token: bank.token })).status).toBe(200);
    expect((await page()).body.data.find((c: Card) => c.id === first.id).status).toBe('suspended');

    // The same query from another institution gets that institution's cards.
    const others = await call(sandbox, 'GET', '/institutions/cards?limit=5', { token: other.token });
    expect(others.body.data.map((c: Card) => c.id)).toEqual([...ids].reverse());
  });

  test('every page is read from the database: a page asked for again is queried again', async () => {
    await createCard(sandbox, {}, sandbox.token);
    const store = sandbox.deps.store.cards;
    const list = store.list.bind(store);
    let queries = 0;
    store.list = (query) => { queries++; return list(query); };
    try {
      const first = await call(sandbox, 'GET', '/institutions/cards', { token: sandbox.token });
      const again = await call(sandbox, 'GET', '/institutions/cards', { token: sandbox.token });
      expect(again.text).toBe(first.text);
      expect(queries).toBe(2);
    } finally {
      store.list = list;
    }
  });

  test('totals and programs follow every write: new card, changed card, program, institution, filters', async () => {
    const own = await startSandbox({ port: 0, memory: true });
    try {
      const created = await call(own, 'POST', '/sandbox/institutions', { body: { name: 'Second Bank' } });
      const second = { ...own, token: created.body.data.token, cardProgramId: created.body.data.cardProgramId };
      const list = async (query: string, token = own.token) => {
        const response = await call(own, 'GET', `/institutions/cards?${query}`, { token });
        expect(response.status).toBe(200);
        openapi.expectMatches('GET', '/institutions/cards', response);
        return response.body;
      };

      const first = await createCard(own, { embossingName: 'GRACE HOPPER' }, own.token);
      expect((await list('limit=1')).pagination.total).toBe(1);
      expect((await list('limit=1&page=2')).pagination.total).toBe(1);

      // A new card: counted again.
      const newer = await createCard(own, {}, own.token);
      expect((await list('limit=1&page=2')).pagination).toEqual({ page: 2, limit: 1, total: 2, pages: 2 });
      // Another institution asking the same query gets its own total, then keeps it.
      expect((await list('limit=1', second.token)).pagination.total).toBe(0);
      await createCard(second, {}, second.token);
      expect((await list('limit=1', second.token)).pagination.total).toBe(1);
      expect((await list('limit=1')).pagination.total).toBe(2);

      // The search filter has its own total, and a changed card moves it.
      expect((await list('search=hopper')).pagination.total).toBe(1);
      expect((await list('search=hopper&page=2')).pagination.total).toBe(1);
      const customer = {
        firstName: 'Grace', middleName: 'B', lastName: 'Hopper', emailAddress: 'grace@example.com', phoneNumber: '+15550100',
        dateOfBirth: '1906-12-09T00:00:00.000Z',
        address: { line1: '1 Navy Way', line2: '', city: 'Arlington', state: 'VA', country: 'US', postalCode: '22201' },
      };
      expect((await call(own, 'PUT', `/institutions/cards/${newer.id}/customer`, { token: own.token, body: customer })).status).toBe(200);
      expect((await list('search=hopper')).pagination.total).toBe(2);
      expect((await list(`search=hopper&cardId=${first.id}`)).data.map((c: Card) => c.id)).toEqual([first.id]);
      expect((await list(`cardId=${newer.id}`)).pagination.total).toBe(1);
      expect((await list('cardId=ffffffffffffffffffffffff')).pagination.total).toBe(0);

      // A changed card and a changed program show on the next page.
      expect((await call(own, 'GET', `/institutions/cards/${first.id}/deactivate`, { token: own.token })).status).toBe(200);
      expect((await list('limit=5')).data.find((c: Card) => c.id === first.id).status).toBe('suspended');
      const renamed = await call(own, 'PUT', `/sandbox/card-programs/${own.cardProgramId}`, { token: own.token, body: { name: 'Renamed Program' } });
      expect(renamed.status).toBe(200);
      expect((await list('limit=5')).data.map((c: AnyJson) => c.cardProgram.name)).toEqual(['Renamed Program', 'Renamed Program']);
      expect((await list('limit=5', second.token)).data[0].cardProgram.name).not.toBe('Renamed Program');
    } finally {
      await own.close();
    }
  });

  test('a write by another connection to the database file shows on the next page', async () => {
    const dir = tempDir('cardctl-cards-list-');
    const file = join(dir.path, 'sandbox.db');
    const onFile = await startSandbox({ port: 0, dbFile: file });
    const elsewhere = openStore({ file });
    try {
      const card = await createCard(onFile, {}, onFile.token);
      const page = () => call(onFile, 'GET', '/institutions/cards', { token: onFile.token });
      expect((await page()).body.data[0].embossingName).toBe('ADA LOVELACE');
      const stored = elsewhere.cards.get(onFile.institutionId, card.id)!;
      elsewhere.transaction(() => elsewhere.cards.update({ ...stored.card, embossingName: 'GRACE HOPPER' }, stored.pinHash));
      expect((await page()).body.data[0].embossingName).toBe('GRACE HOPPER');
    } finally {
      elsewhere.close();
      await onFile.close();
      dir.remove();
    }
  });

  test('limit=100 is allowed', async () => {
    const response = await call(sandbox, 'GET', '/institutions/cards?limit=100', { token: other.token });
    expect(response.status).toBe(200);
    expect(response.body.pagination.limit).toBe(100);
  });
});

describe('card changes', () => {
  test('renew: future month within maxExpiry, new seqNumber, active, program expanded, message says replacement', async () => {
    const card = await createCard(sandbox, { status: 'suspended' });
    const expiration = monthsFromNow(24);
    const response = await call(sandbox, 'PUT', `/institutions/cards/${card.id}/renew`, { token: sandbox.token, body: { expiration, renewReason: 'RENEW' } });
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
    const response = await call(sandbox, 'PUT', `/institutions/cards/${card.id}/renew`, { token: sandbox.token, body: { expiration: expiration(), renewReason: 'RENEW' } });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe(field);
  });

  test('renew without renewReason is a 400; unknown card is a 404', async () => {
    const card = await createCard(sandbox);
    const missing = await call(sandbox, 'PUT', `/institutions/cards/${card.id}/renew`, { token: sandbox.token, body: { expiration: monthsFromNow(12) } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toContainEqual({ field: 'renewReason', message: 'is required' });
    const unknown = await call(sandbox, 'PUT', '/institutions/cards/ffffffffffffffffffffffff/renew', { token: sandbox.token, body: { expiration: monthsFromNow(12), renewReason: 'RENEW' } });
    expect(unknown.status).toBe(404);
    openapi.expectMatches('PUT', '/institutions/cards/{cardId}/renew', unknown);
  });

  test('PIN change checks the old PIN, counts wrong attempts, locks after 3, and reset unlocks', async () => {
    const card = await createCard(sandbox);
    const path = `/institutions/cards/pin/${card.id}/change`;
    const ok = await call(sandbox, 'PUT', path, { token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '1234'), newPIN: encryptPin(sandbox, '4321') } });
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
    expect(locked.body.error).toBe('PIN_LOCKED');

    const list = await call(sandbox, 'GET', `/institutions/cards?cardId=${card.id}`, { token: sandbox.token });
    expect(list.body.data[0].pinAttempts).toBe(3);

    const reset = await call(sandbox, 'PUT', `/institutions/cards/pin/${card.id}/reset`, { token: sandbox.token, body: { newPIN: encryptPin(sandbox, '8642') } });
    expect(reset.status).toBe(200);
    openapi.expectMatches('PUT', '/institutions/cards/pin/{cardId}/reset', reset);
    expect(reset.body.data.pinAttempts).toBe(0);

    const oldAfterReset = await call(sandbox, 'PUT', path, { token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '4321'), newPIN: encryptPin(sandbox, '1111') } });
    expect(oldAfterReset.status).toBe(422);
    const newAfterReset = await call(sandbox, 'PUT', path, { token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '8642'), newPIN: encryptPin(sandbox, '1111') } });
    expect(newAfterReset.status).toBe(200);
    expect(newAfterReset.body.data.pinAttempts).toBe(0);
  });

  test('PIN change and reset reject bad blocks, missing fields and unknown cards', async () => {
    const card = await createCard(sandbox);
    const badKey = await call(sandbox, 'PUT', `/institutions/cards/pin/${card.id}/change`, {
      token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '1234'), newPIN: encryptPin(sandbox, '5555', '00'.repeat(32)) },
    });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error).toBe('UNKNOWN_KEY');
    const missing = await call(sandbox, 'PUT', `/institutions/cards/pin/${card.id}/change`, { token: sandbox.token, body: { newPIN: encryptPin(sandbox, '5555') } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toContainEqual({ field: 'oldPIN', message: 'is required' });
    const badBlock = await call(sandbox, 'PUT', `/institutions/cards/pin/${card.id}/reset`, {
      token: sandbox.token, body: { newPIN: encryptClearBlock(sandbox, Buffer.from('0412340000000000', 'hex')) },
    });
    expect(badBlock.status).toBe(400);
    expect(badBlock.body.error).toBe('INVALID_PIN_BLOCK');
    const unknown = await call(sandbox, 'PUT', '/institutions/cards/pin/nope/reset', { token: sandbox.token, body: { newPIN: encryptPin(sandbox, '5555') } });
    expect(unknown.status).toBe(404);
    // A failed block leaves the attempt counter alone.
    const list = await call(sandbox, 'GET', `/institutions/cards?cardId=${card.id}`, { token: sandbox.token });
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
    const response = await call(sandbox, 'PUT', `/institutions/cards/${card.id}/customer`, { token: sandbox.token, body: customer });
    expect(response.status).toBe(200);
    openapi.expectMatches('PUT', '/institutions/cards/{cardId}/customer', response);
    expect(response.body.data.customer).toEqual({ ...customer, uniqueId: card.customer.uniqueId, honorific: '', gender: '' });
    expect(response.body.data.updatedAt > card.updatedAt).toBe(true);
    const search = await call(sandbox, 'GET', '/institutions/cards?search=hopper', { token: sandbox.token });
    expect(search.body.data.map((c: Card) => c.id)).toContain(card.id);

    const partial = await call(sandbox, 'PUT', `/institutions/cards/${card.id}/customer`, { token: sandbox.token, body: { firstName: 'X' } });
    expect(partial.status).toBe(400);
    expect(partial.body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['lastName', 'emailAddress', 'address']));
    const badAddress = await call(sandbox, 'PUT', `/institutions/cards/${card.id}/customer`, { token: sandbox.token, body: { ...customer, address: { line1: 1 } } });
    expect(badAddress.status).toBe(400);
    expect(badAddress.body.errors).toContainEqual({ field: 'address.line1', message: 'must be a string' });
  });

  test('deactivate suspends, activate reactivates (both GET), expired cards cannot be activated', async () => {
    const card = await createCard(sandbox);
    const off = await call(sandbox, 'GET', `/institutions/cards/${card.id}/deactivate`, { token: sandbox.token });
    expect(off.status).toBe(200);
    openapi.expectMatches('GET', '/institutions/cards/{cardId}/deactivate', off);
    expect(off.body.data.status).toBe('suspended');
    const on = await call(sandbox, 'GET', `/institutions/cards/${card.id}/activate`, { token: sandbox.token });
    expect(on.status).toBe(200);
    openapi.expectMatches('GET', '/institutions/cards/{cardId}/activate', on);
    expect(on.body.data.status).toBe('active');

    const expired = await createCard(sandbox, { status: 'expired' });
    const refused = await call(sandbox, 'GET', `/institutions/cards/${expired.id}/activate`, { token: sandbox.token });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('VALIDATION_ERROR');
    openapi.expectMatches('GET', '/institutions/cards/{cardId}/activate', refused);
    expect((await call(sandbox, 'GET', '/institutions/cards/nope/deactivate', { token: sandbox.token })).status).toBe(404);
    expect((await call(sandbox, 'POST', `/institutions/cards/${card.id}/activate`, { token: sandbox.token })).status).toBe(404);
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
    expect(extra.body.errors).toContainEqual({ field: 'reason', message: 'is not an allowed field' });
    const body: Record<string, unknown> = valid();
    delete body[required];
    const missing = await call(sandbox, method, path(card.id), { token: sandbox.token, body });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toContainEqual({ field: required, message: 'is required' });
    const wrongType = await call(sandbox, method, path(card.id), { token: sandbox.token, body: { ...valid(), [required]: 42 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors.map((e: { field: string }) => e.field)).toContain(required);
    // Nothing changed on the card.
    const after = await call(sandbox, 'GET', `/institutions/cards?cardId=${card.id}`, { token: sandbox.token });
    expect(after.body.data[0].__v).toBe(0);
  });
});

describe('card program changes merge nested objects member by member', () => {
  type Program = CardProgram;
  const newProgram = async (): Promise<Program> => {
    const created = await call(sandbox, 'POST', '/sandbox/card-programs', { token: sandbox.token, body: { name: 'Merge' } });
    expect(created.status, created.text).toBe(201);
    return created.body.data;
  };
  const update = (id: string, body: unknown) => call(sandbox, 'PUT', `/sandbox/card-programs/${id}`, { token: sandbox.token, body });

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
    const programs = await call(sandbox, 'GET', '/sandbox/card-programs', { token: sandbox.token });
    expect(programs.body.data.find((p: Program) => p.id === before.id)).toEqual(before);
  });

  test('the schema says that a limit of 0 is no limit', async () => {
    const doc = (await call(sandbox, 'GET', '/openapi.json')).body;
    const text = JSON.stringify(doc);
    expect(text).toContain('transactions per card, channel and UTC day; 0: no limit');
    expect(text).toContain('major units of the card currency per card, channel and UTC day; 0: no limit');
  });
});
