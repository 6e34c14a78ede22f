// The life of a switch transaction, as one table: every state, every event, and for each pair
// either the next state or why the event does not apply there. The simulator applies it with a
// conditional write (UPDATE … WHERE state = the state it read), inside the SQLite transaction
// that read it, so a state only ever moves forward along this table.
//
//   awaiting   inserted; in forward mode the institution's answer is outstanding
//   approved   answered 00 (an authorization shows `pending`, a financial or reversal `completed`)
//   declined   answered with any other code, or failed (96): `failed`
//   reversing  approved, and a reversal of it is awaiting its own answer
//   reversed   approved reversals add up to its whole amount: `reversed`
//
// A partial reversal moves reversing → approved (the rest stays approved and reversible);
// the one that reaches the whole amount moves reversing → reversed.
import type { Transaction } from '../../api/schemas.js';

export const TRANSACTION_STATES = ['awaiting', 'approved', 'declined', 'reversing', 'reversed'] as const;
export type TransactionState = (typeof TRANSACTION_STATES)[number];

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
] as const;
export type TransactionEvent = (typeof TRANSACTION_EVENTS)[number];

/** Why an event does not apply in a state (completes "transaction <id> …"). */
export interface Refusal {
  refused: (record: Pick<Transaction, 'responseCode' | 'reversalId'>) => string;
}

const refuse = (refused: Refusal['refused']): Refusal => ({ refused });
const NO_ANSWER_AWAITED = refuse(() => 'is not awaiting an answer; a late or repeated answer changes nothing');
const NO_REVERSAL_IN_FLIGHT = refuse(() => 'has no reversal in progress');

export const TRANSITIONS: Record<TransactionState, Record<TransactionEvent, TransactionState | Refusal>> = {
  awaiting: {
    'answer-approves': 'approved',
    'answer-declines': 'declined',
    'reversal-requested': refuse(() => 'is still awaiting the institution\'s answer; reverse it once it has been answered'),
    'reversal-approved-in-part': NO_REVERSAL_IN_FLIGHT,
    'reversal-approved-in-full': NO_REVERSAL_IN_FLIGHT,
    'reversal-declined': NO_REVERSAL_IN_FLIGHT,
  },
  approved: {
    'answer-approves': NO_ANSWER_AWAITED,
    'answer-declines': NO_ANSWER_AWAITED,
    'reversal-requested': 'reversing',
    'reversal-approved-in-part': NO_REVERSAL_IN_FLIGHT,
    'reversal-approved-in-full': NO_REVERSAL_IN_FLIGHT,
    'reversal-declined': NO_REVERSAL_IN_FLIGHT,
  },
  declined: {
    'answer-approves': NO_ANSWER_AWAITED,
    'answer-declines': NO_ANSWER_AWAITED,
    'reversal-requested': refuse((t) => `was not approved (${t.responseCode || 'no answer'}); there is nothing to reverse`),
    'reversal-approved-in-part': NO_REVERSAL_IN_FLIGHT,
    'reversal-approved-in-full': NO_REVERSAL_IN_FLIGHT,
    'reversal-declined': NO_REVERSAL_IN_FLIGHT,
  },
  reversing: {
    'answer-approves': NO_ANSWER_AWAITED,
    'answer-declines': NO_ANSWER_AWAITED,
    'reversal-requested': refuse(() => 'has a reversal in progress; wait for its answer'),
    'reversal-approved-in-part': 'approved',
    'reversal-approved-in-full': 'reversed',
    'reversal-declined': 'approved',
  },
  reversed: {
    'answer-approves': NO_ANSWER_AWAITED,
    'answer-declines': NO_ANSWER_AWAITED,
    'reversal-requested': refuse((t) => `is already reversed${t.reversalId ? ` (by ${t.reversalId})` : ''}`),
    'reversal-approved-in-part': NO_REVERSAL_IN_FLIGHT,
    'reversal-approved-in-full': NO_REVERSAL_IN_FLIGHT,
    'reversal-declined': NO_REVERSAL_IN_FLIGHT,
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
  }
}

/** States whose amount still counts toward the card's daily limits (reserved or approved). */
export const COUNTED_STATES: readonly TransactionState[] = TRANSACTION_STATES.filter((s) => s === 'awaiting' || s === 'approved' || s === 'reversing');
