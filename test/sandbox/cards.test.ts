import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/sandbox/store/index.js';
import { tempDir } from '../helpers/cli.js';
import { call, createCard, createCardBody, encryptClearBlock, encryptPin, OpenApiChecker, startTestSandbox, type Sandbox, errorOf, fieldErrorsOf, type DataEnvelope, type ListDataEnvelope, expanded } from './helpers.js';
import type { Card, CardProgram, SandboxInstitutionCredentials } from '../../src/api/schemas.js';
import { present, without, withValue } from '../helpers/json.js';

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
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body });
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
    const duplicate = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: createCardBody(sandbox, { pan }) });
    expect(duplicate.status).toBe(409);
  });

  test.each([
    ['not Luhn-valid', (pan: string) => pan.slice(0, -1) + String((Number(pan.slice(-1)) + 1) % 10)],
    ['outside the range', () => { const b = '411111111111111'; return b + luhnDigit(b); }],
    ['of the wrong length', () => { const b = '50609912345678901'; return b + luhnDigit(b); }],
  ])('rejects a caller PAN %s', async (_name, make) => {
    const base = '506099111122223';
    const pan = make(base + luhnDigit(base));
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: createCardBody(sandbox, { pan }) });
    expect(response.status).toBe(400);
    expect(errorOf(response).error).toBe('VALIDATION_ERROR');
    expect(fieldErrorsOf(response)[0].field).toBe('pan');
    openapi.expectMatches('POST', '/institutions/cards', response);
  });

  test('rejects a caller PAN when the program generates numbers', async () => {
    const program = await call<DataEnvelope<CardProgram>>(sandbox, 'POST', '/sandbox/card-programs', { token: sandbox.token, body: { name: 'Strict', allowRandomPan: false, panPrefix: '539983' } });
    expect(program.status).toBe(201);
    const base = '539983000011112';
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', {
      token: sandbox.token,
      body: createCardBody(sandbox, { cardProgram: program.body.data.id, pan: base + luhnDigit(base) }),
    });
    expect(response.status).toBe(400);
    expect(fieldErrorsOf(response)).toEqual([{ field: 'pan', message: expect.stringContaining('generates') }]);
    const generated = await createCard(sandbox, { cardProgram: program.body.data.id });
    expect(generated.pan).toMatch(/^539983\*{6}\d{4}$/);
  });

  test('a repeated referenceCode in the institution is 409 CONFLICT', async () => {
    const body = createCardBody(sandbox);
    expect((await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body })).status).toBe(201);
    const again = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: { ...body, defaultPIN: encryptPin(sandbox, '9999') } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ statusCode: 409, error: 'CONFLICT' });
    expect(fieldErrorsOf(again)[0].field).toBe('referenceCode');
    openapi.expectMatches('POST', '/institutions/cards', again);
  });

  test('an unknown card program is 404', async () => {
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: createCardBody(sandbox, { cardProgram: 'ffffffffffffffffffffffff' }) });
    expect(response.status).toBe(404);
    expect(errorOf(response).error).toBe('NOT_FOUND');
  });

  test.each([
    ['a missing top-level field', without('embossingName'), 'embossingName', 'is required'],
    ['a missing nested field', without('customer.emailAddress'), 'customer.emailAddress', 'is required'],
    ['an extra field', withValue('nickname', 'x'), 'nickname', 'is not an allowed field'],
    ['an extra nested field', withValue('account.iban', 'x'), 'account.iban', 'is not an allowed field'],
    ['a wrong-typed boolean', withValue('pinEnabled', 'yes'), 'pinEnabled', 'must be a boolean'],
    ['a number where a string belongs', withValue('referenceCode', 42), 'referenceCode', 'must be a string'],
    ['a bad email', withValue('customer.emailAddress', 'not-an-email'), 'customer.emailAddress', 'must be a valid email'],
    ['a bad date-time', withValue('expiryDate', 'next year'), 'expiryDate', 'must be a valid date-time'],
    ['an unknown status', withValue('status', 'frozen'), 'status', 'is not one of the allowed values'],
    ['non-hex encryptedData', withValue('defaultPIN.encryptedData', 'zz'), 'defaultPIN.encryptedData', expect.stringContaining('must match')],
    ['a missing PIN block field', without('defaultPIN.publicKeyFingerprint'), 'defaultPIN.publicKeyFingerprint', 'is required'],
  ])('rejects %s with a field-level 400', async (_name, mutate, field, message) => {
    const body = mutate(createCardBody(sandbox));
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
    expect(fieldErrorsOf(response)).toContainEqual({ field, message });
    expect(response.body.message).toContain(field);
    openapi.expectMatches('POST', '/institutions/cards', response);
  });

  test('expiryDate before startDate, or beyond the program maxExpiry, is a 400', async () => {
    const now = new Date();
    const before = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', {
      token: sandbox.token, body: createCardBody(sandbox, { expiryDate: new Date(now.getTime() - 86_400_000).toISOString() }),
    });
    expect(before.status).toBe(400);
    expect(fieldErrorsOf(before)[0].field).toBe('expiryDate');
    const far = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', {
      token: sandbox.token, body: createCardBody(sandbox, { expiryDate: new Date(Date.UTC(now.getUTCFullYear() + 10, 0, 1)).toISOString() }),
    });
    expect(far.status).toBe(400);
    expect(fieldErrorsOf(far)[0].field).toBe('expiryDate');
  });

  describe('PIN blocks', () => {
    test('a wrong key fingerprint is 400 UNKNOWN_KEY', async () => {
      const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', {
        token: sandbox.token, body: createCardBody(sandbox, { defaultPIN: encryptPin(sandbox, '1234', 'ab'.repeat(32)) }),
      });
      expect(response.status).toBe(400);
      expect(errorOf(response).error).toBe('UNKNOWN_KEY');
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
      const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: createCardBody(sandbox, { defaultPIN: block() }) });
      expect(response.status).toBe(400);
      expect(errorOf(response).error).toBe('INVALID_PIN_BLOCK');
      expect(fieldErrorsOf(response)[0].field).toBe('defaultPIN.encryptedData');
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
    const created = await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Listing Bank' } });
    other = { ...sandbox, token: created.body.data.token, cardProgramId: created.body.data.cardProgramId, institutionId: created.body.data.institutionId };
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await createCard(other, { embossingName: i === 2 ? 'GRACE HOPPER' : 'ADA LOVELACE' }, other.token)).id);
  });

  test('lists newest first with the program expanded (without ledger accounts) and pagination', async () => {
    const response = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: other.token });
    expect(response.status).toBe(200);
    openapi.expectMatches('GET', '/institutions/cards', response);
    expect(response.body.data.map((c: Card) => c.id)).toEqual([...ids].reverse());
    expect(response.body.pagination).toEqual({ page: 1, limit: 20, total: 5, pages: 1 });
    const program = expanded(present(response.body.data[0]).cardProgram);
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
      const response = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?limit=2&page=${page}`, { token: other.token });
      expect(response.status).toBe(200);
      expect(response.body.pagination).toEqual({ page, limit: 2, total: 5, pages: 3 });
      seen.push(...response.body.data.map((c: Card) => c.id));
    }
    expect(seen).toEqual([...ids].reverse());
    const beyond = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?limit=2&page=9', { token: other.token });
    expect(beyond.body.data).toEqual([]);
  });

  test('search and cardId filter', async () => {
    const search = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?search=grace', { token: other.token });
    expect(search.body.data.map((c: Card) => c.id)).toEqual([ids[2]]);
    const byId = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${ids[1]}`, { token: other.token });
    expect(byId.body.data.map((c: Card) => c.id)).toEqual([ids[1]]);
    expect(byId.body.pagination.total).toBe(1);
    const none = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?search=%25', { token: other.token });
    expect(none.body.data).toEqual([]);
  });

  test.each(['limit=0', 'limit=101', 'page=0', 'page=-1', 'limit=abc', 'page=1.5', 'sort=asc'])('%s is a 400, not clamped', async (query) => {
    const response = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?${query}`, { token: other.token });
    expect(response.status).toBe(400);
    expect(errorOf(response).error).toBe('VALIDATION_ERROR');
    expect(fieldErrorsOf(response)[0].field).toBe(query.split('=')[0]);
    openapi.expectMatches('GET', '/institutions/cards', response);
  });

  test('a page of cards from two programs expands each card\'s own program, byte for byte beside non-ASCII text', async () => {
    const created = await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Two Programs Bank' } });
    const bank = { ...sandbox, token: created.body.data.token, cardProgramId: created.body.data.cardProgramId };
    const second = await call<DataEnvelope<CardProgram>>(sandbox, 'POST', '/sandbox/card-programs', { token: bank.token, body: { name: 'Zweite Karte ü', panPrefix: '539984' } });
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
    const before = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: bank.token });
    expect(before.body.data.map((c) => expanded(c.cardProgram).name)).toContain('Zweite Karte ü');
    // A program written after the page was answered shows on the next page.
    const renamed = await call<DataEnvelope<CardProgram>>(sandbox, 'PUT', `/sandbox/card-programs/${second.body.data.id}`, { token: bank.token, body: { name: 'Zweite Karte ö' } });
    expect(renamed.status).toBe(200);

    const response = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: bank.token });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
    expect(response.body.data).toHaveLength(4);
    for (const card of response.body.data) {
      expect(expanded(card.cardProgram).id).toBe(programOf[card.id]);
      expect(expanded(card.cardProgram).name).toBe(programOf[card.id] === bank.cardProgramId ? 'Sandbox Virtual Debit' : 'Zweite Karte ö');
      expect(card.cardProgram).not.toHaveProperty('feeAccount');
      expect(card.customer).toMatchObject({ firstName: 'Adé 😀', middleName: '"cardProgram":"x"', lastName: 'Łovelace' });
      expect(card.embossingName).toBe('ADÉ ŁOVELACE');
    }
  });

  test('a page asked for again shows every write since: a new card, a changed card, and nothing of another institution', async () => {
    const created = await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Polling Bank' } });
    const bank = { ...sandbox, token: created.body.data.token, cardProgramId: created.body.data.cardProgramId };
    const first = await createCard(bank, {}, bank.token);
    const page = () => call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?limit=5', { token: bank.token });
    const once = await page();
    expect((await page()).text).toBe(once.text);
    expect(once.body.data.map((c: Card) => c.id)).toEqual([first.id]);

    const second = await createCard(bank, {}, bank.token);
    const afterCreate = await page();
    expect(afterCreate.body.data.map((c: Card) => c.id)).toEqual([second.id, first.id]);
    expect(afterCreate.body.pagination.total).toBe(2);

    expect((await call<DataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards/${first.id}/deactivate`, { token: bank.token })).status).toBe(200);
    expect(present((await page()).body.data.find((c: Card) => c.id === first.id)).status).toBe('suspended');

    // The same query from another institution gets that institution's cards.
    const others = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?limit=5', { token: other.token });
    expect(others.body.data.map((c: Card) => c.id)).toEqual([...ids].reverse());
  });

  test('every page is read from the database: a page asked for again is queried again', async () => {
    await createCard(sandbox, {}, sandbox.token);
    const store = sandbox.deps.store.cards;
    const list = store.list.bind(store);
    let queries = 0;
    store.list = (query) => { queries++; return list(query); };
    try {
      const first = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: sandbox.token });
      const again = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: sandbox.token });
      expect(again.text).toBe(first.text);
      expect(queries).toBe(2);
    } finally {
      store.list = list;
    }
  });

  test('totals and programs follow every write: new card, changed card, program, institution, filters', async () => {
    const own = await startSandbox({ port: 0, memory: true });
    try {
      const created = await call<DataEnvelope<SandboxInstitutionCredentials>>(own, 'POST', '/sandbox/institutions', { body: { name: 'Second Bank' } });
      const second = { ...own, token: created.body.data.token, cardProgramId: created.body.data.cardProgramId };
      const list = async (query: string, token = own.token) => {
        const response = await call<ListDataEnvelope<Card>>(own, 'GET', `/institutions/cards?${query}`, { token });
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
      expect((await call<DataEnvelope<Card>>(own, 'PUT', `/institutions/cards/${newer.id}/customer`, { token: own.token, body: customer })).status).toBe(200);
      expect((await list('search=hopper')).pagination.total).toBe(2);
      expect((await list(`search=hopper&cardId=${first.id}`)).data.map((c: Card) => c.id)).toEqual([first.id]);
      expect((await list(`cardId=${newer.id}`)).pagination.total).toBe(1);
      expect((await list('cardId=ffffffffffffffffffffffff')).pagination.total).toBe(0);

      // A changed card and a changed program show on the next page.
      expect((await call<DataEnvelope<Card>>(own, 'GET', `/institutions/cards/${first.id}/deactivate`, { token: own.token })).status).toBe(200);
      expect(present((await list('limit=5')).data.find((c: Card) => c.id === first.id)).status).toBe('suspended');
      const renamed = await call<DataEnvelope<CardProgram>>(own, 'PUT', `/sandbox/card-programs/${own.cardProgramId}`, { token: own.token, body: { name: 'Renamed Program' } });
      expect(renamed.status).toBe(200);
      expect((await list('limit=5')).data.map((c) => expanded(c.cardProgram).name)).toEqual(['Renamed Program', 'Renamed Program']);
      expect(expanded(present((await list('limit=5', second.token)).data[0]).cardProgram).name).not.toBe('Renamed Program');
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
      const page = () => call<ListDataEnvelope<Card>>(onFile, 'GET', '/institutions/cards', { token: onFile.token });
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
    const response = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?limit=100', { token: other.token });
    expect(response.status).toBe(200);
    expect(response.body.pagination.limit).toBe(100);
  });
});
