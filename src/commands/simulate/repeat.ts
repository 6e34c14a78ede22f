import { defineCommand } from '../../contract/command.js';
import { defineFlags } from '../../core/flags.js';
import { SIMULATION_FLAGS } from './options.js';
import { parseRepeat } from './lifecycle.js';

const FLAGS = defineFlags({
  tx: { type: 'string', value: 'id', description: 'the transaction whose message the network resends' },
  forward: { type: 'boolean', description: 'send the repeat to the webhook (its answer is compared with the first)' },
  expectApproved: SIMULATION_FLAGS.expectApproved,
  messages: SIMULATION_FLAGS.messages,
});

export default defineCommand({
  name: 'repeat',
  mcp: 'simulate',
  output: async () => (await import('../output-shapes.js')).simulationShape(),
  summary: 'the network resends a message it saw no answer to (0101, 0201, 0421; sandbox extension)',
  description: `A repeat: same STAN, RRN and fields, the MTI's last digit 1. The sandbox answers as the first
time (same transaction, same code, no second hold). With --forward the webhook gets the repeat, and
the transaction's "repeats" records whether its answer agreed with the first.`,
  flags: FLAGS,
  examples: ['cardctl simulate repeat --tx 6651d00d', 'cardctl simulate repeat --tx 6651d00d --forward -o json'],
  parse: ({ opts }) => parseRepeat(opts),
  run: async (ctx, input) => (await import('./lifecycle.js')).repeatRun(ctx, input),
});
