import { defineCommand } from '../../contract/command.js';
import { cardIdArgument, printCard } from './common.js';

export default defineCommand({
  name: 'get',
  mcp: 'read',
  summary: 'show one card',
  aliases: ['show'],
  args: [{ syntax: '<card-id>', description: 'card identifier' }],
  examples: ['cardctl cards get 6650c0ffee', 'cardctl cards get 6650c0ffee -o json --fields id,status,customer.emailAddress'],
  parse: (input) => ({ cardId: cardIdArgument(input) }),
  async run(ctx, { cardId }) {
    const { getCard } = await import('../../api/cards.js');
    const response = await getCard(await ctx.client(), cardId, ctx.signal);
    await printCard(ctx, response);
  },
});
