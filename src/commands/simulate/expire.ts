import { defineCommand } from '../../contract/command.js';
import { defineFlags } from '../../core/flags.js';
import { parseExpire } from './lifecycle.js';

const FLAGS = defineFlags({
  originalTx: { type: 'string', value: 'id', description: 'the approved authorization whose hold expires' },
});

export default defineCommand({
  name: 'expire',
  mcp: 'simulate',
  output: async () => (await import('../output-shapes.js')).simulationShape(),
  summary: "release an authorization's hold now, as its hold period ending would (sandbox extension)",
  description: `Forces the expiry of an approved authorization: it becomes reversed with releaseReason
"expiry" and holds nothing. Holds also expire on their own after the card program's holdPeriodHours
(default 168); \`cardctl simulate clock --advance 7d\` gets there without waiting. An authorization
that holds nothing is refused (exit 5).`,
  flags: FLAGS,
  examples: ['cardctl simulate expire --original-tx 6651d00d'],
  parse: ({ opts }) => parseExpire(opts),
  run: async (ctx, input) => (await import('./lifecycle.js')).expireRun(ctx, input),
});
