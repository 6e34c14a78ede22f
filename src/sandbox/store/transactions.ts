// Card transactions. The switch module writes them; GET /institutions/transactions reads them.
// The record column is the Transaction of the API; the other columns are what is filtered,
// matched or summed on.
import type { CardStatus, Transaction, TransactionStatus } from '../../api/schemas.js';
import type { Static } from '@sinclair/typebox';
import type { Db, Statement } from './db.js';

type TransactionStatusValue = Static<typeof TransactionStatus>;
type CardStatusValue = Static<typeof CardStatus>;

/** Columns that are not plainly in the record, or that the caller decides. */
export interface TransactionIndex {
  /** `pos`, `atm` or `web`: the channel whose daily limits this transaction counts against. */
  channel: string;
  /** Amount in minor units (field 4). */
  amountMinor: number;
  /** Day the transaction counts for, YYYY-MM-DD (UTC). */
  day: string;
}

export interface TransactionListQuery {
  institutionId: string;
  merchantId?: string;
  terminalId?: string;
  cardStatus?: CardStatusValue;
  transactionStatus?: TransactionStatusValue;
  limit: number;
  offset: number;
}

export interface DailyUsage {
  count: number;
  amountMinor: number;
}

export class TransactionStore {
  private readonly insertTransaction: Statement;
  private readonly selectTransaction: Statement;
  private readonly selectByStanRrn: Statement;
  private readonly markReversedStatement: Statement;
  private readonly updateTransaction: Statement;
  private readonly sumDailyUsage: Statement;
  private readonly listStatements = new Map<string, { page: Statement; count: Statement }>();

  constructor(private readonly db: Db) {
    this.insertTransaction = db.prepare(
      `INSERT INTO transactions (id, institution_id, card_id, stan, rrn, status, merchant_id, terminal_id, channel, amount_minor, day, created_at, record)
       VALUES (@id, @institutionId, @cardId, @stan, @rrn, @status, @merchantId, @terminalId, @channel, @amountMinor, @day, @createdAt, @record)`,
    );
    this.selectTransaction = db.prepare('SELECT record FROM transactions WHERE id = ? AND institution_id = ?');
    this.selectByStanRrn = db.prepare(
      'SELECT record FROM transactions WHERE institution_id = ? AND stan = ? AND rrn = ? ORDER BY created_at DESC, id DESC LIMIT 1',
    );
    // The status guard makes the check and the change one statement: two reversals of the
    // same original cannot both succeed.
    this.markReversedStatement = db.prepare(
      `UPDATE transactions
       SET status = 'reversed',
           record = json_set(record, '$.reversed', json('true'), '$.reversalId', @reversalId,
                             '$.transactionStatus', 'reversed', '$.updatedAt', @updatedAt,
                             '$.__v', COALESCE(json_extract(record, '$.__v'), 0) + 1)
       WHERE id = @id AND institution_id = @institutionId AND status != 'reversed'
         AND COALESCE(json_extract(record, '$.reversed'), 0) = 0`,
    );
    this.updateTransaction = db.prepare(
      `UPDATE transactions SET status = @status, record = @record WHERE id = @id AND institution_id = @institutionId`,
    );
    // Reversal messages (MTI 04xx) never count against limits; failed and reversed ones neither.
    this.sumDailyUsage = db.prepare(
      `SELECT COUNT(*) AS count, COALESCE(SUM(amount_minor), 0) AS amountMinor
       FROM transactions
       WHERE card_id = ? AND channel = ? AND day = ? AND status IN ('pending', 'completed')
         AND json_extract(record, '$.mti') NOT LIKE '04%'`,
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
      merchantId: transaction.merchantId,
      terminalId: transaction.terminalId,
      channel: index.channel,
      amountMinor: index.amountMinor,
      day: index.day,
      createdAt: transaction.createdAt,
      record: JSON.stringify(transaction),
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

  /**
   * Marks the original reversed with the reversal's id. Atomic: returns false (and changes
   * nothing) when the transaction is unknown or already reversed.
   */
  markReversed(institutionId: string, id: string, reversalId: string, updatedAt = new Date().toISOString()): boolean {
    return this.markReversedStatement.run({ id, institutionId, reversalId, updatedAt }).changes === 1;
  }

  /** Rewrites the record (status column follows `transactionStatus`). */
  update(transaction: Transaction): void {
    this.updateTransaction.run({
      id: transaction.id,
      institutionId: transaction.institution.id,
      status: transaction.transactionStatus,
      record: JSON.stringify(transaction),
    });
  }

  /** Count and sum (minor units) of the card's approved, non-reversal transactions on a channel and day. */
  dailyUsage(cardId: string, channel: string, day: string): DailyUsage {
    const row = this.sumDailyUsage.get(cardId, channel, day) as { count: number; amountMinor: number };
    return { count: row.count, amountMinor: row.amountMinor };
  }

  /** One page, newest first, as stored JSON text, and the total matching. */
  list(query: TransactionListQuery): { records: string[]; total: number } {
    const filters: string[] = [];
    const params: Record<string, unknown> = { institutionId: query.institutionId };
    if (query.merchantId !== undefined) { filters.push('t.merchant_id = @merchantId'); params.merchantId = query.merchantId; }
    if (query.terminalId !== undefined) { filters.push('t.terminal_id = @terminalId'); params.terminalId = query.terminalId; }
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
    return { records: rows.map((row) => row.record), total };
  }

  /** Prepared once per combination of filters (at most 16); the fragments are fixed strings. */
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
