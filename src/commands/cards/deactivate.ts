import { defineCommand } from '../../contract/command.js';
import { defineFlags } from '../../core/flags.js';
import { UsageError } from '../../core/errors.js';
import { PIPELINED_CONCURRENCY } from '../../bulk/defaults.js';
import { bulkStatusChange, parseCardTarget, STATUS_BULK_FLAGS, WHERE_FLAGS } from './bulk.js';
import { describeCard, printCard } from './common.js';
import { REASON_MAX_LENGTH } from '../card-flags.js';

const FLAGS = defineFlags({
  reason: { type: 'string', value: 'text', maxLength: REASON_MAX_LENGTH, description: 'why (kept in the audit journal, one entry per card)' },
  ...STATUS_BULK_FLAGS,
  ...WHERE_FLAGS,
});

export default defineCommand({
  name: 'deactivate',
  mcp: 'write',
  output: async () => (await import('../output-shapes.js')).cardShape(),
  summary: 'suspend a card, or many (asks first unless --yes)',
  description: `Suspend a card (status "suspended"); \`cardctl cards activate\` undoes it.
Asks for confirmation naming the card unless --yes is given; without a
terminal --yes is required.

Many cards: --from-file FILE (ids one a line, or the id column of a .csv,
.ndjson or .json file; - for stdin), or --where status=…,search=… (the
matching cards are listed first). See \`cardctl help bulk\`.`,
  args: [{ syntax: '[card-id]', description: 'card identifier (or --from-file / --where)' }],
  flags: FLAGS,
  examples: [
    'cardctl cards deactivate 6650c0ffee',
    'cardctl cards deactivate 6650c0ffee --yes --reason "reported stolen"',
    'cardctl cards deactivate --from-file compromised.txt --yes --reason "merchant breach" --report deactivate.ndjson',
    'cardctl cards list --all -q --search ACME | cardctl cards deactivate --from-file - --yes',
    'cardctl cards deactivate --where status=active,search=ACME --dry-run',
  ],
  parse: ({ args, opts, terminal }) => {
    const target = parseCardTarget(args[0], opts, PIPELINED_CONCURRENCY);
    if (!target.bulk && !opts.yes && !terminal.canPrompt && !opts.dryRun) {
      throw new UsageError(`deactivating card ${target.cardId} needs confirmation and there is no terminal to ask on`, {
        hint: 'pass --yes to confirm non-interactively',
      });
    }
    return { opts, target, reason: opts.reason?.trim() };
  },
  async run(ctx, { opts, target, reason }) {
    const { assertReason } = await import('../../contract/guard.js');
    if (target.bulk) {
      assertReason(ctx, reason, 'deactivating cards');
      return bulkStatusChange(ctx, opts, { verb: 'deactivate', label: 'deactivating', reason, askOnSandbox: true });
    }
    const { cardId } = target;
    const { confirmDestructive } = await import('../../contract/guard.js');
    assertReason(ctx, reason, 'deactivating a card');
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
