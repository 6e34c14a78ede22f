import { defineCommand } from '../../contract/command.js';
import { LINKED_FLAGS, lifecycleRun, parseLifecycle } from './lifecycle.js';

export default defineCommand({
  name: 'increment',
  mcp: 'simulate',
  output: async () => (await import('../output-shapes.js')).simulationShape(),
  summary: "raise an approved authorization's hold (0100, sandbox extension)",
  description: `An incremental authorization: raises what an approved authorization holds by --amount.
Checked like an authorization (card, expiry, status, channel, daily amount); in forward mode the
webhook decides. The answer is recorded as a transaction linked to the original.`,
  flags: LINKED_FLAGS,
  examples: ['cardctl simulate increment --original-tx 6651d00d --amount 250.00', 'cardctl simulate increment --original-tx 6651d00d --amount 250.00 --forward --expect-approved'],
  parse: ({ opts }) => parseLifecycle('increment', opts),
  run: lifecycleRun,
});
