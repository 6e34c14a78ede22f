import { defineCommand } from '../../core/command.js';
import { UsageError } from '../../core/errors.js';
import { validatePaging } from '../../core/validate.js';

interface ListOptions {
  search?: string;
  cardId?: string;
  limit?: string;
  page?: string;
  all?: boolean;
  wide?: boolean;
}

export interface ListCardsInput {
  search?: string;
  cardId?: string;
  limit?: number;
  page?: number;
  all: boolean;
  wide: boolean;
}

/** Flags → typed input; throws UsageError before anything is sent. */
export function parseListOptions(opts: ListOptions): ListCardsInput {
  const { limit, page } = validatePaging(opts);
  if (opts.all && page !== undefined) {
    throw new UsageError('--all and --page cannot be used together', { hint: '--all reads every page from the first; --limit sets the page size' });
  }
  const search = opts.search?.trim();
  if (opts.search !== undefined && !search) throw new UsageError('--search needs some text');
  const cardId = opts.cardId?.trim();
  if (opts.cardId !== undefined && !cardId) throw new UsageError('--card-id needs a card id');
  return { search, cardId, limit, page, all: Boolean(opts.all), wide: Boolean(opts.wide) };
}

export default defineCommand<ListOptions>({
  name: 'list',
  summary: "list the institution's cards",
  aliases: ['ls'],
  description: `List cards, newest first. One page by default (--limit, --page); --all
reads every page and streams rows as they arrive (ndjson, csv and -q
output start at once, and memory stays flat however many cards there are).`,
  options: (c) => c
    .option('--search <text>', 'free-text search across card fields')
    .option('--card-id <id>', 'only this card')
    .option('--limit <n>', 'page size, 1-100 (default 20; 100 with --all)')
    .option('--page <n>', 'page number, from 1')
    .option('--all', 'every page, streamed as it arrives')
    .option('--wide', 'more columns: scheme, type, customer, email, account, reference, updated'),
  examples: ['cardctl cards list', 'cardctl cards list --search ADA --limit 50', 'cardctl cards list --all -o ndjson > cards.ndjson', 'cardctl cards list -q | xargs -n1 cardctl cards get'],
  async run(ctx, { opts }) {
    const input = parseListOptions(opts);
    const [{ listCards, listAllCards }, { cardColumns }] = await Promise.all([
      import('../../api/cards.js'),
      import('../../output/columns/cards.js'),
    ]);
    const client = await ctx.client();
    const output = ctx.output({ wide: input.wide });
    const emptyMessage = input.search || input.cardId ? 'no cards match' : 'no cards yet; issue one with `cardctl cards create`';
    if (!input.all) {
      const response = await listCards(client, input, ctx.signal);
      await output.list(response.data ?? [], cardColumns, { raw: response.raw, emptyMessage });
      const p = response.pagination;
      if (p && p.pages > p.page && ctx.io.stdoutIsTTY && output.format === 'table' && !ctx.globals.quiet) {
        ctx.log.info(ctx.style.dim(`page ${p.page} of ${p.pages} (${p.total} cards); --page ${p.page + 1} for more, --all for every page`));
      }
      return;
    }
    const stream = output.stream(cardColumns, { emptyMessage });
    for await (const response of listAllCards(client, { search: input.search, cardId: input.cardId, limit: input.limit }, ctx.signal)) {
      // A slow reader (`| less`, a slow disk): wait for it rather than buffer pages in memory.
      await stream.write(response.data ?? [], response.raw);
    }
    await stream.end();
  },
});
