import { defineCommand } from '../../contract/command.js';
import { SIMULATION_FLAGS } from './options.js';

export default defineCommand({
  name: 'financial',
  mcp: 'simulate',
  output: async () => (await import('../output-shapes.js')).simulationShape(),
  summary: 'simulate a financial transaction (0200)',
  flags: SIMULATION_FLAGS,
  examples: ['cardctl simulate financial --card 6650c0ffee --amount 2,500.00 --flow cash_withdrawal --channel atm', 'cardctl simulate financial --card 6650c0ffee --amount 2,500.00 --flow cash_withdrawal --channel atm --forward --expect-approved'],
  parse: async ({ opts }) => (await import('./execute.js')).parseSimulation('financial', opts),
  run: async (ctx, input) => (await import('./execute.js')).simulateRun(ctx, input),
});
