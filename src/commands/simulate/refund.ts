import { defineCommand } from '../../contract/command.js';
import { LINKED_FLAGS, lifecycleRun, parseLifecycle } from './lifecycle.js';

export default defineCommand({
  name: 'refund',
  mcp: 'simulate',
  output: async () => (await import('../output-shapes.js')).simulationShape(),
  summary: 'refund part or all of a purchase (0200, processing code 20, sandbox extension)',
  description: `A refund of an approved financial or a completed authorization, linked to it. The refunds
of one purchase never add up to more than it captured: the sandbox refuses with a 400 naming what
is left (exit 5).`,
  flags: LINKED_FLAGS,
  examples: ['cardctl simulate refund --original-tx 6651d00d --amount 400.00', 'cardctl simulate refund --original-tx 6651d00d --amount 400.00 --forward --expect-approved'],
  parse: ({ opts }) => parseLifecycle('refund', opts),
  run: lifecycleRun,
});
