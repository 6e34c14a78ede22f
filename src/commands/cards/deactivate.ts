import { defineCommand } from '../../core/command.js';
import { defineFlags } from '../../core/flags.js';
import { UsageError } from '../../core/errors.js';
import { cardIdArgument, describeCard, printCard } from './shared.js';

const FLAGS = defineFlags({
  reason: { type: 'string', value: 'text', description: 'why (kept in the audit journal)' },
});

export default defineCommand({
  name: 'deactivate',
  summary: 'suspend a card (asks first unless --yes)',
  description: `Suspend a card (status "suspended"); \`cardctl cards activate\` undoes it.
Asks for confirmation naming the card unless --yes is given; without a
terminal --yes is required.`,
  args: [{ syntax: '<card-id>', description: 'card identifier' }],
  flags: FLAGS,
  examples: ['cardctl cards deactivate 6650c0ffee', 'cardctl cards deactivate 6650c0ffee --yes --reason "reported stolen"'],
  async run(ctx, input) {
    const cardId = cardIdArgument(input);
    const reason = input.opts.reason?.trim();
    const { assertReason, confirmDestructive } = await import('../../core/guard.js');
    assertReason(ctx, reason, 'deactivating a card');
    if (!ctx.globals.yes && !ctx.io.canPrompt && !ctx.globals.dryRun) {
      throw new UsageError(`deactivating card ${cardId} needs confirmation and there is no terminal to ask on`, {
        hint: 'pass --yes to confirm non-interactively',
      });
    }
    const { deactivateCard, getCard } = await import('../../api/cards.js');
    const client = await ctx.client();
    if (!ctx.globals.yes && !ctx.globals.dryRun) {
      const card = (await getCard(client, cardId, ctx.signal)).data;
      await confirmDestructive(ctx, {
        description: `deactivate card ${describeCard(card)}`,
        typedConfirmation: card.lastFour ?? cardId,
        typedLabel: card.lastFour ? "the card's last four digits" : 'the card id',
      });
    } else {
      await confirmDestructive(ctx, { description: `deactivate card ${cardId}`, typedConfirmation: cardId, typedLabel: 'the card id' });
    }
    const response = await deactivateCard(client.withReason(reason), cardId, ctx.signal);
    await printCard(ctx, response, (card) => `Card ${describeCard(card)} is ${card.status ?? 'suspended'}${reason ? ` (${reason})` : ''}`);
  },
});
