// What the bulk forms of the card verbs share: a row's card id, `--where` resolved to ids before
// anything changes, and the choice between one card and many.
import type { ApiClient } from '../../api/client.js';
import { CARD_STATUSES } from '../../core/enums.js';
import type { Context } from '../../contract/context.js';
import { defineFlags } from '../../core/flags.js';
import { UsageError } from '../../core/errors.js';
import { PIPELINED_CONCURRENCY, concurrencyHelp } from '../../bulk/defaults.js';
import { BULK_FLAGS, bulkFlagsGiven, checkBulkFlags, rowRunSettings, type BulkOptions } from '../bulk-command.js';
import { parseCardId, type CardId } from './common.js';

/** The bulk flags of `activate` and `deactivate`: sent pipelined, so more in flight by default. */
export const STATUS_BULK_FLAGS = defineFlags({
  ...BULK_FLAGS,
  concurrency: { ...BULK_FLAGS.concurrency, description: concurrencyHelp(PIPELINED_CONCURRENCY) },
});

export const WHERE_FLAGS = defineFlags({
  where: { type: 'string', value: 'filter', description: `bulk: the cards matching status=STATUS and/or search=TEXT (comma-separated), listed first; --dry-run shows them` },
});

/** The id of a row: an `id` column or field (`cards list -o ndjson` rows have it), or a plain line. */
export function rowCardId(value: unknown): CardId {
  const id = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>).id : undefined;
  if (typeof id !== 'string') throw new Error('id: is required (a column or field named id)');
  return parseCardId(id);
}

/**
 * Whether this call acts on many cards; throws when one card and the bulk flags are mixed, or
 * when bulk flags come without rows.
 */
export function isBulk(cardId: string | undefined, opts: Partial<BulkOptions> & { where?: string }): boolean {
  const sources = [opts.fromFile !== undefined && '--from-file', opts.where !== undefined && '--where'].filter(Boolean);
  if (sources.length > 1) throw new UsageError('give --from-file or --where, not both');
  if (sources.length && cardId !== undefined) throw new UsageError(`give a card id or ${sources[0]}, not both`);
  if (opts.where !== undefined && (opts.resume !== undefined || opts.shard !== undefined)) {
    // Row numbers must mean the same rows in every run and runner; a fresh listing does not keep them.
    throw new UsageError('--resume and --shard need the same rows each time, and --where lists the cards afresh', {
      hint: 'save the list first: cardctl cards list --all -q --search … > ids.txt, then --from-file ids.txt',
    });
  }
  if (!sources.length) {
    const stray = bulkFlagsGiven(opts);
    if (stray.length) throw new UsageError(`${stray.join(', ')} need --from-file${'where' in opts ? ' or --where' : ''} (many cards)`);
  }
  return sources.length > 0;
}

/** What a card verb acts on: one card, or many (the bulk flags checked, the rows read by run()). */
export type CardTarget = { cardId: CardId; bulk?: undefined } | { cardId?: undefined; bulk: true };

/** The card id argument or the bulk flags, checked before anything is read or sent. */
export function parseCardTarget(cardId: string | undefined, opts: Partial<BulkOptions> & { where?: string }, defaultConcurrency?: number): CardTarget {
  if (!isBulk(cardId, opts)) return { cardId: parseCardId(cardId) };
  checkBulkFlags(opts, defaultConcurrency);
  if (opts.where !== undefined) parseWhere(opts.where);
  return { bulk: true };
}

/** `--where status=suspended,search=ACME` → the filter. */
export function parseWhere(where: string): { status?: string; search?: string } {
  const filter: { status?: string; search?: string } = {};
  for (const part of where.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (eq < 0 || !value || (key !== 'status' && key !== 'search')) {
      throw new UsageError(`invalid --where "${where}": expected status=STATUS and/or search=TEXT, e.g. --where status=active,search=ACME`);
    }
    filter[key] = value;
  }
  if (filter.status !== undefined && !(CARD_STATUSES as readonly string[]).includes(filter.status)) {
    throw new UsageError(`invalid --where status "${filter.status}": expected one of ${CARD_STATUSES.join(', ')}`);
  }
  return filter;
}

/** `--where status=suspended,search=ACME`: the ids of every matching card, read before any change (a change would move them between pages). */
export async function resolveWhere(ctx: Context, client: ApiClient, where: string): Promise<{ source: string; values: Array<{ id: string }> }> {
  const filter = parseWhere(where);
  const { listAllCards } = await import('../../api/cards.js');
  const values: Array<{ id: string }> = [];
  for await (const page of listAllCards(client, { search: filter.search }, ctx.signal)) {
    for (const card of Array.isArray(page.data) ? page.data : []) {
      if (filter.status === undefined || card.status === filter.status) values.push({ id: card.id });
    }
  }
  return { source: `--where ${where}`, values };
}

/**
 * `activate` or `deactivate` of many cards. Both are safe to repeat (a card already in the status
 * stays there, and the client retries them after a timeout), so every row that passes is `done`.
 */
export async function bulkStatusChange(
  ctx: Context,
  opts: BulkOptions & { where?: string },
  change: { verb: 'activate' | 'deactivate'; label: string; reason?: string; askOnSandbox: boolean },
): Promise<void> {
  const [{ runBulkCommand }, cards] = await Promise.all([import('../bulk-command.js'), import('../../api/cards.js')]);
  const client = await ctx.client();
  const send = change.verb === 'activate' ? cards.activateCard : cards.deactivateCard;
  // Safe to repeat, so sent pipelined (ApiClient.pipelined says what that means).
  const reasoned = client.withReason(change.reason).pipelined(rowRunSettings(ctx, opts, PIPELINED_CONCURRENCY).concurrency);
  await runBulkCommand(ctx, opts, {
    defaultConcurrency: PIPELINED_CONCURRENCY,
    verb: change.verb,
    label: change.label,
    stdinRows: 'the card ids in, one a line, e.g. cardctl cards list -q --search ACME | …',
    askOnSandbox: change.askOnSandbox,
    rows: opts.where === undefined ? undefined : await resolveWhere(ctx, client, opts.where),
    action: {
      parse: rowCardId,
      idOf: (id) => id,
      describe: (id) => `${change.verb} ${id}`,
      async apply(id, { signal }) {
        const card = (await send(reasoned, id, signal)).data;
        return { outcome: 'done', details: { status: card.status } };
      },
    },
  });
}
