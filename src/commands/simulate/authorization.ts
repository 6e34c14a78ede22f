import { defineCommand } from '../../contract/command.js';
import { SIMULATION_FLAGS } from './options.js';

export default defineCommand({
  name: 'authorization',
  mcp: 'simulate',
  output: async () => (await import('../output-shapes.js')).simulationShape(),
  summary: 'simulate an authorization (0100)',
  flags: SIMULATION_FLAGS,
  examples: ['cardctl simulate authorization --card 6650c0ffee --amount 1500.00 --channel pos --method chip', 'cardctl simulate authorization --card 6650c0ffee --amount 1500.00 --channel pos --method chip --forward --expect-approved'],
  parse: async ({ opts }) => (await import('./execute.js')).parseSimulation('authorization', opts),
  run: async (ctx, input) => (await import('./execute.js')).simulateRun(ctx, input),
});
