import type { Transaction } from '../../api/schemas.js';
import type { Context } from '../../contract/context.js';
import { listCommand, type ListPage } from '../list-command.js';
import { apiQuery, cardIgnored, keeps, parseTransactionFilters, pastSince, TRANSACTION_FILTERS, type TransactionFilter } from './options.js';

/** The API's page size when --limit is not given. */
const DEFAULT_PAGE_SIZE = 20;

export default listCommand({
  name: 'list',
  mcp: {
    use: 'read',
    about: "A card's transactions: give card (its id, from cards_list) and a limit, e.g. 5 for the last five.",
    rowFilters: { card: { path: 'card.id', description: "only this card's transactions: the card's id" } },
  },
  summary: 'list card transactions',
  aliases: ['ls'],
  description: `List transactions, newest first. One page by default (--limit, --page); --all reads every page and
streams rows as they arrive. --since/--until filter on the client (the API has no time parameter); with --all,
paging stops at the first page older than --since. --card keeps one card's transactions: the API's cardId
parameter, or, against a deployment without it, the pages filtered here as they stream (said with --verbose).`,
  flags: TRANSACTION_FILTERS,
  wide: 'more columns: currency, channel, entry mode, processing code, duration, reversal',
  noun: 'transactions',
  examples: ['cardctl tx list', 'cardctl tx list --card 6650c0ffee --limit 5', 'cardctl tx list --status failed --since 24h', 'cardctl tx list --merchant SBXMERCHANT0001 --all -o ndjson | jq .responseCode', 'cardctl tx list --card-status suspended --wide'],
  query: (opts, now) => parseTransactionFilters(opts, now),
  emptyMessage: (filter) => (Object.values(filter).some(Boolean)
    ? 'no transactions match'
    : 'no transactions yet; run one with `cardctl simulate authorization --card CARD_ID --amount 100`'),
  columns: async () => (await import('../../output/columns/transactions.js')).transactionColumns,
  async page(ctx, filter, paging) {
    const { listTransactions } = await import('../../api/transactions.js');
    const response = await listTransactions(await ctx.client(), { ...apiQuery(filter), ...paging }, ctx.signal);
    const records = response.data ?? [];
    if (cardIgnored(records, filter)) return pageFilteredHere(ctx, filter, paging);
    const filtered = Boolean(filter.since || filter.until);
    return { rows: records.filter((tx) => keeps(tx, filter)), raw: filtered ? undefined : () => response.raw, pagination: response.pagination };
  },
  async pages(ctx, filter, limit, onPage) {
    const { listAllTransactions } = await import('../../api/transactions.js');
    const { forEachPage } = await import('../../api/paging.js');
    const timeFiltered = Boolean(filter.since || filter.until);
    let cardFiltered = false;
    await forEachPage(listAllTransactions(await ctx.client(), { ...apiQuery(filter), limit }, ctx.signal), (response) => {
      // Unfiltered, the page's rows are parsed as they are written; the body only for -o raw.
      if (!timeFiltered && filter.cardId === undefined) return onPage({ rows: response.records(), raw: () => response.raw });
      const page = [...response.records()];
      if (!cardFiltered && cardIgnored(page, filter)) {
        cardFiltered = true;
        saySo(ctx);
      }
      if (!timeFiltered && !cardFiltered) return onPage({ rows: page, raw: () => response.raw });
      return onPage({ rows: page.filter((tx) => keeps(tx, filter)), last: pastSince(page, filter.since) });
    });
  },
});

function saySo(ctx: Context): void {
  ctx.log.verbose('the API ignored cardId (a deployment without it): every transaction is read, and the card\'s are kept here');
}

/**
 * --card against a deployment that ignores `cardId`: the pages are read as they stream and the
 * card's transactions kept, until the page asked for (--page, --limit) is full or the list ends.
 */
async function pageFilteredHere(ctx: Context, filter: TransactionFilter, paging: { limit?: number; page?: number }): Promise<ListPage<Transaction>> {
  saySo(ctx);
  const { listAllTransactions } = await import('../../api/transactions.js');
  const { forEachPage } = await import('../../api/paging.js');
  const size = paging.limit ?? DEFAULT_PAGE_SIZE;
  let skip = ((paging.page ?? 1) - 1) * size;
  const rows: Transaction[] = [];
  await forEachPage(listAllTransactions(await ctx.client(), { ...apiQuery(filter) }, ctx.signal), (response) => {
    const page = [...response.records()];
    for (const tx of page) {
      if (!keeps(tx, filter)) continue;
      if (skip > 0) skip--;
      else rows.push(tx);
    }
    return Promise.resolve(rows.length < size && !pastSince(page, filter.since));
  });
  return { rows: rows.slice(0, size) };
}
