// `cardctl webhook replay`: a recorded request sent again as it was (POST
// /sandbox/webhook-exchanges/{id}/replay); prints the new exchange.
import type { WebhookExchange } from '../../api/schemas.js';
import { defineCommand } from '../../contract/command.js';
import { NetworkError, RejectedError, UsageError } from '../../core/errors.js';
import { defineFlags } from '../../core/flags.js';

const FLAGS = defineFlags({
  // Not for an assistant: a reply or a recorded request could talk it into sending the card data elsewhere.
  to: { type: 'string', value: 'url', mcp: false, description: "send it to this http(s) URL instead of the card program's webhook (this machine only; needs read:card_program; no secret header)" },
  keepTimestamp: { type: 'boolean', description: "sign with the original's timestamp: a handler checking freshness refuses it once older than its tolerance" },
});

export default defineCommand({
  name: 'replay',
  summary: 'send a recorded webhook request again, freshly signed',
  description: `Sends the request of a recorded exchange (\`cardctl webhook exchanges\`) again as it was, signed afresh
with the card program's current secret and scheme, to the program's webhook or --to URL. With
--keep-timestamp it is signed with its original timestamp instead, to test a handler's replay
protection. The replay is recorded as an exchange of its own (replayOf: the first) and printed.
A replay is an inspection tool: no transaction or amount changes, whatever the webhook answers.

--to needs the scope read:card_program besides create:transaction, goes to this machine only
(unless the sandbox is published), and carries the signature but never the program's secret header.

Exit 0 only when the webhook accepted it; the exchange is printed either way. Exit 6 when it was
not reached (refused connection, timeout, reset), exit 5 when it answered with a non-2xx status
or a reply the network could not take.`,
  args: [{ syntax: '<exchange-id>', description: 'a recorded exchange, wx_…' }],
  flags: FLAGS,
  mcp: 'simulate',
  output: async () => (await import('../output-shapes.js')).exchangeShape(),
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
    requireDelivered(response.data);
  },
});

/** A replay that reached nothing, or was not accepted, is not a success (exit 6, or 5). */
export function requireDelivered(exchange: WebhookExchange): void {
  if (exchange.verdict === 'accepted') return;
  const details = { exchangeId: exchange.id, verdict: exchange.verdict, status: exchange.response?.status ?? null };
  const why = exchange.reason ?? exchange.verdict;
  if (exchange.verdict === 'no-answer') throw new NetworkError(`the replay reached no webhook: ${why} (exchange ${exchange.id})`, { code: 'NOT_DELIVERED', details });
  throw new RejectedError(`the webhook did not accept the replay: ${why} (exchange ${exchange.id})`, { code: 'NOT_ACCEPTED', details });
}
