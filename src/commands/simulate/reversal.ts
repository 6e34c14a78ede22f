import { defineCommand } from '../../contract/command.js';
import { SIMULATION_FLAGS } from './options.js';

export default defineCommand({
  name: 'reversal',
  mcp: 'simulate',
  output: async () => (await import('../output-shapes.js')).simulationShape(),
  summary: 'simulate a reversal (0420)',
  description: `Reverses all or part of an original, named by --original-tx, or by --original-stan with
--original-rrn. Without --amount, a reversal of --original-tx takes the rest: what the original may
still give back, neither reversed nor refunded (its record's remainingAmount). More than the rest is
a 400 naming it (exit 5).`,
  flags: SIMULATION_FLAGS,
  examples: ['cardctl simulate reversal --original-tx 6651d00d --amount 1500.00', 'cardctl simulate reversal --original-tx 6651d00d --amount 1500.00 --forward --expect-approved'],
  parse: async ({ opts }) => (await import('./execute.js')).parseSimulation('reversal', opts),
  run: async (ctx, input) => (await import('./execute.js')).simulateRun(ctx, input),
});
