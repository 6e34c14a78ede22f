// Cards of an institution: issue, list, renew, PIN change and reset, customer update, activate
// and deactivate. Each change reads, checks and writes in one store transaction (re-reading
// what a slow step such as PIN hashing may have let another request change), applies the rules
// of ../cards.ts, and throws DomainErrors.
import type {
  Card, CardProgram, ChangePinBody, CreateCardBody, RenewCardBody, ResetPinBody, UpdateCustomerBody,
} from '../../api/schemas.js';
import {
  assertPinNotLocked, buildCard, cardAfter, checkCreateDates, customerFromCreate, MAX_PIN_ATTEMPTS, renewed, revised, withCustomer,
} from '../cards.js';
import type { SandboxDeps } from '../deps.js';
import { conflict, DomainError, invalidField, notFound } from '../errors.js';
import { opaque } from '../ids.js';
import { luhnValid, nextProgramPan, panInProgramRange } from '../pan.js';
import { decryptPinBlock, hashPin, verifyPin } from '../pin.js';
import { isUniqueViolation } from '../store/db.js';
import type { CardListQuery, StoredCard } from '../store/index.js';
import { assertIfMatch } from '../versions.js';

export function cardService({ store, clock, pinKey }: Pick<SandboxDeps, 'store' | 'clock' | 'pinKey'>) {
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

  const referenceTaken = (referenceCode: string) => conflict(`a card with referenceCode "${referenceCode}" already exists`, 'referenceCode');

  return {
    /** A new card; its pinOffset is shown once, here (a tokenised value: the PIN itself is only hashed). */
    async create(institutionId: string, body: CreateCardBody): Promise<Card & { pinOffset: string }> {
      const now = clock.now();
      const program = store.cardPrograms.get(institutionId, body.cardProgram);
      if (!program) {
        throw notFound(`card program ${body.cardProgram}`, [{ field: 'cardProgram', message: 'is not a card program of this institution' }]);
      }
      if (store.cards.findByReference(institutionId, body.referenceCode)) throw referenceTaken(body.referenceCode);
      if (body.pan !== undefined) checkCallerPan(program, body.pan);
      const expiryDate = checkCreateDates(body, program, now);
      const pinHash = await hashPin(decryptPinBlock(body.defaultPIN, pinKey, 'defaultPIN'));

      const card = store.transaction(() => {
        // Checked again inside the transaction: another request may have won since.
        if (store.cards.findByReference(institutionId, body.referenceCode)) throw referenceTaken(body.referenceCode);
        const current = loadProgram(institutionId, program.id);
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
      return { ...card, pinOffset: opaque(8) };
    },

    /** One page, newest first, each card with its program (shown without its ledger accounts). */
    list(query: CardListQuery): { cards: Card[]; total: number } {
      const { institutionId } = query;
      const { cards, total } = store.cards.list(query);
      const programs = new Map<string, CardProgram | undefined>();
      const listed = cards.map((card) => {
        const programId = card.cardProgram as string;
        if (!programs.has(programId)) programs.set(programId, listedProgram(store.cardPrograms.get(institutionId, programId)));
        const program = programs.get(programId);
        return program ? { ...card, cardProgram: program } : card;
      });
      return { cards: listed, total };
    },

    /** A replacement card (new expiry and sequence number), with its program. */
    /** `ifMatch` (the If-Match header): renew only the version read, so a resent renewal is refused, not applied twice. */
    renew(institutionId: string, cardId: string, body: RenewCardBody, ifMatch?: string | string[]): Card & { cardProgram: CardProgram } {
      const now = clock.now();
      return store.transaction(() => {
        const stored = loadCard(institutionId, cardId);
        assertIfMatch(`card ${stored.card.id}`, stored.card.__v, ifMatch);
        const program = loadProgram(institutionId, stored.card.cardProgram as string);
        const card = renewed(stored.card, program, body.expiration, now);
        store.cards.update(card, stored.pinHash);
        return { ...card, cardProgram: program };
      });
    },

    /**
     * A wrong oldPIN counts an attempt and is refused (attemptsLeft in the details); after
     * MAX_PIN_ATTEMPTS the PIN is locked until a reset.
     */
    async changePin(institutionId: string, cardId: string, body: ChangePinBody): Promise<Card> {
      const stored = loadCard(institutionId, cardId);
      assertPinNotLocked(stored.card);
      const oldPin = decryptPinBlock(body.oldPIN, pinKey, 'oldPIN');
      const newPin = decryptPinBlock(body.newPIN, pinKey, 'newPIN');
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
        throw new DomainError('pin-mismatch', attemptsLeft > 0
          ? `oldPIN does not match the card's PIN; ${attemptsLeft} attempt${attemptsLeft === 1 ? '' : 's'} left`
          : 'oldPIN does not match the card\'s PIN; the PIN is now locked until it is reset',
        [{ field: 'oldPIN', message: 'does not match' }], { attemptsLeft });
      }
      const newHash = await hashPin(newPin);
      return store.transaction(() => {
        const current = loadCard(institutionId, cardId);
        assertPinNotLocked(current.card);
        const card = revised(current.card, { pinAttempts: 0 }, clock.now());
        store.cards.update(card, newHash);
        return card;
      });
    },

    /** A new PIN without the old one: attempts zeroed, the PIN unlocked. */
    async resetPin(institutionId: string, cardId: string, body: ResetPinBody): Promise<Card> {
      loadCard(institutionId, cardId);
      const newHash = await hashPin(decryptPinBlock(body.newPIN, pinKey, 'newPIN'));
      return store.transaction(() => {
        const current = loadCard(institutionId, cardId);
        const card = revised(current.card, { pinAttempts: 0 }, clock.now());
        store.cards.update(card, newHash);
        return card;
      });
    },

    /** Replaces the customer; `ifMatch` (the If-Match header) names the version the change is based on. */
    updateCustomer(institutionId: string, cardId: string, body: UpdateCustomerBody, ifMatch: string | string[] | undefined): Card {
      return store.transaction(() => {
        const stored = loadCard(institutionId, cardId);
        assertIfMatch(`card ${stored.card.id}`, stored.card.__v, ifMatch);
        const card = withCustomer(stored.card, body, clock.now());
        store.cards.update(card, stored.pinHash);
        return card;
      });
    },

    /** The card after activate or deactivate, as CARD_STATUS_TRANSITIONS allows. */
    changeStatus(institutionId: string, cardId: string, action: 'activate' | 'deactivate'): Card {
      return store.transaction(() => {
        const stored = loadCard(institutionId, cardId);
        const card = cardAfter(stored.card, action, clock.now());
        store.cards.update(card, stored.pinHash);
        return card;
      });
    },
  };
}

/** A caller-supplied PAN: only when the program allows it, inside its range, Luhn-valid. */
function checkCallerPan(program: CardProgram, pan: string): void {
  if (!program.allowRandomPan) throw invalidField('pan', 'cannot be supplied: this card program generates card numbers');
  if (!luhnValid(pan)) throw invalidField('pan', 'fails the Luhn check');
  if (!panInProgramRange(program, pan)) {
    throw invalidField('pan', `is outside the card program's range (${program.panLength} digits starting ${program.panPrefix})`);
  }
}

/** Get Cards shows the program without its ledger accounts (as the reference's example does). */
function listedProgram(program: CardProgram | undefined): CardProgram | undefined {
  if (!program) return undefined;
  const { losesAccount, issuedAccount, feeAccount, ...listed } = program;
  return listed;
}
