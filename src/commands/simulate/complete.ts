import { defineCommand } from '../../contract/command.js';
import { LINKED_FLAGS, lifecycleRun, parseLifecycle } from './lifecycle.js';

export default defineCommand({
  name: 'complete',
  mcp: 'simulate',
  output: async () => (await import('../output-shapes.js')).simulationShape(),
  aliases: ['clear'],
  summary: 'capture an authorization: completion / clearing (0220, sandbox extension)',
  description: `A completion (financial advice, 0220) captures an approved authorization for --amount
(default: what it holds): equal, less (the rest of the hold is released) or more (over-clearing,
e.g. tips or fuel). The original becomes completed. An advice: the webhook acknowledges it and
cannot decline it.`,
  flags: LINKED_FLAGS,
  examples: ['cardctl simulate complete --original-tx 6651d00d', 'cardctl simulate clear --original-tx 6651d00d --amount 1200.00 --forward'],
  parse: ({ opts }) => parseLifecycle('completion', opts),
  run: lifecycleRun,
});
