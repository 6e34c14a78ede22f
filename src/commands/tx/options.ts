// The filters of `tx list`, `tx tail` and `tx summary`: their flags, and what they mean once checked.
import { CARD_STATUSES, TRANSACTION_STATUSES } from '../../core/enums.js';
import type { Transaction } from '../../api/schemas.js';
import { parseTimeBound } from '../../core/datetime.js';
import { UsageError } from '../../core/errors.js';
import { defineFlags, type FlagValues } from '../../core/flags.js';
import { LIST_BOUNDS } from '../../core/list-bounds.js';

export { TRANSACTION_STATUSES };

export const TRANSACTION_FILTERS = defineFlags({
  merchant: { type: 'string', value: 'id', maxLength: LIST_BOUNDS.maxText, description: 'merchant identifier' },
  terminal: { type: 'string', value: 'id', maxLength: LIST_BOUNDS.maxText, description: 'terminal identifier' },
  card: { type: 'string', value: 'id', maxLength: LIST_BOUNDS.maxText, description: "one card's transactions (its id, as `cards list` shows it)" },
  cardStatus: { type: 'string', value: 'status', choices: CARD_STATUSES, description: 'status of the card' },
  status: { type: 'string', value: 'status', choices: TRANSACTION_STATUSES, description: 'transaction status' },
  since: { type: 'string', value: 'time', description: 'only transactions at or after this time (ISO date-time or a duration like 24h, 7d)' },
  until: { type: 'string', value: 'time', description: 'only transactions before this time' },
});

export type TransactionFilterOptions = FlagValues<typeof TRANSACTION_FILTERS>;

export const SUMMARY_GROUPS = ['channel', 'responseCode', 'hour', 'merchant'] as const;
export type SummaryGroupBy = (typeof SUMMARY_GROUPS)[number];

/** `tx summary`: the filters and how to group. */
export const SUMMARY_FLAGS = defineFlags({
  ...TRANSACTION_FILTERS,
  by: { type: 'string', value: 'group', choices: SUMMARY_GROUPS, default: 'channel', description: 'group by' },
});

/** The filters checked: the API's query, and the time window applied here. */
export interface TransactionFilter {
  merchantId?: string;
  terminalId?: string;
  cardId?: string;
  cardStatus?: string;
  transactionStatus?: string;
  since?: Date;
  until?: Date;
}

/** Flags → filter; throws UsageError before anything is sent. */
export function parseTransactionFilters(opts: Partial<TransactionFilterOptions>, now: Date): TransactionFilter {
  const text = (flag: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    if (!trimmed) throw new UsageError(`${flag} needs a value`);
    return trimmed;
  };
  const since = opts.since === undefined ? undefined : parseTimeBound('--since', opts.since, now);
  const until = opts.until === undefined ? undefined : parseTimeBound('--until', opts.until, now);
  if (since && until && since >= until) throw new UsageError('--since must be before --until');
  return {
    merchantId: text('--merchant', opts.merchant),
    terminalId: text('--terminal', opts.terminal),
    cardId: text('--card', opts.card),
    cardStatus: opts.cardStatus,
    transactionStatus: opts.status,
    since,
    until,
  };
}

/** The query the API takes (it has no time filter). */
export function apiQuery(filter: TransactionFilter): Pick<TransactionFilter, 'merchantId' | 'terminalId' | 'cardId' | 'cardStatus' | 'transactionStatus'> {
  return { merchantId: filter.merchantId, terminalId: filter.terminalId, cardId: filter.cardId, cardStatus: filter.cardStatus, transactionStatus: filter.transactionStatus };
}

/**
 * What is filtered here, on each record: the time window (the API has none) and the card, which
 * a deployment without the `cardId` parameter ignores (the sandbox has it).
 */
export function keeps(tx: Pick<Transaction, 'createdAt' | 'card'>, filter: Pick<TransactionFilter, 'cardId' | 'since' | 'until'>): boolean {
  return inWindow(tx, filter.since, filter.until) && (filter.cardId === undefined || tx.card?.id === filter.cardId);
}

/** A page with a record of another card: the deployment ignored `cardId`, and pages are filtered here. */
export function cardIgnored(page: readonly Pick<Transaction, 'card'>[], filter: Pick<TransactionFilter, 'cardId'>): boolean {
  return filter.cardId !== undefined && page.some((tx) => tx.card?.id !== filter.cardId);
}

/** The API has no time filter: --since/--until are applied to createdAt here. */
export function inWindow(tx: Pick<Transaction, 'createdAt'>, since?: Date, until?: Date): boolean {
  const at = Date.parse(tx.createdAt);
  if (Number.isNaN(at)) return !since && !until;
  return (!since || at >= since.getTime()) && (!until || at < until.getTime());
}

/** Newest first: once a page ends before --since, later pages are older still. */
export function pastSince(page: readonly Pick<Transaction, 'createdAt'>[], since: Date | undefined): boolean {
  const last = page[page.length - 1];
  return Boolean(since && last && Date.parse(last.createdAt) < since.getTime());
}
