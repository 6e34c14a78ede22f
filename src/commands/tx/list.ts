import { listCommand } from '../list-command.js';
import { apiQuery, inWindow, parseTransactionFilters, pastSince, TRANSACTION_FILTERS } from './options.js';

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
paging stops at the first page older than --since.`,
  flags: TRANSACTION_FILTERS,
  wide: 'more columns: currency, channel, entry mode, processing code, duration, reversal',
  noun: 'transactions',
  examples: ['cardctl tx list', 'cardctl tx list --status failed --since 24h', 'cardctl tx list --merchant SBXMERCHANT0001 --all -o ndjson | jq .responseCode', 'cardctl tx list --card-status suspended --wide'],
  query: (opts, now) => parseTransactionFilters(opts, now),
  emptyMessage: (filter) => (Object.values(filter).some(Boolean)
    ? 'no transactions match'
    : 'no transactions yet; run one with `cardctl simulate authorization --card CARD_ID --amount 100`'),
  columns: async () => (await import('../../output/columns/transactions.js')).transactionColumns,
  async page(ctx, filter, paging) {
    const { listTransactions } = await import('../../api/transactions.js');
    const response = await listTransactions(await ctx.client(), { ...apiQuery(filter), ...paging }, ctx.signal);
    const timeFiltered = Boolean(filter.since || filter.until);
    const rows = (response.data ?? []).filter((tx) => inWindow(tx, filter.since, filter.until));
    return { rows, raw: timeFiltered ? undefined : () => response.raw, pagination: response.pagination };
  },
  async pages(ctx, filter, limit, onPage) {
    const { listAllTransactions } = await import('../../api/transactions.js');
    const { forEachPage } = await import('../../api/paging.js');
    const timeFiltered = Boolean(filter.since || filter.until);
    await forEachPage(listAllTransactions(await ctx.client(), { ...apiQuery(filter), limit }, ctx.signal), (response) => {
      // The body only for -o raw.
      if (!timeFiltered) return onPage({ rows: response.records(), raw: () => response.raw });
      const page = [...response.records()];
      return onPage({ rows: page.filter((tx) => inWindow(tx, filter.since, filter.until)), last: pastSince(page, filter.since) });
    });
  },
});
