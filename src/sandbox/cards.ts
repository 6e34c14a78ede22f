// Card rules of the sandbox: building a card record from a create or import request, renewal,
// status changes, PIN checks. The card service (services/cards.ts) applies them inside its
// transactions; the store persists what they return.
import { createHash } from 'node:crypto';
import type { Card, CardProgram, CreateCardBody, ImportCardBody, UpdateCustomerBody } from '../api/schemas.js';
import { DomainError, invalidField } from './errors.js';
import { newId, opaque } from './ids.js';
import { maskPan } from './pan.js';
import { isExpiredAt } from './switch/checks.js';

export const MAX_PIN_ATTEMPTS = 3;

type CardStatusValue = Card['status'];

/** The months from `from` to the first day of year/month (UTC); 0 = the same month. */
export function monthsUntil(from: Date, year: number, month: number): number {
  return (year - from.getUTCFullYear()) * 12 + (month - 1 - from.getUTCMonth());
}

/** The last millisecond of a month, UTC: cards are valid through their expiry month. */
export function endOfMonth(year: number, month: number): Date {
  return new Date(Date.UTC(year, month, 1) - 1);
}

/** The operations that change the status of an existing card (a new card takes the status it is created or imported with). */
export const STATUS_OPERATIONS = ['activate', 'deactivate', 'renew'] as const;
export type StatusOperation = (typeof STATUS_OPERATIONS)[number];

/** Why an operation is refused: the error message, and the field error's message. */
export interface Refusal {
  refused: string;
  because: string;
}

export interface StatusRule {
  /** From each stored status: the status the operation leaves the card in, or its refusal. */
  from: Readonly<Record<CardStatusValue, CardStatusValue | Refusal>>;
  /** When set, the operation is refused for a card past its expiry month, whatever its status. */
  pastExpiry?: Refusal;
}

const EXPIRED: Refusal = { refused: '', because: 'card is expired' };

/**
 * Every card status transition of the sandbox, and the only place one is written: the card
 * service asks cardAfter() and never set a status themselves. Nothing leaves `expired` but a renewal, and a
 * renewal never lifts a block (a suspended or inactive card stays so until activated), so no
 * sequence of operations brings an expired or deactivated card back without an activate that
 * this table allows. The switch approves only `active` cards within their expiry month.
 */
export const CARD_STATUS_TRANSITIONS: Readonly<Record<StatusOperation, StatusRule>> = {
  activate: {
    from: {
      inactive: 'active',
      active: 'active',
      suspended: 'active',
      expired: { ...EXPIRED, refused: 'an expired card cannot be activated; renew it first' },
    },
    pastExpiry: { refused: 'a card past its expiry month cannot be activated; renew it first', because: 'card is past its expiry month' },
  },
  deactivate: {
    from: {
      inactive: 'suspended',
      active: 'suspended',
      suspended: 'suspended',
      expired: { ...EXPIRED, refused: 'an expired card cannot be deactivated: it is declined already, and only a renewal changes its status' },
    },
  },
  // A renewal is a replacement card (new expiry, new sequence number), issued active whatever the
  // old one's status: the documented outcome of Renew Card.
  renew: {
    from: {
      inactive: 'active',
      active: 'active',
      suspended: 'active',
      expired: 'active',
    },
  },
};

/** The status `operation` leaves the card in (its table row), or the refusal. */
export function statusAfter(card: Card, operation: StatusOperation, now: Date): CardStatusValue {
  const rule = CARD_STATUS_TRANSITIONS[operation];
  const outcome: CardStatusValue | Refusal = rule.pastExpiry && isExpiredAt(card, now)
    ? rule.pastExpiry
    : rule.from[card.status] ?? { refused: `a card with status "${card.status}" cannot be changed`, because: 'is not a known status' };
  if (typeof outcome === 'string') return outcome;
  throw new DomainError('invalid', outcome.refused, [{ field: 'status', message: outcome.because }], { operation, status: card.status });
}

/** The card after activate or deactivate (renewal: renewed()). */
export function cardAfter(card: Card, operation: Exclude<StatusOperation, 'renew'>, now: Date): Card {
  return revised(card, { status: statusAfter(card, operation, now) }, now);
}

/** The table's row for an operation in words, for the route's description in /openapi.json. */
export function describeTransitions(operation: StatusOperation): string {
  const rule = CARD_STATUS_TRANSITIONS[operation];
  const moves = Object.entries(rule.from).map(([from, to]) => (typeof to === 'string' ? `${from} → ${to}` : `${from}: refused (400)`));
  return `Status: ${moves.join(', ')}${rule.pastExpiry ? '; refused (400) for a card past its expiry month' : ''}.`;
}

export interface NewCardInput {
  institutionId: string;
  program: CardProgram;
  pan: string;
  referenceCode: string;
  pinEnabled: boolean;
  account: Card['account'];
  customer: Omit<Card['customer'], 'uniqueId'>;
  embossingName: string;
  expiryDate: Date;
  status: CardStatusValue;
  seqNumber: string;
  enroll2FA: boolean;
  printCard: boolean;
  now: Date;
}

/** A complete Card record (cardProgram as its id, PAN masked). */
export function buildCard(input: NewCardInput): Card {
  const id = newId(input.now.getTime());
  const at = input.now.toISOString();
  const { pan } = input;
  return {
    _id: id,
    id,
    institution: input.institutionId,
    cardProgram: input.program.id,
    referenceCode: input.referenceCode,
    scheme: input.program.scheme,
    type: input.program.type,
    bin: pan.slice(0, 6),
    expiryMonth: String(input.expiryDate.getUTCMonth() + 1).padStart(2, '0'),
    expiryYear: input.expiryDate.getUTCFullYear(),
    expiryDate: input.expiryDate.toISOString(),
    pinEnabled: input.pinEnabled,
    seqNumber: input.seqNumber,
    enroll2FA: input.enroll2FA,
    twoFAEnrolled: input.enroll2FA,
    status: input.status,
    account: input.account,
    customer: { uniqueId: newId(input.now.getTime()), ...input.customer },
    cardHolderId: newId(input.now.getTime()),
    lastFour: pan.slice(-4),
    pan: maskPan(pan),
    cvv2: opaque(),
    icvv: opaque(),
    cvv: opaque(),
    serviceCode: input.program.serviceCode,
    printCard: input.printCard,
    token: opaque(),
    allowDigitization: true,
    embossingName: input.embossingName,
    pinAttempts: 0,
    honorific: input.customer.honorific,
    gender: input.customer.gender,
    createdAt: at,
    updatedAt: at,
    hash: createHash('sha256').update(`${id}:${pan}`).digest('hex'),
    secureData: opaque(32),
    __v: 0,
  };
}

/** Checks the dates of a create request against the program; returns the expiry date. */
export function checkCreateDates(body: CreateCardBody, program: CardProgram, now: Date): Date {
  const start = new Date(body.startDate);
  const expiry = new Date(body.expiryDate);
  if (expiry.getTime() <= start.getTime()) throw invalidField('expiryDate', 'must be after startDate');
  const months = monthsUntil(now, expiry.getUTCFullYear(), expiry.getUTCMonth() + 1);
  if (months > program.maxExpiry) {
    throw invalidField('expiryDate', `is more than the card program's maxExpiry of ${program.maxExpiry} months away`);
  }
  return expiry;
}

export function customerFromCreate(customer: CreateCardBody['customer']): Omit<Card['customer'], 'uniqueId'> {
  return {
    firstName: customer.firstName,
    middleName: customer.middleName ?? '',
    lastName: customer.lastName,
    emailAddress: customer.emailAddress,
    phoneNumber: customer.phoneNumber,
    honorific: customer.honorific ?? '',
    gender: customer.gender ?? '',
    dateOfBirth: customer.dateOfBirth ?? null,
    address: {
      line1: customer.address?.line1 ?? '',
      line2: customer.address?.line2 ?? '',
      city: customer.address?.city ?? '',
      state: customer.address?.state ?? '',
      country: customer.address?.country ?? '',
      postalCode: customer.address?.postalCode ?? '',
    },
  };
}

export function customerFromImport(body: ImportCardBody): Omit<Card['customer'], 'uniqueId'> {
  return {
    firstName: body.firstName,
    middleName: body.middleName,
    lastName: body.lastName,
    emailAddress: body.email,
    phoneNumber: body.phone,
    honorific: '',
    gender: '',
    dateOfBirth: `${body.birthDate}T00:00:00.000Z`,
    address: { line1: body.address1, line2: body.address2, city: body.city, state: body.state, country: body.country, postalCode: body.zip },
  };
}

/** A card after a change: updatedAt and the version counter move. */
export function revised(card: Card, change: Partial<Card>, now: Date): Card {
  return { ...card, ...change, updatedAt: now.toISOString(), __v: card.__v + 1 };
}

export function withCustomer(card: Card, body: UpdateCustomerBody, now: Date): Card {
  return revised(card, {
    customer: {
      ...card.customer,
      firstName: body.firstName,
      middleName: body.middleName,
      lastName: body.lastName,
      emailAddress: body.emailAddress,
      phoneNumber: body.phoneNumber,
      dateOfBirth: body.dateOfBirth,
      address: body.address,
    },
  }, now);
}

/** Renewal: a future YYYYMM within maxExpiry months, a new sequence number, the status of the renew row. */
export function renewed(card: Card, program: CardProgram, expiration: string, now: Date): Card {
  if (!program.renewable) throw invalidField('cardProgram', 'does not allow renewals');
  const year = Number(expiration.slice(0, 4));
  const month = Number(expiration.slice(4, 6));
  const months = monthsUntil(now, year, month);
  if (months <= 0) throw invalidField('expiration', 'must be a month after the current one');
  if (months > program.maxExpiry) throw invalidField('expiration', `is more than the card program's maxExpiry of ${program.maxExpiry} months away`);
  const expiry = endOfMonth(year, month);
  const width = Math.max(card.seqNumber.length, 3);
  const seqNumber = String((Number.parseInt(card.seqNumber, 10) || 0) + 1).padStart(width, '0');
  // A replacement card: same number, new expiry, sequence number and security values.
  return revised(card, {
    expiryDate: expiry.toISOString(),
    expiryMonth: String(month).padStart(2, '0'),
    expiryYear: year,
    seqNumber,
    status: statusAfter(card, 'renew', now),
    cvv2: opaque(),
    icvv: opaque(),
    cvv: opaque(),
    secureData: opaque(32),
  }, now);
}

export function assertPinNotLocked(card: Card): void {
  if (card.pinAttempts >= MAX_PIN_ATTEMPTS) {
    throw new DomainError('pin-locked', `the PIN is locked after ${MAX_PIN_ATTEMPTS} wrong attempts; reset it with PUT /institutions/cards/pin/{cardId}/reset`,
      undefined, { attemptsLeft: 0 });
  }
}
