import { defineCommand } from '../../contract/command.js';
import { defineFlags } from '../../core/flags.js';
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
  name: 'activate',
  mcp: 'write',
  output: async () => (await import('../output-shapes.js')).cardShape(),
  summary: 'activate a card, or many',
  description: `Activate a card. Many cards: --from-file FILE (ids one a line, or the id
column of a .csv, .ndjson or .json file; - for stdin), or --where
status=…,search=… (the matching cards are listed first). See \`cardctl help bulk\`.`,
  args: [{ syntax: '[card-id]', description: 'card identifier (or --from-file / --where)' }],
  flags: FLAGS,
  examples: [
    'cardctl cards activate 6650c0ffee',
    'cardctl cards activate 6650c0ffee -q',
    'cardctl cards activate --where status=suspended,search=ACME --reason "breach contained" --report activate.ndjson',
  ],
  parse: ({ args, opts }) => ({ opts, target: parseCardTarget(args[0], opts, PIPELINED_CONCURRENCY), reason: opts.reason?.trim() }),
  async run(ctx, { opts, target, reason }) {
    if (target.bulk) return bulkStatusChange(ctx, opts, { verb: 'activate', label: 'activating', reason, askOnSandbox: false });
    const { cardId } = target;
    const { activateCard } = await import('../../api/cards.js');
    const response = await activateCard((await ctx.client()).withReason(reason), cardId, ctx.signal);
    await printCard(ctx, response, (card) => `Card ${describeCard(card)} is ${card.status ?? 'active'}`);
  },
});
