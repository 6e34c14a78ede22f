// `cardctl webhook replay`: a recorded request sent again as it was (POST
// /sandbox/webhook-exchanges/{id}/replay); prints the new exchange.
import { defineCommand } from '../../app/command.js';
import { UsageError } from '../../core/errors.js';
import { defineFlags } from '../../core/flags.js';

const FLAGS = defineFlags({
  to: { type: 'string', value: 'url', description: "send it to this http(s) URL instead of the card program's webhook (this machine only)" },
  keepTimestamp: { type: 'boolean', description: "sign with the original's timestamp: a handler checking freshness refuses it once older than its tolerance" },
});

export default defineCommand({
  name: 'replay',
  summary: 'send a recorded webhook request again, freshly signed',
  description: `Sends the request of a recorded exchange (\`cardctl webhook exchanges\`) again as it was, signed afresh
with the card program's current secret and scheme, to the program's webhook or --to URL. With
--keep-timestamp it is signed with its original timestamp instead, to test a handler's replay
protection. The replay is recorded as an exchange of its own (replayOf: the first) and printed.
A replay is an inspection tool: no transaction or amount changes, whatever the webhook answers.`,
  args: [{ syntax: '<exchange-id>', description: 'a recorded exchange, wx_…' }],
  flags: FLAGS,
  mcp: 'simulate',
  output: async () => (await import('../../output/shapes.js')).exchangeShape(),
  examples: [
    'cardctl webhook replay wx_6651d00d0c3f1a2b3c4d5e6f',
    'cardctl webhook replay wx_6651d00d0c3f1a2b3c4d5e6f --to http://127.0.0.1:4021/webhook',
    'cardctl webhook replay wx_6651d00d0c3f1a2b3c4d5e6f --keep-timestamp -o json | jq .verdict',
  ],
  parse({ args, opts }) {
    const id = String(args[0] ?? '').trim();
    if (!id) throw new UsageError('an exchange id is required', { hint: 'find one with `cardctl webhook exchanges`' });
    let to: string | undefined;
    if (opts.to !== undefined) {
      const url = URL.canParse(opts.to) ? new URL(opts.to) : undefined;
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`invalid --to "${opts.to}": give an http or https URL`);
      to = url.href;
    }
    return { id, to, keepTimestamp: Boolean(opts.keepTimestamp) };
  },
  async run(ctx, input) {
    const { replayWebhookExchange } = await import('../../api/webhook-exchanges.js');
    const response = await replayWebhookExchange(await ctx.client(), input.id, { to: input.to, keepTimestamp: input.keepTimestamp }, ctx.signal);
    const { printExchanges } = await import('./exchange-view.js');
    await printExchanges(ctx, [response.data], { raw: response.raw, single: true });
  },
});
