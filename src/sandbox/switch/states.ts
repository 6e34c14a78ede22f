// The life of a switch transaction, as one table: every state, every event, and for each pair
// either the next state or why the event does not apply there. The simulator applies it with a
// conditional write (UPDATE … WHERE state = the state it read), inside the SQLite transaction
// that read it, so a state only ever moves forward along this table.
//
//   awaiting   inserted; in forward mode the institution's answer is outstanding
//   approved   answered 00 (an authorization shows `pending`, a financial or reversal `completed`)
//   declined   answered with any other code, or failed (96): `failed`
//   reversing  approved, and a reversal of it is awaiting its own answer
//   reversed   approved reversals add up to its whole amount, or its hold expired: `reversed`
//   completed  an authorization captured by a completion (0220): `completed`
//
// A partial reversal moves reversing → approved (the rest stays approved and reversible);
// the one that reaches the whole amount moves reversing → reversed. The lifecycle messages
// (sandbox extensions, docs/switch.md) change an original's amounts without leaving its state
// (an increment raises the hold, a refund takes from what was captured) or end its hold
// (a completion captures it, an expiry releases it).
import type { Transaction } from '../../api/schemas.js';
import { TRANSACTION_STATES, type StateChange, type StoredTransaction, type TransactionState } from '../store/transactions.js';
import type { SwitchStore } from './store-port.js';

export { TRANSACTION_STATES, type TransactionState };

export const TRANSACTION_EVENTS = [
  /** The transaction's own answer arrives, approving it. */
  'answer-approves',
  /** Its own answer arrives declining it, or no valid answer came (96). */
  'answer-declines',
  /** A reversal of it is requested (it becomes the reversal's original). */
  'reversal-requested',
  /** That reversal is approved for less than what remains. */
  'reversal-approved-in-part',
  /** That reversal is approved for all that remains. */
  'reversal-approved-in-full',
  /** That reversal is declined or failed. */
  'reversal-declined',
  /** An incremental authorization of it is approved: its hold grows. */
  'increment-approved',
  /** A completion (0220) captures it: the hold ends, any remainder released. */
  'completion-captured',
  /** A refund of it is requested (its amount reserved against what was captured) or given back (declined). */
  'refund-reserved',
  'refund-given-back',
  /** A reversal of one of its refunds is approved: that part is no longer refunded. */
  'refund-reversed',
  /** Its hold is past the program's hold period (or forced): released, reason expiry. */
  'hold-expired',
] as const;
export type TransactionEvent = (typeof TRANSACTION_EVENTS)[number];

/** Why an event does not apply in a state (completes "transaction <id> …"). */
export interface Refusal {
  refused: (record: Pick<Transaction, 'responseCode' | 'reversalId'>) => string;
}

const refuse = (refused: Refusal['refused']): Refusal => ({ refused });
const NO_ANSWER_AWAITED = refuse(() => 'is not awaiting an answer; a late or repeated answer changes nothing');
const NO_REVERSAL_IN_FLIGHT = refuse(() => 'has no reversal in progress');
const NO_HOLD = refuse((t) => `holds nothing (${t.responseCode ? 'it is not an approved authorization' : 'no answer yet'})`);
const NOTHING_CAPTURED = refuse(() => 'has captured nothing that could be refunded');
const LIFECYCLE_CLOSED = refuse(() => 'is already closed (reversed, expired or completed)');
const REVERSAL_FIRST = refuse(() => 'has a reversal in progress; wait for its answer');
/** The lifecycle events in states that have no hold or capture. */
const NO_LIFECYCLE = {
  'increment-approved': NO_HOLD,
  'completion-captured': NO_HOLD,
  'refund-reserved': NOTHING_CAPTURED,
  'refund-given-back': NOTHING_CAPTURED,
  'refund-reversed': NOTHING_CAPTURED,
  'hold-expired': NO_HOLD,
} as const;

export const TRANSITIONS: Record<TransactionState, Record<TransactionEvent, TransactionState | Refusal>> = {
  awaiting: {
    'answer-approves': 'approved',
    'answer-declines': 'declined',
    'reversal-requested': refuse(() => 'is still awaiting the institution\'s answer; reverse it once it has been answered'),
    'reversal-approved-in-part': NO_REVERSAL_IN_FLIGHT,
    'reversal-approved-in-full': NO_REVERSAL_IN_FLIGHT,
    'reversal-declined': NO_REVERSAL_IN_FLIGHT,
    ...NO_LIFECYCLE,
  },
  approved: {
    'answer-approves': NO_ANSWER_AWAITED,
    'answer-declines': NO_ANSWER_AWAITED,
    'reversal-requested': 'reversing',
    'reversal-approved-in-part': NO_REVERSAL_IN_FLIGHT,
    'reversal-approved-in-full': NO_REVERSAL_IN_FLIGHT,
    'reversal-declined': NO_REVERSAL_IN_FLIGHT,
    'increment-approved': 'approved',
    'completion-captured': 'completed',
    'refund-reserved': 'approved',
    'refund-given-back': 'approved',
    'refund-reversed': 'approved',
    'hold-expired': 'reversed',
  },
  declined: {
    'answer-approves': NO_ANSWER_AWAITED,
    'answer-declines': NO_ANSWER_AWAITED,
    'reversal-requested': refuse((t) => `was not approved (${t.responseCode || 'no answer'}); there is nothing to reverse`),
    'reversal-approved-in-part': NO_REVERSAL_IN_FLIGHT,
    'reversal-approved-in-full': NO_REVERSAL_IN_FLIGHT,
    'reversal-declined': NO_REVERSAL_IN_FLIGHT,
    ...NO_LIFECYCLE,
  },
  reversing: {
    'answer-approves': NO_ANSWER_AWAITED,
    'answer-declines': NO_ANSWER_AWAITED,
    'reversal-requested': refuse(() => 'has a reversal in progress; wait for its answer'),
    'reversal-approved-in-part': 'approved',
    'reversal-approved-in-full': 'reversed',
    'reversal-declined': 'approved',
    'increment-approved': REVERSAL_FIRST,
    'completion-captured': REVERSAL_FIRST,
    'refund-reserved': REVERSAL_FIRST,
    'refund-given-back': 'reversing',
    'refund-reversed': 'reversing',
    'hold-expired': REVERSAL_FIRST,
  },
  reversed: {
    'answer-approves': NO_ANSWER_AWAITED,
    'answer-declines': NO_ANSWER_AWAITED,
    'reversal-requested': refuse((t) => `is already reversed${t.reversalId ? ` (by ${t.reversalId})` : ''}`),
    'reversal-approved-in-part': NO_REVERSAL_IN_FLIGHT,
    'reversal-approved-in-full': NO_REVERSAL_IN_FLIGHT,
    'reversal-declined': NO_REVERSAL_IN_FLIGHT,
    'increment-approved': LIFECYCLE_CLOSED,
    'completion-captured': LIFECYCLE_CLOSED,
    'refund-reserved': NOTHING_CAPTURED,
    'refund-given-back': NOTHING_CAPTURED,
    'refund-reversed': NOTHING_CAPTURED,
    'hold-expired': LIFECYCLE_CLOSED,
  },
  completed: {
    'answer-approves': NO_ANSWER_AWAITED,
    'answer-declines': NO_ANSWER_AWAITED,
    'reversal-requested': refuse(() => 'is completed (captured); refund it instead'),
    'reversal-approved-in-part': NO_REVERSAL_IN_FLIGHT,
    'reversal-approved-in-full': NO_REVERSAL_IN_FLIGHT,
    'reversal-declined': NO_REVERSAL_IN_FLIGHT,
    'increment-approved': LIFECYCLE_CLOSED,
    'completion-captured': LIFECYCLE_CLOSED,
    'refund-reserved': 'completed',
    'refund-given-back': 'completed',
    'refund-reversed': 'completed',
    'hold-expired': LIFECYCLE_CLOSED,
  },
};

/** The next state, or the refusal of the table. */
export function nextState(state: TransactionState, event: TransactionEvent): TransactionState | Refusal {
  return TRANSITIONS[state][event];
}

export function isRefusal(outcome: TransactionState | Refusal): outcome is Refusal {
  return typeof outcome !== 'string';
}

/**
 * The API's transactionStatus of a state. Approved is `pending` for an authorization (it still
 * awaits its completion) and `completed` otherwise.
 */
export function transactionStatusOf(state: TransactionState, mti: string): Transaction['transactionStatus'] {
  switch (state) {
    case 'awaiting': return 'pending';
    case 'approved':
    case 'reversing': return mti.startsWith('01') ? 'pending' : 'completed';
    case 'declined': return 'failed';
    case 'reversed': return 'reversed';
    case 'completed': return 'completed';
  }
}

/** States whose amount still counts toward the card's daily limits (reserved or approved). */
export const COUNTED_STATES: readonly TransactionState[] = TRANSACTION_STATES.filter((s) => s === 'awaiting' || s === 'approved' || s === 'reversing' || s === 'completed');

/** The MTI of what was planned, by kind: the status follows it, not an MTI overridden in the message sent. */
const PLANNED_MTI: Readonly<Record<string, string>> = {
  authorization: '0100', increment: '0100', advice: '0120', financial: '0200', refund: '0200', completion: '0220', reversal: '0420',
};

/** New values of a row's amounts, minor units (each unchanged when absent). */
export type AmountChange = Pick<StateChange, 'reversedMinor' | 'amountMinor' | 'capturedMinor' | 'refundedMinor'>;

/**
 * Applies `event` to a stored transaction through the table: refused (nothing written) where
 * the table says so or when the row moved on since it was read; else `change` edits the record
 * and the row moves to the next state. `target` is the transaction's id, or the row as the
 * caller just wrote it, which is then not read back (the write is conditional all the same).
 */
export function applyEvent(
  store: SwitchStore,
  institutionId: string,
  target: string | StoredTransaction,
  event: TransactionEvent,
  at: Date,
  change: (record: Transaction, stored: StoredTransaction, to: TransactionState) => { record: Transaction } & AmountChange,
  check?: (stored: StoredTransaction) => void,
): { ok: true; to: TransactionState } | { ok: false; reason: string } {
  const id = typeof target === 'string' ? target : target.record.id;
  const stored = typeof target === 'string' ? store.get(institutionId, id) : target;
  if (!stored) return { ok: false, reason: `transaction ${id} not found` };
  const to = nextState(stored.state, event);
  if (isRefusal(to)) return { ok: false, reason: `transaction ${id} ${to.refused(stored.record)}` };
  check?.(stored);
  const { record, ...amounts } = change(stored.record, stored, to);
  record.transactionStatus = transactionStatusOf(to, PLANNED_MTI[stored.kind] ?? record.mti);
  record.updatedAt = at.toISOString();
  const moved = store.changeState({ institutionId, id, from: stored.state, to, record, ...amounts });
  return moved ? { ok: true, to } : { ok: false, reason: `transaction ${id} changed while it was being updated` };
}
