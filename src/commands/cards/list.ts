import { UsageError } from '../../core/errors.js';
import { listCommand } from '../list-command.js';
import { LIST_BOUNDS } from '../../core/list-bounds.js';
import { CARD_STATUSES } from '../../core/enums.js';
import type { Card } from '../../api/schemas.js';

/**
 * The cards of a page in the status asked for: the API's `status` parameter does it; a deployment
 * without it sends every card, and they are filtered here, as they are read.
 */
function* inStatus(cards: Iterable<Card>, status: string | undefined): Iterable<Card> {
  for (const card of cards) if (status === undefined || card.status === status) yield card;
}

export default listCommand({
  name: 'list',
  mcp: { use: 'read', about: "To find a card by its holder's name, email, reference or last four digits, give search (one of those words, e.g. a last name)." },
  summary: "list the institution's cards",
  aliases: ['ls'],
  description: `List cards, newest first. One page by default (--limit, --page); --all
reads every page and streams rows as they arrive (ndjson, csv and -q
output start at once, and memory stays flat however many cards there are).`,
  flags: {
    search: { type: 'string', value: 'text', maxLength: LIST_BOUNDS.maxText, description: 'free-text search across card fields' },
    cardId: { type: 'string', value: 'id', maxLength: LIST_BOUNDS.maxText, description: 'only this card' },
    status: { type: 'string', value: 'status', choices: CARD_STATUSES, description: 'only cards in this status' },
  },
  wide: 'more columns: scheme, type, customer, email, account, reference, updated',
  noun: 'cards',
  examples: ['cardctl cards list', 'cardctl cards list --search ADA --limit 50', 'cardctl cards list --status suspended -q', 'cardctl cards list --all -o ndjson > cards.ndjson', 'cardctl cards list -q | xargs -n1 cardctl cards get'],
  query(opts) {
    const search = opts.search?.trim();
    if (opts.search !== undefined && !search) throw new UsageError('--search needs some text');
    const cardId = opts.cardId?.trim();
    if (opts.cardId !== undefined && !cardId) throw new UsageError('--card-id needs a card id');
    return { search, cardId, status: opts.status };
  },
  emptyMessage: (query) => (query.search || query.cardId || query.status ? 'no cards match' : 'no cards yet; issue one with `cardctl cards create`'),
  columns: async () => (await import('../../output/columns/cards.js')).cardColumns,
  async page(ctx, query, paging) {
    const { listCards } = await import('../../api/cards.js');
    const response = await listCards(await ctx.client(), { ...query, ...paging }, ctx.signal);
    const rows = [...inStatus(response.data ?? [], query.status)];
    // A page with cards in other statuses: the deployment ignored the parameter; -o raw would show them.
    const ignored = rows.length !== (response.data ?? []).length;
    return { rows, raw: ignored ? undefined : () => response.raw, pagination: response.pagination };
  },
  async pages(ctx, query, limit, onPage) {
    const { listAllCards } = await import('../../api/cards.js');
    const { forEachPage } = await import('../../api/paging.js');
    // The body only for -o raw.
    await forEachPage(listAllCards(await ctx.client(), { ...query, limit }, ctx.signal), (response) => onPage({
      rows: inStatus(response.records(), query.status),
      raw: query.status === undefined ? () => response.raw : undefined,
    }));
  },
});
