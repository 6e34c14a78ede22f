// /institutions/cards: create, list, renew, PIN change and reset, customer update, activate,
// deactivate. Everything is scoped to the caller's institution.
import type { FastifyInstance } from 'fastify';
import {
  Card, CardIdParams, CardProgram, ChangePinBody, CreateCardBody, Envelope, ListCardsQuery, ListEnvelope, RenewCardBody,
  ResetPinBody, UpdateCustomerBody,
} from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import {
  assertPinNotLocked, buildCard, cardAfter, checkCreateDates, customerFromCreate, describeTransitions, MAX_PIN_ATTEMPTS, renewed,
  revised, withCustomer,
} from '../cards.js';
import type { SandboxDeps } from '../deps.js';
import { ApiError, conflict, invalidField, notFound } from '../errors.js';
import { opaque } from '../ids.js';
import { luhnValid, nextProgramPan, panInProgramRange } from '../pan.js';
import { decryptPinBlock, hashPin, verifyPin } from '../pin.js';
import { ChangeScopedCache } from '../change-scoped-cache.js';
import { isUniqueViolation } from '../store/db.js';
import type { ProgramRef, StoredCard } from '../store/index.js';
import { assertIfMatch, envelope, pagination, paging } from './common.js';

const tags = ['cards'];
const CardEnvelope = Envelope(Card);
/** Get Cards' response up to its first record. */
const LIST_HEAD = Buffer.from(`${JSON.stringify({ statusCode: 200, message: 'Cards retrieved successfully' }).slice(0, -1)},"data":[`);
const PROGRAM_KEY = Buffer.from('"cardProgram":');
/** Bound of the Get Cards page cache (a page of 100 cards is ~260 KB). */
const MAX_CACHED_PAGE_BYTES = 8 * 1024 * 1024;
/** Bound of Get Cards' totals and of its listed programs kept until the next write. */
const MAX_KEPT_ENTRIES = 10_000;

export async function cardRoutes(app: FastifyInstance, deps: SandboxDeps): Promise<void> {
  const { store, clock } = deps;
  const auth = requireBearer(deps);
  const pinKey = { fingerprint: deps.pinKey.fingerprint, privateKey: deps.pinKey.privateKey };
  // Get Cards shows programs without their ledger accounts; the trimmed JSON is kept per stored
  // version of the program text, so an unchanged program is not re-parsed on every page.
  const listedPrograms = new Map<string, { stored: string; listed: Buffer }>();
  function listedProgram(programId: string, stored: string): Buffer {
    const cached = listedPrograms.get(programId);
    if (cached?.stored === stored) return cached.listed;
    const listed = Buffer.from(listedProgramJson(stored));
    listedPrograms.set(programId, { stored, listed });
    return listed;
  }

  // Kept until the next write (change-scoped-cache.ts), so they never answer what a new query
  // would not: Get Cards pages already answered, by institution and query (a client polling a
  // list gets the same bytes again without the query and the assembly; off with
  // --no-list-cache); each filter's total, so a page is read without counting its cards again;
  // and each program as listed, so it is not read again.
  const listCache = new ChangeScopedCache(() => store.changeToken());
  const pages = deps.settings.listCache ? listCache.map<Buffer>(MAX_CACHED_PAGE_BYTES, (page) => page.length) : undefined;
  const totals = listCache.map<number>(MAX_KEPT_ENTRIES);
  const programsNow = listCache.map<Buffer | undefined>(MAX_KEPT_ENTRIES);

  function loadCard(institutionId: string, cardId: string): StoredCard {
    const stored = store.cards.get(institutionId, cardId);
    if (!stored) throw notFound(`card ${cardId}`);
    return stored;
  }

  function loadProgram(institutionId: string, programId: string): CardProgram {
    const program = store.cardPrograms.get(institutionId, programId);
    if (!program) throw notFound(`card program ${programId}`);
    return program;
  }

  app.post<{ Body: CreateCardBody }>('/institutions/cards', {
    onRequest: auth,
    schema: {
      summary: 'Create Card', tags, auth: 'bearer',
      description: 'Issues a card from a card program. The PAN comes from the program range unless the program allows a caller-supplied `pan`. '
        + '`defaultPIN` is an Encrypted PIN block (see GET /sandbox/pin-key). A repeated `referenceCode` is a 409.',
      body: CreateCardBody,
      response: { 201: CardEnvelope },
    },
  }, async (request, reply) => {
    const { institutionId } = principalOf(request);
    const body = request.body;
    const now = clock.now();
    const program = store.cardPrograms.get(institutionId, body.cardProgram);
    if (!program) {
      throw new ApiError(404, 'NOT_FOUND', `card program ${body.cardProgram} not found`, [{ field: 'cardProgram', message: 'is not a card program of this institution' }]);
    }
    if (store.cards.findByReference(institutionId, body.referenceCode)) {
      throw conflict(`a card with referenceCode "${body.referenceCode}" already exists`, 'referenceCode');
    }
    if (body.pan !== undefined) checkCallerPan(program, body.pan);
    const expiryDate = checkCreateDates(body, program, now);
    const pin = decryptPinBlock(body.defaultPIN, pinKey, 'defaultPIN');
    const pinHash = await hashPin(pin);

    const card = store.transaction(() => {
      // Checked again inside the transaction: another request may have won since.
      if (store.cards.findByReference(institutionId, body.referenceCode)) {
        throw conflict(`a card with referenceCode "${body.referenceCode}" already exists`, 'referenceCode');
      }
      const current = store.cardPrograms.get(institutionId, program.id)!;
      let pan = body.pan;
      if (pan === undefined) {
        const next = nextProgramPan(current, (candidate) => store.cards.panExists(candidate));
        pan = next.pan;
        store.cardPrograms.update({ ...current, panSequenceCounter: next.counter });
      } else if (store.cards.panExists(pan)) {
        throw conflict('a card with this pan already exists', 'pan');
      }
      const built = buildCard({
        institutionId,
        program: current,
        pan,
        referenceCode: body.referenceCode,
        pinEnabled: body.pinEnabled,
        account: body.account,
        customer: customerFromCreate(body.customer),
        embossingName: body.embossingName,
        expiryDate,
        status: body.status ?? 'active',
        seqNumber: body.seqNumber ?? current.seqNumber,
        enroll2FA: body.enroll2FA ?? false,
        printCard: body.printCard ?? false,
        now,
      });
      try {
        store.cards.insert({ card: built, pan, pinHash, realId: null });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict('a card with this referenceCode or pan already exists', 'referenceCode');
        throw error;
      }
      return built;
    });
    // pinOffset is shown once, at creation (a tokenised value; the PIN itself is only hashed).
    return reply.code(201).send(envelope('Card created successfully', { ...card, pinOffset: opaque(8) }));
  });

  app.get<{ Querystring: ListCardsQuery }>('/institutions/cards', {
    onRequest: auth,
    schema: {
      summary: 'Get Cards', tags, auth: 'bearer',
      description: 'Cards of the institution, newest first (createdAt, then id), with `cardProgram` expanded. '
        + '`search` matches id, referenceCode, embossing name, last four, status, account number and customer names, email and phone.',
      querystring: ListCardsQuery,
      response: { 200: ListEnvelope(Card) },
    },
  }, async (request, reply) => {
    const { institutionId } = principalOf(request);
    const { page, limit, offset } = paging(request.query);
    const { search, cardId } = request.query;
    listCache.refresh();
    const key = JSON.stringify([institutionId, page, limit, search, cardId]);
    const cached = pages?.get(key);
    if (cached) return reply.type('application/json; charset=utf-8').send(cached);

    const totalKey = JSON.stringify([institutionId, search, cardId]);
    const { total, records, programRefs } = store.cards.listPage({ institutionId, search, cardId, limit, offset, total: totals.get(totalKey) });
    totals.set(totalKey, total);
    // Each program of the page is read once (most pages have one).
    const programs = new Map<string, Buffer | undefined>();
    for (const { programId } of programRefs) {
      if (programs.has(programId)) continue;
      const programKey = `${institutionId}/${programId}`;
      if (programsNow.has(programKey)) {
        programs.set(programId, programsNow.get(programKey));
        continue;
      }
      const stored = store.cardPrograms.getJson(institutionId, programId);
      const listed = stored === undefined ? undefined : listedProgram(programId, stored);
      programs.set(programId, listed);
      programsNow.set(programKey, listed);
    }
    // The page is assembled as bytes: records are stored as the JSON the API returns, so no
    // card is parsed, and nothing is decoded into a string to be encoded again for the socket.
    const tail = Buffer.from(`],"pagination":${JSON.stringify(pagination(page, limit, total))}}`);
    const body = Buffer.concat([LIST_HEAD, ...withPrograms(records, programRefs, programs), tail]);
    pages?.set(key, body);
    return reply.type('application/json; charset=utf-8').send(body);
  });

  app.put<{ Params: { cardId: string }; Body: RenewCardBody }>('/institutions/cards/:cardId/renew', {
    onRequest: auth,
    schema: {
      summary: 'Renew Card', tags, auth: 'bearer',
      description: '`expiration` (YYYYMM) must be a future month within the program\'s maxExpiry months. The card gets a new seqNumber. '
        + describeTransitions('renew'),
      params: CardIdParams, body: RenewCardBody, response: { 200: CardEnvelope },
    },
  }, async (request) => {
    const { institutionId } = principalOf(request);
    const now = clock.now();
    const { card, program } = store.transaction(() => {
      const stored = loadCard(institutionId, request.params.cardId);
      const program = loadProgram(institutionId, stored.card.cardProgram as string);
      const card = renewed(stored.card, program, request.body.expiration, now);
      store.cards.update(card, stored.pinHash);
      return { card, program };
    });
    return envelope(`Card renewal (${request.body.renewReason}) processed: a replacement card was processed, valid through ${card.expiryMonth}/${card.expiryYear}`,
      { ...card, cardProgram: program });
  });

  app.put<{ Params: { cardId: string }; Body: ChangePinBody }>('/institutions/cards/pin/:cardId/change', {
    onRequest: auth,
    schema: {
      summary: 'Change Card PIN', tags, auth: 'bearer',
      description: `A wrong oldPIN increments pinAttempts and answers 422 PIN_MISMATCH (details.attemptsLeft); after ${MAX_PIN_ATTEMPTS} wrong attempts the PIN is locked (423 PIN_LOCKED) until a reset.`,
      params: CardIdParams, body: ChangePinBody, response: { 200: CardEnvelope },
    },
  }, async (request) => {
    const { institutionId } = principalOf(request);
    const { cardId } = request.params;
    const stored = loadCard(institutionId, cardId);
    assertPinNotLocked(stored.card);
    const oldPin = decryptPinBlock(request.body.oldPIN, pinKey, 'oldPIN');
    const newPin = decryptPinBlock(request.body.newPIN, pinKey, 'newPIN');
    const matches = stored.pinHash !== null && await verifyPin(oldPin, stored.pinHash);
    if (!matches) {
      const attempts = store.transaction(() => {
        const current = loadCard(institutionId, cardId);
        assertPinNotLocked(current.card);
        const card = revised(current.card, { pinAttempts: current.card.pinAttempts + 1 }, clock.now());
        store.cards.update(card, current.pinHash);
        return card.pinAttempts;
      });
      const attemptsLeft = Math.max(0, MAX_PIN_ATTEMPTS - attempts);
      throw new ApiError(422, 'PIN_MISMATCH', attemptsLeft > 0
        ? `oldPIN does not match the card's PIN; ${attemptsLeft} attempt${attemptsLeft === 1 ? '' : 's'} left`
        : 'oldPIN does not match the card\'s PIN; the PIN is now locked until it is reset',
      [{ field: 'oldPIN', message: 'does not match' }], { attemptsLeft });
    }
    const newHash = await hashPin(newPin);
    const card = store.transaction(() => {
      const current = loadCard(institutionId, cardId);
      assertPinNotLocked(current.card);
      const card = revised(current.card, { pinAttempts: 0 }, clock.now());
      store.cards.update(card, newHash);
      return card;
    });
    return envelope('Card PIN changed successfully', card);
  });

  app.put<{ Params: { cardId: string }; Body: ResetPinBody }>('/institutions/cards/pin/:cardId/reset', {
    onRequest: auth,
    schema: {
      summary: 'Reset Card PIN', tags, auth: 'bearer',
      description: 'Sets a new PIN without the old one, zeroes pinAttempts and unlocks the PIN.',
      params: CardIdParams, body: ResetPinBody, response: { 200: CardEnvelope },
    },
  }, async (request) => {
    const { institutionId } = principalOf(request);
    const { cardId } = request.params;
    loadCard(institutionId, cardId);
    const newHash = await hashPin(decryptPinBlock(request.body.newPIN, pinKey, 'newPIN'));
    const card = store.transaction(() => {
      const current = loadCard(institutionId, cardId);
      const card = revised(current.card, { pinAttempts: 0 }, clock.now());
      store.cards.update(card, newHash);
      return card;
    });
    return envelope('Card PIN reset successfully', card);
  });

  app.put<{ Params: { cardId: string }; Body: UpdateCustomerBody }>('/institutions/cards/:cardId/customer', {
    onRequest: auth,
    schema: {
      summary: 'Update Card Customer', tags, auth: 'bearer',
      description: 'Replaces the customer. With `If-Match: "<__v>"` (the card\'s version as read) the change applies only to that version: '
        + 'a card changed since is a 409 CONFLICT (details.version: the current one), and nothing is written.',
      params: CardIdParams, body: UpdateCustomerBody, response: { 200: CardEnvelope },
    },
  }, async (request) => {
    const { institutionId } = principalOf(request);
    const card = store.transaction(() => {
      const stored = loadCard(institutionId, request.params.cardId);
      assertIfMatch(`card ${stored.card.id}`, stored.card.__v, request.headers['if-match']);
      const card = withCustomer(stored.card, request.body, clock.now());
      store.cards.update(card, stored.pinHash);
      return card;
    });
    return envelope('Card customer updated successfully', card);
  });

  for (const action of ['activate', 'deactivate'] as const) {
    app.get<{ Params: { cardId: string } }>(`/institutions/cards/:cardId/${action}`, {
      onRequest: auth,
      schema: {
        summary: action === 'activate' ? 'Activate Card' : 'Deactivate Card', tags, auth: 'bearer',
        description: `GET although it changes state (as the API does). ${describeTransitions(action)}`,
        params: CardIdParams, response: { 200: CardEnvelope },
      },
    }, async (request) => {
      const { institutionId } = principalOf(request);
      const card = store.transaction(() => {
        const stored = loadCard(institutionId, request.params.cardId);
        const card = cardAfter(stored.card, action, clock.now());
        store.cards.update(card, stored.pinHash);
        return card;
      });
      return envelope(action === 'activate' ? 'Card activated successfully' : 'Card deactivated successfully', card);
    });
  }
}

/** A caller-supplied PAN: only when the program allows it, inside its range, Luhn-valid. */
function checkCallerPan(program: CardProgram, pan: string): void {
  if (!program.allowRandomPan) throw invalidField('pan', 'cannot be supplied: this card program generates card numbers');
  if (!luhnValid(pan)) throw invalidField('pan', 'fails the Luhn check');
  if (!panInProgramRange(program, pan)) {
    throw invalidField('pan', `is outside the card program's range (${program.panLength} digits starting ${program.panPrefix})`);
  }
}

/**
 * The records with each `"cardProgram":"<id>"` replaced by that program's JSON, as slices of
 * `records` around the programs (nothing is copied until the page is concatenated). An id
 * without a program stays as it is.
 */
function withPrograms(records: Buffer, refs: ProgramRef[], programs: Map<string, Buffer | undefined>): Buffer[] {
  const parts: Buffer[] = [];
  let copied = 0;
  for (const { programId, at, end } of refs) {
    const program = programs.get(programId);
    if (program === undefined) continue;
    parts.push(records.subarray(copied, at + PROGRAM_KEY.length), program);
    copied = end;
  }
  parts.push(records.subarray(copied));
  return parts;
}

/** Get Cards shows the program without its ledger accounts (as the reference's example does). */
function listedProgramJson(programJson: string): string {
  const { losesAccount, issuedAccount, feeAccount, ...program } = JSON.parse(programJson) as CardProgram;
  return JSON.stringify(program);
}

