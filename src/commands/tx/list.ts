import type { Transaction } from '../../api/schemas.js';
import { defineCommand } from '../../core/command.js';
import { UsageError } from '../../core/errors.js';
import { validatePaging } from '../../core/validate.js';
import { addTransactionFilters, type TransactionFilterOptions } from './options.js';
import { parseTimeBound } from './time.js';

interface ListOptions extends TransactionFilterOptions {
  limit?: string;
  page?: string;
  all?: boolean;
  wide?: boolean;
}

export interface ListTransactionsInput {
  merchantId?: string;
  terminalId?: string;
  cardStatus?: string;
  transactionStatus?: string;
  since?: Date;
  until?: Date;
  limit?: number;
  page?: number;
  all: boolean;
  wide: boolean;
}

/** Flags → typed input; throws UsageError before anything is sent. */
export function parseListOptions(opts: ListOptions, now: Date): ListTransactionsInput {
  const { limit, page } = validatePaging(opts);
  if (opts.all && page !== undefined) {
    throw new UsageError('--all and --page cannot be used together', { hint: '--all reads every page from the first; --limit sets the page size' });
  }
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
    cardStatus: opts.cardStatus,
    transactionStatus: opts.status,
    since,
    until,
    limit,
    page,
    all: Boolean(opts.all),
    wide: Boolean(opts.wide),
  };
}

/** The API has no time filter: --since/--until are applied to createdAt here. */
export function inWindow(tx: Pick<Transaction, 'createdAt'>, since?: Date, until?: Date): boolean {
  const at = Date.parse(tx.createdAt);
  if (Number.isNaN(at)) return !since && !until;
  return (!since || at >= since.getTime()) && (!until || at < until.getTime());
}

export default defineCommand<ListOptions>({
  name: 'list',
  summary: 'list card transactions',
  aliases: ['ls'],
  description: `List transactions, newest first. One page by default (--limit, --page); --all reads every page and
streams rows as they arrive. --since/--until filter on the client (the API has no time parameter); with --all,
paging stops at the first page older than --since.`,
  options: (c) => {
    addTransactionFilters(c)
      .option('--limit <n>', 'page size, 1-100 (default 20; 100 with --all)')
      .option('--page <n>', 'page number, from 1')
      .option('--all', 'every page, streamed as it arrives')
      .option('--wide', 'more columns: currency, channel, entry mode, processing code, duration, reversal');
  },
  examples: ['cardctl tx list', 'cardctl tx list --status failed --since 24h', 'cardctl tx list --merchant SBXMERCHANT0001 --all -o ndjson | jq .responseCode', 'cardctl tx list --card-status suspended --wide'],
  async run(ctx, { opts }) {
    const input = parseListOptions(opts, ctx.clock.now());
    const [{ listTransactions, listAllTransactions }, { transactionColumns }] = await Promise.all([
      import('../../api/transactions.js'),
      import('../../output/columns/transactions.js'),
    ]);
    const client = await ctx.client();
    const output = ctx.output({ wide: input.wide });
    const filtered = Boolean(input.merchantId || input.terminalId || input.cardStatus || input.transactionStatus || input.since || input.until);
    const emptyMessage = filtered ? 'no transactions match' : 'no transactions yet; run one with `cardctl simulate authorization --card CARD_ID --amount 100`';
    const query = { merchantId: input.merchantId, terminalId: input.terminalId, cardStatus: input.cardStatus, transactionStatus: input.transactionStatus };
    const timeFiltered = Boolean(input.since || input.until);
    if (!input.all) {
      const response = await listTransactions(client, { ...query, limit: input.limit, page: input.page }, ctx.signal);
      const rows = (response.data ?? []).filter((tx) => inWindow(tx, input.since, input.until));
      await output.list(rows, transactionColumns, { raw: timeFiltered ? undefined : response.raw, emptyMessage });
      const p = response.pagination;
      if (p && p.pages > p.page && ctx.io.stdoutIsTTY && output.format === 'table' && !ctx.globals.quiet) {
        ctx.log.info(ctx.style.dim(`page ${p.page} of ${p.pages} (${p.total} transactions); --page ${p.page + 1} for more, --all for every page`));
      }
      return;
    }
    const stream = output.stream(transactionColumns, { emptyMessage });
    for await (const response of listAllTransactions(client, { ...query, limit: input.limit }, ctx.signal)) {
      const page = response.data ?? [];
      // Awaited: a slow reader is waited for rather than pages buffered in memory.
      await stream.write(page.filter((tx) => inWindow(tx, input.since, input.until)), timeFiltered ? undefined : response.raw);
      // Newest first: once a page ends before --since, later pages are older still.
      const last = page[page.length - 1];
      if (input.since && last && Date.parse(last.createdAt) < input.since.getTime()) break;
    }
    await stream.end();
  },
});
