// OAuth applications, institution users, card import, transactions.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Card, OAuthApplication, Transaction, CardProgram, InstitutionUser, SandboxInstitutionCredentials, SandboxUserCredentials } from '../../src/api/schemas.js';
import type { Channel } from '../../src/iso8583/codes.js';
import { invalidField } from '../../src/sandbox/errors.js';
import { call, createCard, encryptPin, OpenApiChecker, startTestSandbox, type Sandbox, errorOf, fieldErrorsOf, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { makeCertificate, type TestCertificate } from './oauth-helpers.js';
import { present, without, withValue } from '../helpers/json.js';

let sandbox: Sandbox;
let openapi: OpenApiChecker;
let certificate: TestCertificate;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  openapi = await OpenApiChecker.load(sandbox);
  certificate = makeCertificate('ledger-sync');
});
afterAll(async () => {
  await sandbox?.close();
});

describe('OAuth applications', () => {
  const base = () => ({ name: 'Ledger sync', publicKey: certificate.certificatePem, scopes: ['read:card', 'read:transaction'], grantType: 'client_credentials' });

  test('create records the certificate subject and generates a client id; list expands the institution; update by id or client id', async () => {
    const created = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', {
      token: sandbox.token, body: { ...base(), description: 'nightly', websiteUrl: 'https://ledger.example', iconUrl: 'https://ledger.example/i.png', isOfficial: true },
    });
    expect(created.status).toBe(201);
    expect(created.body.statusCode).toBe(200);
    openapi.expectMatches('POST', '/institutions/oauth/create', created);
    const application = created.body.data;
    expect(application).toMatchObject({
      institution: sandbox.institutionId, name: 'Ledger sync', description: 'nightly', isOfficial: true, isVerified: false, isDeleted: false,
      grantType: 'client_credentials', scopes: ['read:card', 'read:transaction'], redirectUri: [],
    });
    expect(application.subject).toContain('CN=ledger-sync');
    expect(application.institutionId).toMatch(/^cli_[0-9a-f]{24}$/);
    expect(application._id).toBe(application.id);

    const list = await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', '/institutions/oauth/applications', { token: sandbox.token });
    expect(list.status).toBe(200);
    openapi.expectMatches('GET', '/institutions/oauth/applications', list);
    const listed = present(list.body.data.find((a: OAuthApplication) => a.id === application.id), 'the application in the list');
    expect(listed.institution).toMatchObject({ id: sandbox.institutionId, name: 'Sandbox Bank', isApproved: true });

    const byId = await call<DataEnvelope<OAuthApplication>>(sandbox, 'PUT', `/institutions/oauth/${application.id}`, {
      token: sandbox.token, body: { name: 'Ledger sync v2', description: 'hourly', websiteUrl: 'https://ledger.example', scopes: ['*'] },
    });
    expect(byId.status).toBe(200);
    openapi.expectMatches('PUT', '/institutions/oauth/{institutionId}', byId);
    expect(byId.body.data).toMatchObject({ id: application.id, name: 'Ledger sync v2', description: 'hourly', scopes: ['*'], institution: sandbox.institutionId });
    const byClientId = await call<DataEnvelope<OAuthApplication>>(sandbox, 'PUT', `/institutions/oauth/${application.institutionId}`, {
      token: sandbox.token, body: { name: 'Ledger sync v3', description: '', websiteUrl: 'https://ledger.example', scopes: ['READ', 'WRITE'] },
    });
    expect(byClientId.status).toBe(200);
    expect(byClientId.body.data).toMatchObject({ id: application.id, name: 'Ledger sync v3', scopes: ['READ', 'WRITE'] });
    expect(byClientId.body.data.updatedAt >= byId.body.data.updatedAt).toBe(true);
  });

  test('list pages and searches, newest first', async () => {
    const other = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: {} })).body.data;
    const names = ['alpha', 'beta', 'gamma'];
    for (const name of names) {
      const response = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', { token: other.token, body: { ...base(), name } });
      expect(response.status).toBe(201);
    }
    const page = await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', '/institutions/oauth/applications?limit=2&page=1', { token: other.token });
    expect(page.body.data.map((a: OAuthApplication) => a.name)).toEqual(['gamma', 'beta']);
    expect(page.body.pagination).toEqual({ page: 1, limit: 2, total: 3, pages: 2 });
    const second = await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', '/institutions/oauth/applications?limit=2&page=2', { token: other.token });
    expect(second.body.data.map((a: OAuthApplication) => a.name)).toEqual(['alpha']);
    const search = await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', '/institutions/oauth/applications?search=BET', { token: other.token });
    expect(search.body.data.map((a: OAuthApplication) => a.name)).toEqual(['beta']);
    for (const query of ['limit=0', 'limit=101', 'page=0', 'extra=1']) {
      const bad = await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', `/institutions/oauth/applications?${query}`, { token: other.token });
      expect(bad.status, query).toBe(400);
    }
    // Another institution's application: 404 on update, absent from the list.
    const mine = (await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', '/institutions/oauth/applications', { token: sandbox.token })).body.data;
    expect(mine.map((a: OAuthApplication) => a.name)).not.toContain('gamma');
    const foreign = await call<DataEnvelope<OAuthApplication>>(sandbox, 'PUT', `/institutions/oauth/${page.body.data[0].id}`, {
      token: sandbox.token, body: { name: 'x', description: 'x', websiteUrl: 'https://x.example', scopes: ['*'] },
    });
    expect(foreign.status).toBe(404);
  });

  test.each([
    ['a public key that is not a certificate', { publicKey: '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----' }, 'publicKey'],
    ['a broken certificate', { publicKey: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }, 'publicKey'],
    ['authorization_code without redirectUri', { grantType: 'authorization_code' }, 'redirectUri'],
    ['an unknown grantType', { grantType: 'password' }, 'grantType'],
    ['a scope of the wrong form', { scopes: ['read cards'] }, 'scopes[0]'],
    ['no scopes', { scopes: [] }, 'scopes'],
    ['a redirectUri that is not a URI', { grantType: 'authorization_code', redirectUri: ['not a uri'] }, 'redirectUri[0]'],
    ['an extra field', { secret: 'x' }, 'secret'],
    ['a missing name', { name: undefined }, 'name'],
  ])('create with %s is a 400 naming the field', async (_name, change, field) => {
    const response = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', { token: sandbox.token, body: { ...base(), ...change } });
    expect(response.status).toBe(400);
    expect(errorOf(response).error).toBe('VALIDATION_ERROR');
    expect(fieldErrorsOf(response).map((e: { field: string }) => e.field)).toContain(field);
    openapi.expectMatches('POST', '/institutions/oauth/create', response);
  });

  test('authorization_code with a redirectUri is accepted', async () => {
    const response = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', {
      token: sandbox.token, body: { ...base(), grantType: 'authorization_code', redirectUri: ['https://app.example/callback'] },
    });
    expect(response.status).toBe(201);
    expect(response.body.data.redirectUri).toEqual(['https://app.example/callback']);
  });

  test('update needs every field and a known application', async () => {
    const missing = await call<DataEnvelope<OAuthApplication>>(sandbox, 'PUT', '/institutions/oauth/whatever', { token: sandbox.token, body: { name: 'x' } });
    expect(missing.status).toBe(400);
    expect(fieldErrorsOf(missing).map((e: { field: string }) => e.field).sort()).toEqual(['description', 'scopes', 'websiteUrl']);
    const unknown = await call<DataEnvelope<OAuthApplication>>(sandbox, 'PUT', '/institutions/oauth/nope', {
      token: sandbox.token, body: { name: 'x', description: 'x', websiteUrl: 'https://x.example', scopes: ['*'] },
    });
    expect(unknown.status).toBe(404);
  });
});

describe('PUT /institutions/users/{id}/update', () => {
  // Another user of the institution: the body blocks the user it updates, whose token then stops working.
  let userId: string;
  beforeAll(async () => {
    userId = (await call<DataEnvelope<SandboxUserCredentials>>(sandbox, 'POST', '/sandbox/users', { token: sandbox.token, body: {} })).body.data.userId;
  });
  const body = {
    firstName: 'Chidi', lastName: 'Okafor', emailAddress: 'chidi@bank.example', phoneNumber: '+2348030000000', status: 'active', isBlocked: true,
    roles: [{ role: 'card-ops', permissions: ['create:card', 'read:card'] }, { role: 'auditor', permissions: ['read:transaction'] }],
    embossingName: 'CHIDI OKAFOR', startDate: '2026-01-01T00:00:00.000Z', expiryDate: '2027-01-01T00:00:00.000Z', printCard: true,
  };

  test('stores details, roles and permissions and answers the updated user', async () => {
    const response = await call<DataEnvelope<InstitutionUser>>(sandbox, 'PUT', `/institutions/users/${userId}/update`, { token: sandbox.token, body });
    expect(response.status).toBe(200);
    openapi.expectMatches('PUT', '/institutions/users/{institutionUserId}/update', response);
    expect(response.body.data).toMatchObject({ ...body, id: userId, institution: sandbox.institutionId });
    const minimal = { ...body, roles: [], isBlocked: false } as Record<string, unknown>;
    for (const key of ['embossingName', 'startDate', 'expiryDate', 'printCard']) delete minimal[key];
    const again = await call<DataEnvelope<InstitutionUser>>(sandbox, 'PUT', `/institutions/users/${userId}/update`, { token: sandbox.token, body: minimal });
    expect(again.body.data).toMatchObject({ roles: [], isBlocked: false, embossingName: 'CHIDI OKAFOR', printCard: true });
  });

  test.each([
    ['roles missing', without('roles'), 'roles'],
    ['isBlocked as a string', withValue('isBlocked', 'no'), 'isBlocked'],
    ['a role without permissions', withValue('roles', [{ role: 'x' }]), 'roles[0].permissions'],
    ['a bad email', withValue('emailAddress', 'nope'), 'emailAddress'],
    ['an extra field', withValue('password', 'x'), 'password'],
  ])('%s is a 400', async (_name, mutate, field) => {
    const changed = mutate(body);
    const response = await call<DataEnvelope<InstitutionUser>>(sandbox, 'PUT', `/institutions/users/${userId}/update`, { token: sandbox.token, body: changed });
    expect(response.status).toBe(400);
    expect(fieldErrorsOf(response).map((e: { field: string }) => e.field)).toContain(field);
  });

  test('an unknown user is a 404', async () => {
    const response = await call<DataEnvelope<InstitutionUser>>(sandbox, 'PUT', '/institutions/users/nobody/update', { token: sandbox.token, body });
    expect(response.status).toBe(404);
  });
});

describe('POST /util/cards/import', () => {
  const importBody = (realId: string, overrides: Record<string, unknown> = {}) => ({
    realId, active: true, startDate: '2026-01-01', endDate: '2029-12-31', firstName: 'Bola', lastName: 'Ade', middleName: '',
    email: 'bola@example.com', address1: '2 Broad St', address2: '', city: 'Lagos', state: 'Lagos', zip: '100001', country: 'NG',
    birthDate: '1988-04-02', phone: '+2348011111111', institutionId: sandbox.institutionId,
    card: { expiration: `${new Date().getUTCFullYear() + 3}06`, serviceCode: '601', cardProduct: 'VIRTUAL', embossingName: 'BOLA ADE', defaultPIN: '4321', bin: '506099', cardState: 'ACTIVE' },
    returnSecure: false,
    ...overrides,
  });

  test('imports a card of the key\'s institution that then shows in Get Cards; the PIN is hashed and works', async () => {
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/util/cards/import', { apiKey: sandbox.apiKey, body: importBody('legacy-001') });
    expect(response.status).toBe(201);
    openapi.expectMatches('POST', '/util/cards/import', response);
    const card = response.body.data;
    expect(card).toMatchObject({ institution: sandbox.institutionId, status: 'active', embossingName: 'BOLA ADE', bin: '506099', expiryMonth: '06' });
    expect(card.customer).toMatchObject({ firstName: 'Bola', emailAddress: 'bola@example.com', address: { line1: '2 Broad St', postalCode: '100001' } });
    expect(response.text).not.toContain('defaultPIN');
    expect(card.pan).toMatch(/^506099\*{6}\d{4}$/);

    const listed = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${card.id}`, { token: sandbox.token });
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0].cardProgram).toMatchObject({ id: sandbox.cardProgramId });

    const change = await call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/pin/${card.id}/change`, {
      token: sandbox.token, body: { oldPIN: encryptPin(sandbox, '4321'), newPIN: encryptPin(sandbox, '9876') },
    });
    expect(change.status).toBe(200);
  });

  test('a repeated realId is 409; another institution is 403; inactive imports are inactive', async () => {
    expect((await call<DataEnvelope<Card>>(sandbox, 'POST', '/util/cards/import', { apiKey: sandbox.apiKey, body: importBody('legacy-002') })).status).toBe(201);
    const again = await call<DataEnvelope<Card>>(sandbox, 'POST', '/util/cards/import', { apiKey: sandbox.apiKey, body: importBody('legacy-002') });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'CONFLICT', errors: [{ field: 'realId', message: 'is already used' }] });

    const other = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: {} })).body.data;
    const foreign = await call<DataEnvelope<Card>>(sandbox, 'POST', '/util/cards/import', { apiKey: sandbox.apiKey, body: importBody('legacy-003', { institutionId: other.institutionId }) });
    expect(foreign.status).toBe(403);
    expect(errorOf(foreign).error).toBe('FORBIDDEN');
    // The other institution may use the same realId with its own key, under a BIN of its own programs.
    const base = importBody('legacy-002', { institutionId: other.institutionId });
    const ownBin = (await call<DataEnvelope<CardProgram[]>>(sandbox, 'GET', '/sandbox/card-programs', { token: other.token })).body.data[0].panPrefix;
    const theirs = await call<DataEnvelope<Card>>(sandbox, 'POST', '/util/cards/import', { apiKey: other.apiKey, body: { ...base, card: { ...base.card, bin: ownBin } } });
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.body.data.bin).toBe(ownBin);

    const inactive = await call<DataEnvelope<Card>>(sandbox, 'POST', '/util/cards/import', { apiKey: sandbox.apiKey, body: importBody('legacy-004', { active: false }) });
    expect(inactive.body.data.status).toBe('inactive');
  });

  test.each([
    ['a missing field', without('email'), 'email'],
    ['a nested missing field', without('card.bin'), 'card.bin'],
    ['a bad date', withValue('birthDate', '02/04/1988'), 'birthDate'],
    ['a bad expiration', withValue('card.expiration', '2029-06'), 'card.expiration'],
    ['a short PIN', withValue('card.defaultPIN', '12'), 'card.defaultPIN'],
    ['active as a string', withValue('active', 'true'), 'active'],
    ['an extra field', withValue('pan', '5060990000000000'), 'pan'],
  ])('%s is a 400', async (_name, mutate, field) => {
    const body = mutate(importBody(`bad-${field}`));
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/util/cards/import', { apiKey: sandbox.apiKey, body });
    expect(response.status).toBe(400);
    expect(fieldErrorsOf(response).map((e: { field: string }) => e.field)).toContain(field);
    expect(response.text).not.toContain('4321');
  });
});

describe('GET /institutions/transactions', () => {
  let cardA: Card;
  let cardB: Card;
  const ids: string[] = [];

  function record(id: string, card: Card, fields: Partial<Transaction>, createdAt: string): Transaction {
    const institution = sandbox.deps.store.institutions.get(sandbox.institutionId)!;
    const hop = (direction: 'inbound' | 'outbound', description: string) => ({ timestamp: createdAt, direction, description });
    return {
      _id: id, id, card, institution, mti: '0200', stan: '000001', rrn: '000000000001', processingCode: '000000', terminalId: 'T0000001',
      merchantId: 'M0000001', correlationId: id, messageType: 'financial', amount: 1500, merchantFeeAmount: 0, transactionAmount: 1500,
      amounts: { amount: '000000150000', currency: '566' }, dates: { transmission: '1122142600', local: '142600', expiration: '2912' },
      cardData: { pan: card.pan, track2: '', _id: card.id }, tppData: null, nestedFields: null, metadata: null, additionaldata: null,
      transactionType: null, transactionAccount: null, reversed: false, reversalId: '', originalMessage: { 0: '0200' }, response: { 0: '0210', 39: '00' },
      responseCode: '00',
      timestamps: {
        switchToService: hop('inbound', 'switch to service'), serviceToInstitution: hop('outbound', 'service to institution'),
        institutionToService: hop('inbound', 'institution to service'), serviceToSwitch: hop('outbound', 'service to switch'),
      },
      isDeleted: false, transactionStatus: 'completed',
      transactionChannel: {
        channelType: 'pos', detailedChannelType: 'pos', entryMode: '051', posConditionCode: '00', serviceCode: '601', posDataCode: '',
        isCardPresent: true, isOnline: true, isPhysical: true, isAtm: false, timestamp: createdAt,
      },
      accounts: { account1: '0123456789' }, posData: { capabilities: '' }, duration: 12, createdAt, updatedAt: createdAt, __v: 0,
      ...fields,
    } as Transaction;
  }

  beforeAll(async () => {
    cardA = await createCard(sandbox);
    cardB = await createCard(sandbox);
    await call<DataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards/${cardB.id}/deactivate`, { token: sandbox.token });
    const store = sandbox.deps.store;
    const day = '2026-11-22';
    const rows: Array<[Card, Partial<Transaction>, Channel]> = [
      [cardA, { merchantId: 'M1', terminalId: 'T1', transactionStatus: 'completed', stan: '000001', rrn: 'R00000000001' }, 'pos'],
      [cardA, { merchantId: 'M1', terminalId: 'T2', transactionStatus: 'pending', mti: '0100', stan: '000002', rrn: 'R00000000002' }, 'pos'],
      [cardB, { merchantId: 'M2', terminalId: 'T1', transactionStatus: 'failed', responseCode: '96', stan: '000003', rrn: 'R00000000003' }, 'atm'],
      [cardA, { merchantId: 'M2', terminalId: 'T2', transactionStatus: 'completed', stan: '000004', rrn: 'R00000000004' }, 'web'],
    ];
    rows.forEach(([card, fields, channel], i) => {
      const id = `tx${String(i).padStart(22, '0')}`;
      ids.push(id);
      const createdAt = new Date(Date.UTC(2026, 10, 22, 10, 0, i)).toISOString();
      const state = fields.transactionStatus === 'failed' ? 'declined' : 'approved';
      store.transaction(() => store.transactions.insert(record(id, card, fields, createdAt), { channel, amountMinor: 150000, day, state, kind: 'authorization', flow: 'purchase', currency: '566' }));
    });
  });

  test('lists newest first, every field, with pagination', async () => {
    const response = await call<ListDataEnvelope<Transaction>>(sandbox, 'GET', '/institutions/transactions', { token: sandbox.token });
    expect(response.status).toBe(200);
    openapi.expectMatches('GET', '/institutions/transactions', response);
    expect(response.body.data.map((t: Transaction) => t.id)).toEqual([...ids].reverse());
    expect(response.body.pagination).toEqual({ page: 1, limit: 20, total: 4, pages: 1 });
    const page = await call<ListDataEnvelope<Transaction>>(sandbox, 'GET', '/institutions/transactions?page=2&limit=3', { token: sandbox.token });
    expect(page.body.data.map((t: Transaction) => t.id)).toEqual([ids[0]]);
  });

  test.each([
    ['merchantId=M1', [1, 0]],
    ['terminalId=T1', [2, 0]],
    ['transactionStatus=completed', [3, 0]],
    ['transactionStatus=failed', [2]],
    ['cardStatus=suspended', [2]],
    ['cardStatus=active&merchantId=M2', [3]],
    ['merchantId=nobody', []],
  ])('filter %s', async (query, expected) => {
    const response = await call<ListDataEnvelope<Transaction>>(sandbox, 'GET', `/institutions/transactions?${query}`, { token: sandbox.token });
    expect(response.status).toBe(200);
    expect(response.body.data.map((t: Transaction) => t.id)).toEqual(expected.map((i) => ids[i]));
    expect(response.body.pagination.total).toBe(expected.length);
  });

  test.each(['page=0', 'limit=0', 'limit=101', 'cardStatus=frozen', 'transactionStatus=done', 'amount=5'])('%s is a 400', async (query) => {
    const response = await call<ListDataEnvelope<Transaction>>(sandbox, 'GET', `/institutions/transactions?${query}`, { token: sandbox.token });
    expect(response.status).toBe(400);
    expect(errorOf(response).error).toBe('VALIDATION_ERROR');
    openapi.expectMatches('GET', '/institutions/transactions', response);
  });

  test("other institutions see none of them", async () => {
    const other = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: {} })).body.data;
    const response = await call<ListDataEnvelope<Transaction>>(sandbox, 'GET', '/institutions/transactions', { token: other.token });
    expect(response.body.data).toEqual([]);
  });

  test('store: findByStanRrn, dailyUsage, and a change of state only from the state it was read in', () => {
    const transactions = sandbox.deps.store.transactions;
    const counted = ['awaiting', 'approved', 'reversing'];
    expect(transactions.findByStanRrn(sandbox.institutionId, '000002', 'R00000000002')?.id).toBe(ids[1]);
    expect(transactions.findByStanRrn('someone-else', '000002', 'R00000000002')).toBeUndefined();
    // Approved ones count; declined ones do not; per channel and day.
    expect(transactions.dailyUsage(cardA.id, 'pos', '2026-11-22', '566', counted)).toEqual({ count: 2, amountMinor: 300000 });
    expect(transactions.dailyUsage(cardA.id, 'web', '2026-11-22', '566', counted)).toEqual({ count: 1, amountMinor: 150000 });
    expect(transactions.dailyUsage(cardB.id, 'atm', '2026-11-22', '566', counted)).toEqual({ count: 0, amountMinor: 0 });
    expect(transactions.dailyUsage(cardA.id, 'pos', '2026-11-23', '566', counted)).toEqual({ count: 0, amountMinor: 0 });

    const before = transactions.getStored(sandbox.institutionId, ids[0]!)!;
    expect(before).toMatchObject({ state: 'approved', amountMinor: 150000, reversedMinor: 0 });
    // Part given back: the count stays, the amount drops by that part.
    const part = { institutionId: sandbox.institutionId, id: ids[0]!, from: 'approved' as const, to: 'approved' as const, record: before.record, reversedMinor: 50000 };
    expect(transactions.changeStateIf(part)).toBe(true);
    expect(transactions.dailyUsage(cardA.id, 'pos', '2026-11-22', '566', counted)).toEqual({ count: 2, amountMinor: 250000 });
    const reversed = { ...before.record, reversed: true, reversalId: 'reversal-1', transactionStatus: 'reversed' as const };
    expect(transactions.changeStateIf({ ...part, to: 'reversed', record: reversed, reversedMinor: 150000 })).toBe(true);
    // A second change computed from 'approved' finds the row 'reversed': nothing is written.
    expect(transactions.changeStateIf({ ...part, to: 'reversed', record: { ...reversed, reversalId: 'reversal-2' } })).toBe(false);
    expect(transactions.changeStateIf({ ...part, institutionId: 'someone-else', id: ids[3]! })).toBe(false);
    expect(transactions.getStored(sandbox.institutionId, ids[0]!)).toMatchObject({ state: 'reversed', reversedMinor: 150000, record: { reversed: true, reversalId: 'reversal-1', transactionStatus: 'reversed' } });
    expect(transactions.dailyUsage(cardA.id, 'pos', '2026-11-22', '566', counted)).toEqual({ count: 1, amountMinor: 150000 });
    const list = transactions.list({ institutionId: sandbox.institutionId, transactionStatus: 'reversed', limit: 10, offset: 0 });
    expect(list.records.map((r) => r.id)).toEqual([ids[0]]);
  });
});

describe('refusal messages name the field once', () => {
  const doubled = /^(\S+) \1\b/;

  test('invalidField keeps a field the problem already names once, in the message and the field error', () => {
    const error = invalidField('amount', 'amount 1e-7 has more decimals than the currency allows (2)');
    expect(error.message).toBe('amount 1e-7 has more decimals than the currency allows (2)');
    expect(error.errors).toEqual([{ field: 'amount', message: '1e-7 has more decimals than the currency allows (2)' }]);
    expect(invalidField('pan', 'fails the Luhn check').message).toBe('pan fails the Luhn check');
  });

  test('no refusal of the simulator or of a card program starts with a doubled word', async () => {
    const card = await createCard(sandbox);
    const simulateBody = (extra: Record<string, unknown>) => ({ intent: 'authorization', processingFlow: 'purchase', amount: 100, cardId: card.id, ...extra });
    const refused: Array<[string, string, unknown]> = [
      ['POST', '/institutions/switch/simulate', simulateBody({ amount: 1e-7 })],
      ['POST', '/institutions/switch/simulate', simulateBody({ amount: 1e21 })],
      ['POST', '/institutions/switch/simulate', simulateBody({ amount: 10.001 })],
      ['POST', '/institutions/switch/simulate', simulateBody({ amount: -1 })],
      ['POST', '/institutions/switch/simulate', simulateBody({ currency: '000' })],
      ['POST', '/sandbox/card-programs', { name: '' }],
    ];
    for (const [method, path, body] of refused) {
      const response = await call(sandbox, method, path, { token: sandbox.token, body });
      expect(response.status, `${JSON.stringify(body)}: ${response.text}`).toBe(400);
      expect(errorOf(response).message, response.text).not.toMatch(doubled);
      for (const fieldError of fieldErrorsOf(response) ?? []) expect(`${fieldError.field} ${fieldError.message}`).not.toMatch(doubled);
    }
  });
});
