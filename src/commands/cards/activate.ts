import { defineCommand } from '../../core/command.js';
import { cardIdArgument, describeCard, printCard } from './shared.js';

export default defineCommand({
  name: 'activate',
  summary: 'activate a card',
  args: [{ syntax: '<card-id>', description: 'card identifier' }],
  examples: ['cardctl cards activate 6650c0ffee', 'cardctl cards activate 6650c0ffee -q'],
  async run(ctx, input) {
    const cardId = cardIdArgument(input);
    const { activateCard } = await import('../../api/cards.js');
    const response = await activateCard(await ctx.client(), cardId, ctx.signal);
    await printCard(ctx, response, (card) => `Card ${describeCard(card)} is ${card.status ?? 'active'}`);
  },
});
