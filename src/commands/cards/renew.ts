import { defineCommand } from '../../contract/command.js';
import { defineFlags } from '../../core/flags.js';
import type { Clock } from '../../contract/context.js';
import { CliError, FieldError, UsageError } from '../../core/errors.js';
import { expiryMonth } from '../../core/card-fields.js';
import { BULK_FLAGS, type BulkOptions } from '../bulk-command.js';
import type { Context } from '../../contract/context.js';
import { parseCardTarget } from './bulk.js';
import { describeCard, printCard, type CardId } from './common.js';
import { REASON_MAX_LENGTH } from '../card-flags.js';

/** YYYYMM strictly after the current month (UTC). */
export function parseFutureExpiration(value: string, clock: Clock): string {
  return expiryMonth('--expiration', value, { now: clock.now(), allowCurrentMonth: false });
}

export function parseRenewReason(value: string | undefined): string {
  if (value === undefined) return 'RENEW';
  const reason = value.trim();
  if (!reason) throw new UsageError('--reason needs a value, e.g. --reason RENEW');
  return reason;
}

const FLAGS = defineFlags({
  expiration: { type: 'string', value: 'yyyymm', description: 'new expiry month, YYYYMM, in the future (bulk: for rows without an expiration column)' },
  // Not the journal's reason an MCP write tool asks for: a tool renews with the default.
  reason: { type: 'string', value: 'reason', maxLength: REASON_MAX_LENGTH, mcp: false, description: 'renewal reason (default RENEW)' },
  ...BULK_FLAGS,
});

export default defineCommand({
  name: 'renew',
  mcp: 'write',
  output: async () => (await import('../output-shapes.js')).cardShape(),
  summary: 'renew or replace a card with a new expiry',
  description: `Renew a card: it gets the new expiry month and a new sequence number, and
becomes active. The month must be in the future and within the card
program's maximum validity. --reason is the API's renewal reason (RENEW,
REPLACE, …), and is not the audit journal's free-text reason.
Against a production profile the card's last four digits must be typed, or
--yes --confirm-production given.

Many cards: --from-file FILE, ids one a line with --expiration for all, or a
.csv/.ndjson/.json file with the columns id and expiration (a row's own month
wins over --expiration). Exactly once: a card already at its target expiry is
reported "already" and never renewed twice, also when a retry follows a lost
answer. On production the operator types the number of cards. See \`cardctl help bulk\`.`,
  args: [{ syntax: '[card-id]', description: 'card identifier (or --from-file)' }],
  flags: FLAGS,
  examples: [
    'cardctl cards renew 6650c0ffee --expiration 202912',
    'cardctl cards renew 6650c0ffee --expiration 203001 --reason REPLACE -o json',
    'cardctl cards renew --from-file expiring.txt --expiration 203006 --report renew.ndjson',
    'cardctl cards renew --from-file renewals.csv --report renew.ndjson --shard 1/4',
  ],
  parse: ({ args, opts, now, terminal }) => {
    const target = parseCardTarget(args[0], opts);
    const renewReason = parseRenewReason(opts.reason);
    // Bulk: the month of rows without one. One card: asked for when there is a terminal to ask on.
    if (!target.bulk && opts.expiration === undefined && !terminal.canPrompt) {
      throw new UsageError('missing --expiration', { hint: 'give the new expiry month, e.g. --expiration 202912' });
    }
    return {
      opts,
      target,
      renewReason,
      expiration: opts.expiration === undefined ? undefined : parseFutureExpiration(opts.expiration, { now: () => now }),
    };
  },
  async run(ctx, { opts, target, renewReason, expiration: given }) {
    if (target.bulk) return bulkRenew(ctx, opts, { renewReason, fallback: given });
    const { cardId } = target;
    let expiration: string;
    if (given !== undefined) {
      expiration = given;
    } else {
      const answer = await ctx.prompter.input('New expiry month (YYYYMM):', {
        validate: (value) => {
          try {
            parseFutureExpiration(value, ctx.clock);
            return true;
          } catch (error) {
            return error instanceof FieldError ? error.problem : (error as Error).message;
          }
        },
      });
      expiration = parseFutureExpiration(answer, ctx.clock);
    }
    const { getCard, renewCard } = await import('../../api/cards.js');
    const client = await ctx.client();
    const { confirmCardChange } = await import('../../contract/guard.js');
    await confirmCardChange(ctx, {
      verb: 'renew',
      cardId,
      askOnSandbox: false,
      load: async () => {
        const card = (await getCard(client, cardId, ctx.signal)).data;
        return { lastFour: card.lastFour, label: describeCard(card) };
      },
    });
    const response = await renewCard(client, cardId, { expiration, renewReason }, ctx.signal);
    await printCard(ctx, response, (card) => `Card ${describeCard(card)} renewed until ${expiration.slice(4)}/${expiration.slice(0, 4)}`);
  },
});

/** One renewal of a bulk run: the card and the month it must reach. */
interface Renewal {
  id: CardId;
  expiration: string;
}

async function bulkRenew(ctx: Context, opts: BulkOptions, { renewReason, fallback }: { renewReason: string; fallback?: string }): Promise<void> {
  const [{ runBulkCommand }, { rowCardId }, { getCard, renewCard }, { unusableForRow }] = await Promise.all([
    import('../bulk-command.js'), import('./bulk.js'), import('../../api/cards.js'), import('../../bulk/found-card.js'),
  ]);
  const client = await ctx.client();
  const reasoned = client.withReason(renewReason);
  const now = ctx.clock.now();
  await runBulkCommand<Renewal>(ctx, opts, {
    verb: 'renew',
    label: 'renewing',
    stdinRows: 'the card ids (or CSV or NDJSON rows) in, e.g. cardctl cards list -q --search ACME | …',
    action: {
      parse(value) {
        const id = rowCardId(value);
        const own = (value as Record<string, unknown>).expiration;
        if (own !== undefined && own !== '' && typeof own !== 'string') throw new Error('expiration: must be text, YYYYMM');
        if (!own && !fallback) throw new Error('expiration: is required (a column, or --expiration for every row)');
        return { id, expiration: own ? expiryMonth('expiration', own, { now, allowCurrentMonth: false }) : fallback! };
      },
      idOf: (renewal) => renewal.id,
      describe: (renewal) => `renew ${renewal.id} until ${renewal.expiration}`,
      async apply({ id, expiration }, { signal, uncertain }) {
        // Read first: a card already at the target month was renewed (by an earlier run, or by
        // this row's attempt whose answer was lost) and must not get another sequence number.
        // …and active, as a renewal leaves it: a suspended card at that month still needs its replacement.
        const atTarget = (card: { expiryYear: number; expiryMonth: string; status: string }) => `${card.expiryYear}${card.expiryMonth.padStart(2, '0')}` === expiration
          && unusableForRow(card, 'active', now) === undefined;
        const card = (await getCard(client, id, signal)).data;
        if (atTarget(card)) return { outcome: uncertain ? 'done' : 'already', details: { expiration, seqNumber: card.seqNumber } };
        try {
          // Only the version read: an attempt given up on (a timeout) that the service still
          // applies after this read makes this one a 409 instead of a second renewal.
          const renewed = (await renewCard(reasoned, id, { expiration, renewReason }, signal, card.__v)).data;
          return { outcome: 'done', details: { expiration, seqNumber: renewed.seqNumber } };
        } catch (error) {
          if (!(error instanceof CliError && error.status === 409)) throw error;
          const now = (await getCard(client, id, signal)).data;
          if (!atTarget(now)) throw error;
          return { outcome: 'done', details: { expiration, seqNumber: now.seqNumber } };
        }
      },
    },
  });
}
