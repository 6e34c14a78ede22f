import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CardProgram, Card, SimulateEnvelope, OAuthApplication, SandboxInstitutionCredentials } from '../../src/api/schemas.js';
import { DomainError, httpErrorOf } from '../../src/sandbox/errors.js';
import { luhnCheckDigit, luhnValid, maskPan, nextProgramPan, panFromBin, panInProgramRange, programOfBin } from '../../src/sandbox/pan.js';
import { defaultCardProgram, programRange } from '../../src/sandbox/tenancy.js';
import { call, createCard, createCardBody, encryptPin, startTestSandbox, type CallResult, type Sandbox, type DataEnvelope } from './helpers.js';
import { makeCertificate } from './oauth-helpers.js';

function program(overrides: Partial<CardProgram> = {}): CardProgram {
  return { ...defaultCardProgram({ institutionId: 'i', createdBy: 'u', now: new Date() }), ...overrides };
}

describe('Luhn', () => {
  test.each(['79927398713', '4111111111111111', '5500000000000004', '378282246310005'])('%s is valid', (pan) => {
    expect(luhnValid(pan)).toBe(true);
    expect(luhnCheckDigit(pan.slice(0, -1))).toBe(pan.slice(-1));
  });
  test.each(['79927398710', '4111111111111112', '12', 'abcd'])('%s is not', (pan) => {
    expect(luhnValid(pan)).toBe(false);
  });
  test('masking keeps the first 6 and last 4', () => {
    expect(maskPan('5060990000000008')).toBe('506099******0008');
    expect(maskPan('5060990000000000008')).toBe('506099*********0008');
  });
});

describe('program card numbers', () => {
  test('sequential numbers from panStart, Luhn-valid, in range, skipping taken ones', () => {
    const taken = new Set<string>();
    let current = program();
    const issued: string[] = [];
    for (let i = 0; i < 50; i++) {
      const { pan, counter } = nextProgramPan(current, (candidate) => taken.has(candidate) || candidate.endsWith('7'));
      expect(luhnValid(pan) && panInProgramRange(current, pan)).toBe(true);
      expect(pan.endsWith('7')).toBe(false);
      taken.add(pan);
      issued.push(pan);
      current = { ...current, panSequenceCounter: counter };
    }
    expect(new Set(issued).size).toBe(50);
    expect([...issued].sort()).toEqual(issued);
  });

  test('random numbers stay in the range', () => {
    const random = program({ randomCardNumber: true, ...programRange('627123', 19) });
    for (let i = 0; i < 200; i++) {
      const { pan } = nextProgramPan(random, () => false);
      expect(pan).toHaveLength(19);
      expect(pan.startsWith('627123')).toBe(true);
      expect(luhnValid(pan)).toBe(true);
    }
  });

  test('an exhausted range is a 409, not a crash', () => {
    const tiny = program({ panStart: '5060990000000008', panEnd: '5060990000000016' });
    const taken = new Set<string>();
    let current = tiny;
    for (;;) {
      try {
        const { pan, counter } = nextProgramPan(current, (c) => taken.has(c));
        taken.add(pan);
        current = { ...current, panSequenceCounter: counter };
      } catch (error) {
        expect(error).toBeInstanceOf(DomainError);
        expect(httpErrorOf(error as DomainError).statusCode).toBe(409);
        break;
      }
    }
    expect(taken.size).toBe(2);
  });

  test('imported cards get a Luhn number of their program\'s length under their BIN and the program\'s prefix', () => {
    const pan = panFromBin(program(programRange('539983', 16)), '53998312', () => false);
    expect(pan).toMatch(/^53998312\d{8}$/);
    expect(luhnValid(pan)).toBe(true);
    const longer = panFromBin(program(programRange('539983777', 19)), '539983', () => false);
    expect(longer).toMatch(/^539983777\d{10}$/);
    expect(luhnValid(longer)).toBe(true);
  });

  test('an imported BIN joins the first program whose range it meets, and none outside them', () => {
    const programs = [program({ id: 'a', ...programRange('506099', 16) }), program({ id: 'b', ...programRange('53998311', 16) })];
    expect(programOfBin(programs, '506099')?.id).toBe('a');
    expect(programOfBin(programs, '50609912')?.id).toBe('a');
    expect(programOfBin(programs, '539983')?.id).toBe('b');
    expect(programOfBin(programs, '53998311')?.id).toBe('b');
    expect(programOfBin(programs, '53998312')).toBeUndefined();
    expect(programOfBin(programs, '506100')).toBeUndefined();
  });
});

describe('two institutions: card numbers tell nothing of the other\'s cards', () => {
  let sandbox: Sandbox;
  /** Institution B; A is the seeded one. */
  let B: { institutionId: string; token: string; apiKey: string; cardProgramId: string; userId: string };
  let programA: CardProgram;
  let programB: CardProgram;
  const A: Record<string, string> = {};
  const panOf = (institutionId: string, cardId: string) => sandbox.deps.store.cards.get(institutionId, cardId)!.pan;
  const nthPan = (program: CardProgram, n: number) => {
    const body = (BigInt(program.panStart.slice(0, -1)) + BigInt(n)).toString().padStart(program.panLength - 1, '0');
    return body + luhnCheckDigit(body);
  };
  const asB = <T = unknown>(method: string, path: string, body?: unknown) => call<T>(sandbox, method, path, { token: B.token, body });
  /** Members that differ between any two answers: ids, times, STAN and RRN, and ISO fields 7, 11–13, 37, 38 (and 2, 35: the PAN sent). */
  const VARYING = /"(transactionId|id|_id|stan|rrn|createdAt|updatedAt|duration|2|7|11|12|13|35|37|38)":"?[^",}]*"?/g;
  /** What B can see of an answer, with the one value B itself sent replaced (an id echoed in "card X not found"). */
  const seen = (response: CallResult, sent: string, masked?: string) => {
    const hide = (text: string) => text.split(sent).join('<sent>').split(masked ?? '\u0000').join('<sent>');
    return { status: response.status, body: JSON.parse(hide(response.text).replace(VARYING, '"$1":"<varies>"')) };
  };

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    B = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Bravo Bank' } })).body.data;
    const programs = (token: string) => call<DataEnvelope<CardProgram[]>>(sandbox, 'GET', '/sandbox/card-programs', { token }).then((r) => r.body.data as CardProgram[]);
    programA = (await programs(sandbox.token))[0]!;
    programB = (await programs(B.token))[0]!;
    const card = await createCard(sandbox, { referenceCode: 'ALPHA-1' });
    Object.assign(A, { cardId: card.id, pan: panOf(sandbox.institutionId, card.id), expiry: `${String(card.expiryYear).slice(-2)}${card.expiryMonth}` });
    const tx = await call<SimulateEnvelope>(sandbox, 'POST', '/institutions/switch/simulate', { token: sandbox.token, body: { intent: 'authorization', processingFlow: 'purchase', amount: 10, cardId: card.id } });
    const app = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', {
      token: sandbox.token, body: { name: 'Alpha app', publicKey: makeCertificate().certificatePem, scopes: ['read:card'], grantType: 'client_credentials' },
    });
    Object.assign(A, { txId: tx.body.data.transactionId, appId: app.body.data.id, clientId: app.body.data.institutionId });
    // A BIN of A's that no program of B's meets, whatever the length.
    const onlyA = await call<DataEnvelope<CardProgram>>(sandbox, 'POST', '/sandbox/card-programs', { token: sandbox.token, body: { name: 'Alpha only', panPrefix: '539990' } });
    expect(onlyA.status, onlyA.text).toBe(201);
  }, 30_000);
  afterAll(async () => { await sandbox?.close(); });

  test('each institution\'s default program has a BIN of its own, and no program may take another\'s range', async () => {
    expect(programA.panPrefix).toBe('506099');
    expect(programB.panPrefix).not.toBe(programA.panPrefix);
    for (const [prefix, length] of [[programA.panPrefix, 16], [`${programA.panPrefix}12`, 16], [programA.panPrefix.slice(0, 6), 16]] as const) {
      const taken = await asB('POST', '/sandbox/card-programs', { name: 'Squatter', panPrefix: prefix, panLength: length });
      expect(taken.status, taken.text).toBe(409);
      expect(taken.body).toMatchObject({ error: 'CONFLICT', errors: [{ field: 'panPrefix' }] });
      const moved = await asB('PUT', `/sandbox/card-programs/${B.cardProgramId}`, { panPrefix: prefix, panLength: length });
      expect(moved.status, moved.text).toBe(409);
    }
    // Another length under the same BIN is another range.
    const longer = await asB('POST', '/sandbox/card-programs', { name: 'Nineteen', panPrefix: programA.panPrefix, panLength: 19 });
    expect(longer.status, longer.text).toBe(201);
    // A program without a range given takes its own institution's, not the seeded one.
    const plain = await asB<DataEnvelope<CardProgram>>('POST', '/sandbox/card-programs', { name: 'Plain' });
    expect(plain.body.data).toMatchObject({ panPrefix: programB.panPrefix, panLength: programB.panLength });
  });

  test('numbers are drawn per program: B\'s numbers are the same however many cards A issues', async () => {
    const issued: string[] = [];
    for (const aCards of [0, 3, 7]) {
      for (let i = 0; i < aCards; i++) await createCard(sandbox);
      const card = await createCard(sandbox, { cardProgram: programB.id }, B.token);
      issued.push(panOf(B.institutionId, card.id));
    }
    expect(issued).toEqual([nthPan(programB, 0), nthPan(programB, 1), nthPan(programB, 2)]);
  });

  test('a program that has issued cards keeps its range', async () => {
    const moved = await asB('PUT', `/sandbox/card-programs/${programB.id}`, { panPrefix: '627999' });
    expect(moved.status, moved.text).toBe(409);
    const fresh = (await asB<DataEnvelope<CardProgram>>('POST', '/sandbox/card-programs', { name: 'Unused', panPrefix: '627998' })).body.data;
    expect((await asB<DataEnvelope<CardProgram>>('PUT', `/sandbox/card-programs/${fresh.id}`, { panPrefix: '627997' })).body.data.panStart).toBe('6279970000000000');
  });

  // [what B tries, A's real record, a never-issued one of the same form]: the answers are alike.
  const probes: Array<[string, () => [string, string], (value: string) => Promise<CallResult>]> = [
    ['create with --pan in A\'s range', () => [A.pan!, nthPan(programA, 5000)],
      (pan) => asB('POST', '/institutions/cards', createCardBody(sandbox, { cardProgram: programB.id, pan, defaultPIN: encryptPin(sandbox, '1234') }))],
    ['create with --pan in nobody\'s range', () => [A.pan!, nthPan({ ...programA, panStart: '4111110000000000' } as CardProgram, 7)],
      (pan) => asB('POST', '/institutions/cards', createCardBody(sandbox, { cardProgram: programB.id, pan, defaultPIN: encryptPin(sandbox, '1234') }))],
    ['simulate by pan, expiry and account', () => [A.pan!, nthPan(programA, 5001)],
      (pan) => asB('POST', '/institutions/switch/simulate', { intent: 'authorization', processingFlow: 'purchase', amount: 10, pan, expiry: A.expiry, accountNumber: '0123456789' })],
    ['an advice by pan', () => [A.pan!, nthPan(programA, 5002)],
      (pan) => asB('POST', '/sandbox/switch/messages', { message: 'advice', amount: 10, pan, expiry: A.expiry, accountNumber: '0123456789' })],
    ['a card by id', () => [A.cardId!, 'ffffffffffffffffffffffff'], (id) => asB('GET', `/institutions/cards/${id}/activate`)],
    ['the card list filtered by id', () => [A.cardId!, 'ffffffffffffffffffffffff'], (id) => asB('GET', `/institutions/cards?cardId=${id}`)],
    ['a transaction by id', () => [A.txId!, 'ffffffffffffffffffffffff'], (id) => asB('GET', `/institutions/transactions/${id}`)],
    ['a user', () => [sandbox.userId, 'ffffffffffffffffffffffff'],
      (id) => asB('PUT', `/institutions/users/${id}/update`, { firstName: 'M', lastName: 'B', emailAddress: 'm@b.co', phoneNumber: '+15550100', status: 'active', isBlocked: false, roles: [] })],
    ['an OAuth application by id', () => [A.appId!, 'ffffffffffffffffffffffff'], (id) => asB('PUT', `/institutions/oauth/${id}`, { name: 'Taken' })],
    ['an OAuth application by client id', () => [A.clientId!, 'cli_ffffffffffffffffffffffff'], (id) => asB('PUT', `/institutions/oauth/${id}`, { name: 'Taken' })],
    ['a card program', () => [programA.id, 'ffffffffffffffffffffffff'], (id) => asB('PUT', `/sandbox/card-programs/${id}`, { name: 'Taken' })],
    ['an import under A\'s BIN', () => ['539990', '400000'], (bin) => asB_import(bin)],
  ];
  const asB_import = (bin: string) => call<DataEnvelope<Card>>(sandbox, 'POST', '/util/cards/import', {
    apiKey: B.apiKey,
    body: {
      realId: `probe-${bin}`, active: true, startDate: '2024-01-01', endDate: '2028-12-31', firstName: 'M', lastName: 'B', middleName: '', email: 'm@b.co',
      address1: '1 Road', address2: '', city: 'Lagos', state: 'Lagos', zip: '100001', country: 'NG', birthDate: '1990-01-31', phone: '+2348012345678',
      institutionId: B.institutionId, card: { expiration: '202812', serviceCode: '101', cardProduct: 'classic', embossingName: 'M B', defaultPIN: '1234', bin, cardState: 'active' },
      returnSecure: false,
    },
  });

  test.each(probes)('%s: A\'s record and one that does not exist are answered alike', async (name, values, ask) => {
    const [real, missing] = values();
    const [toReal, toMissing] = [await ask(real), await ask(missing)];
    expect(toReal.status, toReal.text).toBeGreaterThanOrEqual(200);
    expect(seen(toReal, real, maskPan(real))).toEqual(seen(toMissing, missing, maskPan(missing)));
    // The switch answers "no such card" for both.
    if (name.startsWith('simulate')) expect(toReal.body).toMatchObject({ data: { responseCode: '14' } });
    expect(toReal.text).not.toContain('ALPHA-1');
  });

  test('a reference of A\'s is free for B (references are per institution)', async () => {
    const card = await createCard(sandbox, { cardProgram: programB.id, referenceCode: 'ALPHA-1' }, B.token);
    expect(card.referenceCode).toBe('ALPHA-1');
  });

  test('a --pan in B\'s own range that B already issued is B\'s own 409', async () => {
    const own = await createCard(sandbox, { cardProgram: programB.id }, B.token);
    const again = await asB('POST', '/institutions/cards', createCardBody(sandbox, { cardProgram: programB.id, pan: panOf(B.institutionId, own.id) }));
    expect(again.status).toBe(409);
    const free = await asB('POST', '/institutions/cards', createCardBody(sandbox, { cardProgram: programB.id, pan: nthPan(programB, 900) }));
    expect(free.status, free.text).toBe(201);
  });
});
