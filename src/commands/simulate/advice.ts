import { defineCommand } from '../../contract/command.js';
import { ADVICE_FLAGS, lifecycleRun, parseLifecycle } from './lifecycle.js';

export default defineCommand({
  name: 'advice',
  mcp: 'simulate',
  output: async () => (await import('../output-shapes.js')).simulationShape(),
  summary: 'an authorization the network already decided (0120, sandbox extension)',
  description: `An authorization advice: the network decided (stand-in) with --network-code (default 00)
and informs the webhook, which acknowledges it and cannot decline it. The transaction is recorded
with the network's decision. Card fields as for simulate authorization.`,
  flags: ADVICE_FLAGS,
  examples: ['cardctl simulate advice --card 6650c0ffee --amount 800.00', 'cardctl simulate advice --card 6650c0ffee --amount 800.00 --network-code 51 --forward'],
  parse: ({ opts }) => parseLifecycle('advice', opts),
  run: lifecycleRun,
});
