// What the simulator needs from the store, as one interface: the switch's modules (simulate,
// ledger, states) depend on it rather than on each other or on the store's SQL.
import type { Card, CardProgram, Institution, Transaction } from '../../api/schemas.js';
import type { Channel } from '../../iso8583/codes.js';
import type { StateChange, StoredTransaction, TransactionIndex } from '../store/transactions.js';

/** A card's debits that day on one channel: how many, and how much in one currency. */
export interface UsedToday {
  count: number;
  /** Minor units of the currency asked about. */
  amountMinor: bigint;
}

/** What the simulator needs from the store. Every method is synchronous (libsql). */
export interface SwitchStore {
  institution(id: string): Institution | undefined;
  cardById(institutionId: string, cardId: string): { card: Card; pan: string } | undefined;
  cardByPan(pan: string): { card: Card; pan: string } | undefined;
  program(institutionId: string, programId: string): CardProgram | undefined;
  /** Runs `work` in one write transaction (BEGIN IMMEDIATE … COMMIT); `durable: false`, see TransactionOptions. */
  atomically<T>(work: () => T, options?: { durable?: boolean }): T;
  /** Makes every commit so far durable. */
  sync(): void;
  /** The institution's next STAN of that day, 1-based (wraps after 999999 in the caller). */
  nextStan(institutionId: string, day: string): number;
  /** Approved and in-flight debits of the card on that channel and day: the count, and the amount in `currency`. */
  usage(cardId: string, channel: Channel, day: string, currency: string): UsedToday;
  insert(record: Transaction, index: TransactionIndex): void;
  /** The transaction with its state and amounts. */
  get(institutionId: string, id: string): StoredTransaction | undefined;
  /** Moves a transaction from `from` to `to`; false (nothing written) when it is no longer in `from`. */
  changeState(change: StateChange): boolean;
  /** The newest transaction of the institution with that STAN and RRN. */
  findByStanRrn(institutionId: string, stan: string, rrn: string): Transaction | undefined;
  /** The reversal of a transaction that is awaiting its answer. */
  awaitingReversalOf(institutionId: string, originalId: string): StoredTransaction | undefined;
  /** The newest message of that kind linked to an original that is awaiting its answer. */
  awaitingLinked(institutionId: string, originalId: string, kind: string): StoredTransaction | undefined;
  /** Transactions (any institution) awaiting their answer since before `createdAt`. */
  awaitingBefore(createdAt: string): Array<{ institutionId: string; id: string }>;
  /** The messages linked to an original, oldest first. */
  linked(institutionId: string, originalId: string): StoredTransaction[];
  /** Approved authorizations (originals, any institution) created before `createdAt`. */
  approvedAuthorizationsBefore(createdAt: string): Array<{ institutionId: string; id: string }>;
  /** Minor units of `currency` approved in stand-in on the card that day. */
  standInApprovedToday(cardId: string, day: string, currency: string): number;
  /** Advices (any institution) the webhook has not acknowledged yet. */
  unacknowledgedAdvices(): Array<{ institutionId: string; id: string }>;
}
