// Card transactions. The switch module writes them; GET /institutions/transactions reads them.
// The record column is the Transaction of the API; the other columns are what is filtered,
// matched or summed on.
import type { CardStatus, Transaction, TransactionStatus } from '../../api/schemas.js';
import type { Static } from '@sinclair/typebox';
import type { Db, Statement } from './db.js';
import { APPROVED_CODES, type Channel } from '../../iso8583/codes.js';

/** The values of the state column; their transitions are the switch's table (switch/states.ts). */
export const TRANSACTION_STATES = ['awaiting', 'approved', 'declined', 'reversing', 'reversed', 'completed'] as const;
export type TransactionState = (typeof TRANSACTION_STATES)[number];

type TransactionStatusValue = Static<typeof TransactionStatus>;
type CardStatusValue = Static<typeof CardStatus>;

/** Columns that are not plainly in the record, or that the caller decides. */
export interface TransactionIndex {
  /** `pos`, `atm` or `web`: the channel whose daily limits this transaction counts against. */
  channel: Channel;
  /** Amount in minor units (field 4). */
  amountMinor: number;
  /** The switch-clock day the transaction counts against for daily limits, YYYY-MM-DD (UTC). */
  day: string;
  /** The switch's state of the transaction (its transitions are the switch module's table). */
  state: TransactionState;
  /** A linked message's original transaction. */
  originalId?: string;
  /** The ledger's columns (src/sandbox/switch/ledger.ts): from the simulator's plan, never from overridden text. */
  kind: string;
  flow: string;
  currency: string;
}

/** A stored transaction with the columns the switch's transitions read. */
export interface StoredTransaction {
  record: Transaction;
  state: TransactionState;
  /** Field 4 in minor units. */
  amountMinor: number;
  /** Minor units of the hold released: approved reversals, a completion's remainder, an expiry. */
  reversedMinor: number;
  /** Minor units a completion captured (an authorization that became `completed`). */
  capturedMinor: number;
  /** Minor units refunds took back (approved or in flight). */
  refundedMinor: number;
  /** The original of a linked message (reversal, increment, completion, refund, advice). */
  originalId?: string;
  /** The message as the simulator planned it: authorization, financial, reversal, or a lifecycle kind. */
  kind: string;
  /** Its processing flow: purchase, cash_withdrawal, balance_inquiry, refund. */
  flow: string;
  /** ISO 4217 numeric currency of its amounts. */
  currency: string;
}

/** A conditional change of state: applied only while the row is still in `from`. */
export interface StateChange {
  institutionId: string;
  id: string;
  from: TransactionState;
  to: TransactionState;
  /** The record as it is after the change (its transactionStatus fills the status column). */
  record: Transaction;
  /** New values of the amounts, minor units; each unchanged when absent. */
  reversedMinor?: number;
  amountMinor?: number;
  capturedMinor?: number;
  refundedMinor?: number;
}

export interface TransactionListQuery {
  institutionId: string;
  merchantId?: string;
  terminalId?: string;
  cardId?: string;
  cardStatus?: CardStatusValue;
  transactionStatus?: TransactionStatusValue;
  limit: number;
  offset: number;
}

export interface DailyUsage {
  count: number;
  amountMinor: number;
}

type StoredRow = {
  record: string; state: TransactionState; amountMinor: number; reversedMinor: number; capturedMinor: number; refundedMinor: number; originalId: string | null;
  kind: string; flow: string; currency: string;
};

function storedOf(row: unknown): StoredTransaction | undefined {
  if (!row) return undefined;
  const { record, state, amountMinor, reversedMinor, capturedMinor, refundedMinor, originalId, kind, flow, currency } = row as StoredRow;
  return { record: JSON.parse(record) as Transaction, state, amountMinor, reversedMinor, capturedMinor, refundedMinor, ...(originalId ? { originalId } : {}), kind, flow, currency };
}

export class TransactionStore {
  private readonly insertTransaction: Statement;
  private readonly selectTransaction: Statement;
  private readonly selectByStanRrn: Statement;
  private readonly selectStored: Statement;
  private readonly changeState: Statement;
  private readonly sumDailyUsage: Statement;
  private readonly selectLastStan: Statement;
  private readonly selectAwaitingLinked: Statement;
  private readonly selectAwaitingBefore: Statement;
  private readonly selectLinked: Statement;
  private readonly selectApprovedAuthorizationsBefore: Statement;
  private readonly sumStandInApproved: Statement;
  private readonly selectUnacknowledgedAdvices: Statement;
  private readonly listStatements = new Map<string, { page: Statement; count: Statement }>();

  constructor(private readonly db: Db) {
    this.insertTransaction = db.prepare(
      `INSERT INTO transactions (id, institution_id, card_id, stan, rrn, status, state, original_id, merchant_id, terminal_id, channel, amount_minor, day, created_at, record, kind, flow, currency)
       VALUES (@id, @institutionId, @cardId, @stan, @rrn, @status, @state, @originalId, @merchantId, @terminalId, @channel, @amountMinor, @day, @createdAt, @record, @kind, @flow, @currency)`,
    );
    this.selectTransaction = db.prepare('SELECT record FROM transactions WHERE id = ? AND institution_id = ?');
    this.selectByStanRrn = db.prepare(
      'SELECT record FROM transactions WHERE institution_id = ? AND stan = ? AND rrn = ? ORDER BY created_at DESC, id DESC LIMIT 1',
    );
    this.selectLastStan = db.prepare("SELECT MAX(CAST(stan AS INTEGER)) AS stan FROM transactions WHERE institution_id = ? AND substr(rrn, 1, 4) = ? AND stan GLOB '[0-9]*'");
    const stored = `SELECT record, state, amount_minor AS amountMinor, reversed_minor AS reversedMinor, captured_minor AS capturedMinor,
      refunded_minor AS refundedMinor, original_id AS originalId, kind, flow, currency FROM transactions`;
    this.selectLinked = db.prepare(`${stored} WHERE original_id = ? AND institution_id = ? ORDER BY created_at, id`);
    this.selectApprovedAuthorizationsBefore = db.prepare(
      `SELECT institution_id AS institutionId, id FROM transactions
       WHERE state = 'approved' AND original_id IS NULL AND created_at < ? AND kind IN ('authorization', 'advice') ORDER BY created_at`,
    );
    this.selectStored = db.prepare(`${stored} WHERE id = ? AND institution_id = ?`);
    this.selectAwaitingLinked = db.prepare(`${stored} WHERE original_id = ? AND institution_id = ? AND state = 'awaiting' AND kind = ? ORDER BY created_at DESC LIMIT 1`);
    this.selectAwaitingBefore = db.prepare("SELECT institution_id AS institutionId, id FROM transactions WHERE state = 'awaiting' AND created_at < ? ORDER BY created_at");
    this.sumStandInApproved = db.prepare(
      `SELECT COALESCE(SUM(amount_minor), 0) AS amountMinor FROM transactions
       WHERE card_id = ? AND day = ? AND currency = ? AND original_id IS NULL
         AND json_extract(record, '$.standIn.decision') IN (SELECT value FROM json_each('${JSON.stringify([...APPROVED_CODES])}'))`,
    );
    // Advices are few and short-lived: a scan is cheaper than an index every row pays for.
    this.selectUnacknowledgedAdvices = db.prepare(
      "SELECT institution_id AS institutionId, id FROM transactions WHERE json_extract(record, '$.advice.acknowledged') = 0 ORDER BY created_at",
    );
    // The state guard makes the check and the change one statement: a change computed from a
    // state that has moved on since it was read changes nothing.
    this.changeState = db.prepare(
      `UPDATE transactions SET state = @to, status = @status, record = @record, reversed_minor = COALESCE(@reversedMinor, reversed_minor),
              amount_minor = COALESCE(@amountMinor, amount_minor), captured_minor = COALESCE(@capturedMinor, captured_minor),
              refunded_minor = COALESCE(@refundedMinor, refunded_minor)
       WHERE id = @id AND institution_id = @institutionId AND state = @from`,
    );
    // The ledger's daily usage (src/sandbox/switch/ledger.ts), by the planned kind and flow,
    // never the message's text. Reversals never count; of the others, those in the given states
    // count. Amounts, in one currency: refunds add nothing; an original adds what it holds
    // (authorized less released) or, completed, what was captured; a linked increment adds its
    // amount only while it awaits its answer (once answered it is folded into its original).
    // Counts, over every currency: originals and refunds, not the messages that only change an
    // original.
    this.sumDailyUsage = db.prepare(
      `SELECT COALESCE(SUM(CASE WHEN original_id IS NULL OR kind = 'refund' THEN 1 ELSE 0 END), 0) AS count,
              COALESCE(SUM(CASE
                WHEN currency <> @currency OR kind = 'refund' OR flow = 'refund' THEN 0
                WHEN original_id IS NOT NULL THEN CASE WHEN state = 'awaiting' AND kind = 'increment' THEN amount_minor ELSE 0 END
                WHEN state = 'completed' THEN captured_minor
                ELSE amount_minor - reversed_minor END), 0) AS amountMinor
       FROM transactions
       WHERE card_id = @cardId AND channel = @channel AND day = @day
         AND state IN (SELECT value FROM json_each(@states))
         AND kind NOT IN ('reversal', 'timeout-reversal')`,
    );
  }

  insert(transaction: Transaction, index: TransactionIndex): void {
    this.insertTransaction.run({
      id: transaction.id,
      institutionId: transaction.institution.id,
      cardId: transaction.card?.id ?? null,
      stan: transaction.stan,
      rrn: transaction.rrn,
      status: transaction.transactionStatus,
      state: index.state,
      originalId: index.originalId ?? null,
      merchantId: transaction.merchantId,
      terminalId: transaction.terminalId,
      channel: index.channel,
      amountMinor: index.amountMinor,
      day: index.day,
      createdAt: transaction.createdAt,
      record: JSON.stringify(transaction),
      kind: index.kind,
      flow: index.flow,
      currency: index.currency,
    });
  }

  /** The institution's transaction, or undefined (also for another institution's). */
  get(institutionId: string, id: string): Transaction | undefined {
    const row = this.selectTransaction.get(id, institutionId) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as Transaction) : undefined;
  }

  /** The newest transaction of the institution with this STAN and RRN (reversal matching). */
  findByStanRrn(institutionId: string, stan: string, rrn: string): Transaction | undefined {
    const row = this.selectByStanRrn.get(institutionId, stan, rrn) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as Transaction) : undefined;
  }

  /** The highest numeric STAN of the institution's transactions whose RRN starts with `rrnDay` (year digit, day of the year), 0 when none. */
  lastStan(institutionId: string, rrnDay: string): number {
    return (this.selectLastStan.get(institutionId, rrnDay) as { stan: number | null }).stan ?? 0;
  }

  /** The institution's transaction with its state and amounts, or undefined. */
  getStored(institutionId: string, id: string): StoredTransaction | undefined {
    return storedOf(this.selectStored.get(id, institutionId));
  }

  /** The reversal of `originalId` that is awaiting its answer, if any. */
  awaitingReversalOf(institutionId: string, originalId: string): StoredTransaction | undefined {
    return this.awaitingLinked(institutionId, originalId, 'reversal');
  }

  /** The newest message of that kind linked to `originalId` that is awaiting its answer, if any. */
  awaitingLinked(institutionId: string, originalId: string, kind: string): StoredTransaction | undefined {
    return storedOf(this.selectAwaitingLinked.get(originalId, institutionId, kind));
  }

  /** Transactions of every institution still awaiting their answer that were created before `createdAt`. */
  awaitingBefore(createdAt: string): Array<{ institutionId: string; id: string }> {
    return this.selectAwaitingBefore.all(createdAt) as Array<{ institutionId: string; id: string }>;
  }

  /** Moves the row from `from` to `to` and rewrites its record; false (nothing written) when it is no longer in `from`. */
  changeStateIf(change: StateChange): boolean {
    return this.changeState.run({
      id: change.id,
      institutionId: change.institutionId,
      from: change.from,
      to: change.to,
      status: change.record.transactionStatus,
      record: JSON.stringify(change.record),
      reversedMinor: change.reversedMinor ?? null,
      amountMinor: change.amountMinor ?? null,
      capturedMinor: change.capturedMinor ?? null,
      refundedMinor: change.refundedMinor ?? null,
    }).changes === 1;
  }

  /** The messages linked to an original (reversals, increments, completions, refunds, advices), oldest first. */
  linked(institutionId: string, originalId: string): StoredTransaction[] {
    return (this.selectLinked.all(originalId, institutionId) as unknown[]).map((row) => storedOf(row)!);
  }

  /** Minor units of `currency` the network approved in stand-in on the card that day. */
  standInApprovedToday(cardId: string, day: string, currency: string): number {
    return (this.sumStandInApproved.get(cardId, day, currency) as { amountMinor: number }).amountMinor;
  }

  /** Advices (any institution) not yet acknowledged by the webhook, oldest first. */
  unacknowledgedAdvices(): Array<{ institutionId: string; id: string }> {
    return this.selectUnacknowledgedAdvices.all() as Array<{ institutionId: string; id: string }>;
  }

  /** Approved authorizations (originals, any institution) created before `createdAt`: candidates for expiry. */
  approvedAuthorizationsBefore(createdAt: string): Array<{ institutionId: string; id: string }> {
    return this.selectApprovedAuthorizationsBefore.all(createdAt) as Array<{ institutionId: string; id: string }>;
  }

  /**
   * Count (every currency) and sum (minor units of `currency`, less what reversals gave back) of
   * the card's non-reversal transactions in one of `states` on a channel and day.
   */
  dailyUsage(cardId: string, channel: string, day: string, currency: string, states: readonly string[]): DailyUsage {
    const row = this.sumDailyUsage.get({ cardId, channel, day, currency, states: JSON.stringify(states) }) as { count: number; amountMinor: number };
    return { count: row.count, amountMinor: row.amountMinor };
  }

  /** One page, newest first, and the total matching. */
  list(query: TransactionListQuery): { records: Transaction[]; total: number } {
    const filters: string[] = [];
    const params: Record<string, unknown> = { institutionId: query.institutionId };
    if (query.merchantId !== undefined) { filters.push('t.merchant_id = @merchantId'); params.merchantId = query.merchantId; }
    if (query.terminalId !== undefined) { filters.push('t.terminal_id = @terminalId'); params.terminalId = query.terminalId; }
    if (query.cardId !== undefined) { filters.push('t.card_id = @cardId'); params.cardId = query.cardId; }
    if (query.transactionStatus !== undefined) { filters.push('t.status = @transactionStatus'); params.transactionStatus = query.transactionStatus; }
    // The card's status now, not when the transaction ran.
    if (query.cardStatus !== undefined) {
      filters.push('t.card_id IN (SELECT c.id FROM cards c WHERE c.institution_id = @institutionId AND c.status = @cardStatus)');
      params.cardStatus = query.cardStatus;
    }
    const { page, count } = this.statementsFor(filters);
    const total = (count.get(params) as { total: number }).total;
    if (total === 0) return { records: [], total };
    const rows = page.all({ ...params, limit: query.limit, offset: query.offset }) as Array<{ record: string }>;
    return { records: rows.map((row) => JSON.parse(row.record) as Transaction), total };
  }

  /** Prepared once per combination of filters (at most 32); the fragments are fixed strings. */
  private statementsFor(filters: string[]): { page: Statement; count: Statement } {
    const key = filters.join(' AND ');
    let statements = this.listStatements.get(key);
    if (!statements) {
      const where = ['t.institution_id = @institutionId', ...filters].join(' AND ');
      statements = {
        page: this.db.prepare(`SELECT t.record FROM transactions t WHERE ${where} ORDER BY t.created_at DESC, t.id DESC LIMIT @limit OFFSET @offset`),
        count: this.db.prepare(`SELECT COUNT(*) AS total FROM transactions t WHERE ${where}`),
      };
      this.listStatements.set(key, statements);
    }
    return statements;
  }
}
