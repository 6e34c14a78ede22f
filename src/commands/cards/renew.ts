import { defineCommand } from '../../core/command.js';
import { defineFlags } from '../../core/flags.js';
import type { Clock } from '../../core/context.js';
import { FieldError, UsageError } from '../../core/errors.js';
import { expiryMonth } from '../../core/card-fields.js';
import { cardIdArgument, describeCard, printCard } from './shared.js';

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
  expiration: { type: 'string', value: 'yyyymm', description: 'new expiry month, YYYYMM, in the future' },
  reason: { type: 'string', value: 'reason', description: 'renewal reason (default RENEW)' },
});

export default defineCommand({
  name: 'renew',
  summary: 'renew or replace a card with a new expiry',
  description: `Renew a card: it gets the new expiry month and a new sequence number, and
becomes active. The month must be in the future and within the card
program's maximum validity. --reason is the API's renewal reason (RENEW,
REPLACE, …), and is not the audit journal's free-text reason.
Against a production profile the card's last four digits must be typed, or
--yes --confirm-production given.`,
  args: [{ syntax: '<card-id>', description: 'card identifier' }],
  flags: FLAGS,
  examples: ['cardctl cards renew 6650c0ffee --expiration 202912', 'cardctl cards renew 6650c0ffee --expiration 203001 --reason REPLACE -o json'],
  async run(ctx, input) {
    const cardId = cardIdArgument(input);
    const renewReason = parseRenewReason(input.opts.reason);
    let expiration: string;
    if (input.opts.expiration !== undefined) {
      expiration = parseFutureExpiration(input.opts.expiration, ctx.clock);
    } else if (ctx.io.canPrompt) {
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
    } else {
      throw new UsageError('missing --expiration', { hint: 'give the new expiry month, e.g. --expiration 202912' });
    }
    const { getCard, renewCard } = await import('../../api/cards.js');
    const client = await ctx.client();
    const { confirmCardChange } = await import('../../core/guard.js');
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
