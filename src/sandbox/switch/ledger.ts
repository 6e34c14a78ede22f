// The ledger of the sandbox switch: every amount a card's transactions hold, capture, release,
// refund or reverse is decided and written here, inside the store transaction the service opens
// (store.atomically) to read it, so no other message can come between a rule and its write.
//
// An original (an authorization, a financial, an authorization advice) keeps, in minor units of
// its own currency:
//   A  authorized  its approved amount, approved increments added
//   R  released    approved reversals, a completion's remainder, an expiry
//   C  captured    a financial: A − R; a completed authorization: what the completion captured
//   F  refunded    refunds approved or awaiting their answer, less what reversals of them gave back
//
// Invariants, checked before every write of an original's amounts (a breach throws, and the
// store transaction rolls back):
//   1. Nothing given back beyond what was captured: a financial's R + F ≤ A (reversals and
//      refunds together); a completed authorization's F ≤ C.
//   2. A hold is never negative: 0 ≤ R ≤ A, and no amount is below 0.
//   3. Only purchases are refunded: an original whose flow is purchase (processing code 00),
//      never a cash withdrawal, a balance inquiry, a refund, a reversal or a linked message.
//   4. Daily usage per currency: the daily amount limit and the stand-in daily amount compare
//      the card's usage in the message's own currency, in that currency's minor units.
//   5. Every entry is the message sent: its amount is field 4 and its currency field 49 after
//      overrides (which must be well-formed, and a linked message's the original's currency);
//      which rules apply follows the plan (kind, flow), never an overridden MTI or processing code.
//   6. A completion captures at most what is held plus OVER_CLEARING_PERCENT of it.
//   7. One change of a hold at a time: while a reversal or an increment of an original awaits
//      its answer, nothing else may change the hold (409). Refunds reserve their amount when they
//      start, so they may run beside each other, and a reversal may start beside them.
// A balance inquiry moves no money: its amount is 0. A reversal's default amount (the CLI's) is
// `remainingAmount`, which every change of an original's amounts keeps: what a reversal may
// still take, A − R − F.
import type { CardProgram, LifecycleKind, Transaction } from '../../api/schemas.js';
import { AmountError, cardCurrency, currencyInfo, isField4, minorToMajor, type CurrencyInfo } from '../../iso8583/amount.js';
import type { Channel, Intent, ProcessingFlow } from '../../iso8583/codes.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { DomainError, invalidField } from '../errors.js';
import type { StoredTransaction } from '../store/transactions.js';
import type { SwitchStore, UsedToday } from './store-port.js';
import { applyEvent, isRefusal, nextState, type AmountChange, type TransactionEvent, type TransactionState } from './states.js';

/** Over-clearing: a completion may capture what is held plus this share of it (tips, fuel). */
export const OVER_CLEARING_PERCENT = 20n;

/** What a message is, as the simulator planned it (never read from its text). */
export type EntryKind = Intent | LifecycleKind;

/** A message's entry in the ledger: its kind and flow (planned), amount and currency (as sent). */
export interface Entry {
  kind: EntryKind;
  flow: ProcessingFlow;
  currency: string;
  digits: number;
  amountMinor: bigint;
}

/** A card's usage of a channel and day, as the daily limits count it. */
export type { UsedToday } from './store-port.js';

/** Originals that hold until completed, reversed or expired. */
const HOLDING: ReadonlySet<string> = new Set(['authorization', 'advice']);
/** Originals that capture when approved. */
const CAPTURING: ReadonlySet<string> = new Set(['financial']);

const article = (kind: string) => (/^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`);

/**
 * The entry of a message about to be sent: field 4 and 49 of `request` (after `overrides`),
 * checked: a malformed field 4, a currency cards do not transact in, another currency than the
 * original's, or a balance inquiry with an amount, is a 400 naming the field to change.
 */
export function entryOf(kind: EntryKind, flow: ProcessingFlow, request: SwitchMessage, overrides: SwitchMessage | undefined, original?: StoredTransaction): Entry {
  const overridden = (field: string, otherwise: string) => (overrides && field in overrides ? 'overrides' : otherwise);
  const field4 = request['4'];
  if (!isField4(field4)) throw invalidField('overrides', `field 4 must be the amount in minor units, 12 digits (got ${JSON.stringify(String(field4 ?? '').slice(0, 20))})`);
  const code = request['49'] ?? '';
  if (original && code !== original.currency) {
    throw invalidField(overridden('49', 'currency'), `${overrides && '49' in overrides ? 'field 49' : 'currency'} must be the original's currency (${original.currency})`);
  }
  let info: CurrencyInfo;
  try {
    info = cardCurrency(code);
  } catch (error) {
    if (error instanceof AmountError) throw invalidField(overridden('49', 'currency'), error.message);
    throw error;
  }
  const amountMinor = BigInt(field4);
  if (flow === 'balance_inquiry' && !original && amountMinor !== 0n) {
    const field = overridden('4', 'amount');
    throw invalidField(field, `${field === 'overrides' ? 'field 4 ' : ''}of a balance inquiry must be 0: it moves no money`);
  }
  return { kind, flow, currency: info.number, digits: info.digits, amountMinor };
}

/** The ledger's columns of a new row. */
export function columnsOf(entry: Entry): { kind: string; flow: string; currency: string } {
  return { kind: entry.kind, flow: entry.flow, currency: entry.currency };
}

// ---------- what an original holds, captured and may give back ----------

export interface Balances {
  authorized: number;
  held: number;
  captured: number;
  released: number;
  refunded: number;
}

function heldOf(stored: StoredTransaction): number {
  return HOLDING.has(stored.kind) && (stored.state === 'approved' || stored.state === 'reversing') ? stored.amountMinor - stored.reversedMinor : 0;
}

/** What an original captured: a financial's approved amount less releases, or what a completion captured. */
function capturedOf(stored: StoredTransaction): number {
  if (stored.state === 'completed') return stored.capturedMinor;
  if (CAPTURING.has(stored.kind) && (stored.state === 'approved' || stored.state === 'reversing')) return stored.amountMinor - stored.reversedMinor;
  return 0;
}

/** What a reversal may still take: authorized less released and refunded (0 once closed). */
function reversibleOf(stored: StoredTransaction): number {
  if (stored.state !== 'approved' && stored.state !== 'reversing') return 0;
  return stored.amountMinor - stored.reversedMinor - stored.refundedMinor;
}

/** An original's amounts for its lifecycle; refunded counts approved refunds, less their reversals. */
export function balancesOf(original: StoredTransaction, linked: StoredTransaction[]): Balances {
  const refunds = linked.filter((s) => s.kind === 'refund' && (s.state === 'approved' || s.state === 'reversing' || s.state === 'reversed'));
  return {
    authorized: original.state === 'declined' ? 0 : original.amountMinor,
    held: heldOf(original),
    captured: capturedOf(original),
    released: original.reversedMinor,
    refunded: refunds.reduce((sum, s) => sum + s.amountMinor - s.reversedMinor, 0),
  };
}

/** The invariants (top of this file) of an original's amounts as they are about to be written. */
export function checkInvariants(stored: Pick<StoredTransaction, 'flow' | 'amountMinor' | 'reversedMinor' | 'capturedMinor' | 'refundedMinor'>, state: TransactionState): void {
  const { amountMinor: a, reversedMinor: r, capturedMinor: c, refundedMinor: f } = stored;
  const broken = (what: string) => new Error(`ledger invariant broken: ${what} (authorized ${a}, released ${r}, captured ${c}, refunded ${f})`);
  if (a < 0 || r < 0 || c < 0 || f < 0) throw broken('an amount below 0');
  if (r > a) throw broken('more released than authorized');
  if (state === 'completed' ? f > c : r + f > a) throw broken('more given back than captured');
  if (f > 0 && stored.flow !== 'purchase') throw broken('a refund of what is not a purchase');
}

/**
 * Moves an original (or a refund) through the table with new amounts: the invariants are
 * checked on what would be written, and `remainingAmount` (what a reversal may still take) and
 * `__v` follow the change. A refusal of the table is a 409; a check may throw its own error.
 */
function write(
  store: SwitchStore,
  institutionId: string,
  id: string,
  event: TransactionEvent,
  at: Date,
  amounts: (stored: StoredTransaction, to: TransactionState) => AmountChange,
  options: { check?: (stored: StoredTransaction) => void; edit?: (record: Transaction, stored: StoredTransaction, to: TransactionState) => void } = {},
): void {
  const done = applyEvent(store, institutionId, id, event, at, (record, stored, to) => {
    const change = amounts(stored, to);
    const next = { ...stored, ...change };
    checkInvariants(next, to);
    const digits = currencyInfo(stored.currency)?.digits ?? 2;
    record.remainingAmount = minorToMajor(Math.max(0, reversibleOf({ ...next, state: to })), digits);
    options.edit?.(record, stored, to);
    record.__v += 1;
    return { record, ...change };
  }, options.check);
  if (!done.ok) throw new DomainError('conflict', done.reason);
}

/** 409 while an increment of the original awaits its answer: the hold is about to change. */
function requireNoIncrementInFlight(store: SwitchStore, institutionId: string, originalId: string, what: string): void {
  const increment = store.awaitingLinked(institutionId, originalId, 'increment');
  if (increment) throw new DomainError('conflict', `transaction ${originalId} has an increment awaiting its answer (${increment.record.id}); ${what} once it is answered`);
}

function major(minor: number | bigint, digits: number): number {
  return minorToMajor(Math.max(0, Number(minor)), digits);
}

// ---------- messages starting: what each may take (inside the insert's transaction) ----------

/**
 * A reversal starts: of an original or of a refund (not of a reversal or another linked
 * message: 409), approved and with no increment in flight (409), for more than 0 and at most
 * what remains: authorized less released and refunded (400). Its original is `reversing` until
 * the reversal is answered.
 */
export function startReversal(store: SwitchStore, institutionId: string, originalId: string, entry: Entry, at: Date): void {
  const current = store.get(institutionId, originalId);
  if (!current) throw new DomainError('not-found', `original transaction ${originalId} not found`);
  if (current.kind === 'reversal' || current.kind === 'timeout-reversal') throw new DomainError('conflict', `transaction ${originalId} is a reversal and cannot be reversed`);
  if (current.originalId && current.kind !== 'refund') {
    throw new DomainError('conflict', `transaction ${originalId} is ${article(current.kind)}; reverse (part of) its original ${current.originalId} instead`);
  }
  requireNoIncrementInFlight(store, institutionId, originalId, 'reverse it');
  const started = applyEvent(store, institutionId, current, 'reversal-requested', at, (record) => ({ record }), (stored) => {
    if (entry.amountMinor <= 0n) throw invalidField('amount', 'of a reversal must be more than 0');
    const rest = reversibleOf(stored);
    if (entry.amountMinor > BigInt(rest)) {
      const given = [stored.reversedMinor > 0 ? `${major(stored.reversedMinor, entry.digits)} reversed` : '', stored.refundedMinor > 0 ? `${major(stored.refundedMinor, entry.digits)} refunded` : ''].filter(Boolean);
      const of = given.length > 0 ? ` of ${major(stored.amountMinor, entry.digits)}; ${given.join(', ')}` : '';
      throw invalidField('amount', `exceeds what remains of the original (${major(rest, entry.digits)}${of})`);
    }
  });
  if (!started.ok) {
    const holder = store.awaitingLinked(institutionId, originalId, 'reversal');
    throw new DomainError('conflict', holder ? `${started.reason} (${holder.record.id})` : started.reason);
  }
}

/** An increment needs an approved authorization that still holds (409), and an amount more than 0 (400). */
export function requireHold(store: SwitchStore, institutionId: string, originalId: string, entry: Entry): void {
  const current = store.get(institutionId, originalId)!;
  const to = nextState(current.state, 'increment-approved');
  if (isRefusal(to)) throw new DomainError('conflict', `transaction ${originalId} ${to.refused(current.record)}`);
  if (entry.amountMinor <= 0n) throw invalidField('amount', 'of an increment must be more than 0');
}

/**
 * A refund reserves its amount against what its original captured: only a purchase is refunded
 * (409), something must have been captured (409), and the refunds never pass it (400).
 */
export function reserveRefund(store: SwitchStore, institutionId: string, originalId: string, entry: Entry, at: Date): void {
  const current = store.get(institutionId, originalId)!;
  if (current.flow !== 'purchase' || !(HOLDING.has(current.kind) || CAPTURING.has(current.kind)) || current.originalId) {
    throw new DomainError('conflict', `transaction ${originalId} is not a purchase (${current.flow.replace('_', ' ') || current.kind}); only a purchase can be refunded`);
  }
  write(store, institutionId, originalId, 'refund-reserved', at, (stored) => ({ refundedMinor: stored.refundedMinor + Number(entry.amountMinor) }), {
    check: (stored) => {
      const captured = capturedOf(stored);
      if (captured === 0) throw new DomainError('conflict', `transaction ${originalId} has captured nothing that could be refunded (an authorization is refunded once completed)`);
      if (entry.amountMinor <= 0n) throw invalidField('amount', 'of a refund must be more than 0');
      const left = captured - stored.refundedMinor;
      if (entry.amountMinor > BigInt(left)) {
        throw invalidField('amount', `exceeds what is left to refund: ${major(left, entry.digits)} (the original captured ${major(captured, entry.digits)}, ${major(stored.refundedMinor, entry.digits)} already refunded)`);
      }
    },
  });
}

/**
 * A completion (0220) is the network's decision: the original is captured now for the
 * completion's amount, at most what it holds plus OVER_CLEARING_PERCENT (400); what it held
 * beyond that amount is released. 409 while an increment of it awaits its answer.
 */
export function captureCompletion(store: SwitchStore, institutionId: string, originalId: string, entry: Entry, at: Date): void {
  requireNoIncrementInFlight(store, institutionId, originalId, 'complete it');
  write(store, institutionId, originalId, 'completion-captured', at, (stored) => {
    const held = stored.amountMinor - stored.reversedMinor;
    const captured = Number(entry.amountMinor);
    return { capturedMinor: captured, reversedMinor: stored.reversedMinor + Math.max(0, held - captured) };
  }, {
    check: (stored) => {
      if (entry.amountMinor <= 0n) throw invalidField('amount', 'of a completion must be more than 0');
      const held = BigInt(stored.amountMinor - stored.reversedMinor);
      const most = held + (held * OVER_CLEARING_PERCENT) / 100n;
      if (entry.amountMinor > most) {
        throw invalidField('amount', `exceeds what a completion may capture: ${major(most, entry.digits)} (the ${major(held, entry.digits)} held plus ${OVER_CLEARING_PERCENT}%)`);
      }
    },
    edit: (record) => { record.releaseReason = 'completion'; },
  });
}

/** Releases an approved authorization's whole hold (reason expiry). 409 when it holds nothing or an increment is in flight. */
export function expire(store: SwitchStore, institutionId: string, id: string, at: Date): void {
  const stored = store.get(institutionId, id);
  if (!stored) throw new DomainError('not-found', `transaction ${id} not found`);
  if (!HOLDING.has(stored.kind) || stored.originalId) throw new DomainError('conflict', `transaction ${id} is not an authorization; only an authorization's hold expires`);
  requireNoIncrementInFlight(store, institutionId, id, 'let it expire');
  write(store, institutionId, id, 'hold-expired', at, (current) => ({ reversedMinor: current.amountMinor }), {
    edit: (record) => { record.reversed = true; record.releaseReason = 'expiry'; },
  });
}

// ---------- answers: what an approved or declined message does to its original ----------

export interface Answer {
  approved: boolean;
  /** What the message asked, and what was approved (less with a partial approval, code 10). */
  requestedMinor: bigint;
  approvedMinor: bigint;
  /** The answered message's id (a reversal's becomes its original's reversalId). */
  messageId: string;
}

/**
 * The original's side of a linked message's answer: an approved increment raises the hold; a
 * refund approved for less, or declined, gives back what it reserved beyond what was approved;
 * an approved reversal releases its amount (a reversal of a refund also gives that part back to
 * the refund's original), a declined one leaves the original approved.
 */
export function applyLinkedAnswer(store: SwitchStore, institutionId: string, kind: EntryKind, originalId: string, answer: Answer, at: Date): void {
  const { approved, requestedMinor } = answer;
  const approvedMinor = approved ? answer.approvedMinor : 0n;
  if (kind === 'increment') {
    if (approved) write(store, institutionId, originalId, 'increment-approved', at, (stored) => ({ amountMinor: stored.amountMinor + Number(approvedMinor) }));
    return;
  }
  if (kind === 'refund') {
    if (approvedMinor < requestedMinor) giveBack(store, institutionId, originalId, Number(requestedMinor - approvedMinor), at);
    return;
  }
  if (kind !== 'reversal') return;
  const original = store.get(institutionId, originalId);
  if (!original) return;
  const released = original.reversedMinor + Number(approvedMinor);
  const event: TransactionEvent = !approved ? 'reversal-declined'
    : released >= original.amountMinor ? 'reversal-approved-in-full' : 'reversal-approved-in-part';
  if (!approved) {
    applyEvent(store, institutionId, original, event, at, (record) => ({ record }));
    return;
  }
  write(store, institutionId, originalId, event, at, () => ({ reversedMinor: released }), {
    edit: (record, _stored, to) => { record.reversed = to === 'reversed'; record.reversalId = answer.messageId; },
  });
  if (original.kind === 'refund' && original.originalId) {
    write(store, institutionId, original.originalId, 'refund-reversed', at, (stored) => ({ refundedMinor: stored.refundedMinor - Number(approvedMinor) }));
  }
}

/** A refund that will not be approved (declined, abandoned) gives its reservation back to its original. */
export function giveBackRefund(store: SwitchStore, institutionId: string, refund: StoredTransaction, at: Date): void {
  if (refund.originalId) giveBack(store, institutionId, refund.originalId, refund.amountMinor, at);
}

function giveBack(store: SwitchStore, institutionId: string, originalId: string, minor: number, at: Date): void {
  write(store, institutionId, originalId, 'refund-given-back', at, (stored) => ({ refundedMinor: stored.refundedMinor - minor }));
}

// ---------- limits ----------

/** A limit in major units → minor units of the entry's currency. */
function limitMinor(major: number, digits: number): bigint {
  return BigInt(Math.round(major * 10 ** digits));
}

/**
 * 61 when today's amount on the card and channel, in the entry's currency, plus this one would
 * pass the daily amount (major units of that currency); 65 when one more would pass the daily
 * count (every currency). A limit of 0 means "no limit". What counts: an original's amount
 * (not a refund's, not a balance inquiry's, which is 0); an increment's amount but not its
 * count (it only changes its original); a refund's count.
 */
export function checkDailyLimits(store: SwitchStore, cardId: string, program: CardProgram | undefined, channel: Channel, entry: Entry, day: string): string | undefined {
  const limit = program?.channels?.[channel]?.dailyLimit;
  if (!limit) return undefined;
  const countsAmount = entry.kind !== 'refund' && entry.flow !== 'refund';
  const checkAmount = countsAmount && limit.amount > 0;
  const checkCount = entry.kind !== 'increment' && limit.count > 0;
  if (!checkAmount && !checkCount) return undefined;
  // Read only when a limit applies: a program without limits never pays for the usage query.
  const today = store.usage(cardId, channel, day, entry.currency);
  if (checkAmount && today.amountMinor + entry.amountMinor > limitMinor(limit.amount, entry.digits)) return '61';
  if (checkCount && today.count + 1 > limit.count) return '65';
  return undefined;
}

/**
 * Whether the network may approve in stand-in: at most `maxAmount` for the message, and the
 * card's stand-in approvals that UTC day in the entry's currency at most `dailyAmount`.
 */
export function standInFits(store: SwitchStore, policy: { maxAmount: number; dailyAmount: number }, cardId: string, entry: Entry, day: string): boolean {
  const today = BigInt(store.standInApprovedToday(cardId, day, entry.currency));
  return entry.amountMinor <= limitMinor(policy.maxAmount, entry.digits) && today + entry.amountMinor <= limitMinor(policy.dailyAmount, entry.digits);
}
