import { defineCommand } from '../../app/command.js';
import { SIMULATION_FLAGS } from './options.js';

export default defineCommand({
  name: 'reversal',
  summary: 'simulate a reversal (0420)',
  flags: SIMULATION_FLAGS,
  examples: ['cardctl simulate reversal --original-tx 6651d00d --amount 1500.00', 'cardctl simulate reversal --original-tx 6651d00d --amount 1500.00 --forward --expect-approved'],
  run: async (ctx, input) => (await import('./execute.js')).simulateRun('reversal')(ctx, input),
});
