// `cardctl webhook exchanges`: the sandbox's record of every HTTP call of the switch to the
// webhook (GET /sandbox/webhook-exchanges), a list like every list; or, with --as-scenario, a
// scenario file that replays those messages through `simulate run` (src/scenario/from-exchanges.ts).
import { existsSync } from 'node:fs';
import type { ApiClient } from '../../api/client.js';
import type { Lifecycle, Transaction, WebhookExchange } from '../../api/schemas.js';
import type { ListWebhookExchangesParams } from '../../api/webhook-exchanges.js';
import type { Context } from '../../contract/context.js';
import { parseTimeBound } from '../../core/datetime.js';
import { UsageError } from '../../core/errors.js';
import { defineFlags } from '../../core/flags.js';
import { listCommand } from '../list-command.js';

const FLAGS = defineFlags({
  tx: { type: 'list', repeat: 'each', value: 'id', description: 'only the exchanges of this transaction (and of the messages linked to it); repeat for several' },
  failed: { type: 'boolean', description: 'only those the network did not take: refused, or no answer' },
  since: { type: 'string', value: 'time', description: 'only those at or after this time (ISO date-time or a duration like 30m, 24h)' },
  asScenario: { type: 'string', value: 'file', complete: 'file', mcp: false, description: 'write a scenario replaying these messages through `simulate run` instead of listing' },
  keepSpacing: { type: 'boolean', mcp: false, description: 'with --as-scenario: keep the time between messages (wait steps)' },
  force: { type: 'boolean', mcp: false, description: 'with --as-scenario: overwrite the file' },
});

interface ExchangeQuery {
  tx: string[];
  failed: boolean;
  since?: Date;
  /** --as-scenario: write these exchanges' messages as a scenario instead of listing them. */
  scenario?: { file: string; keepSpacing: boolean; force: boolean };
}

const list = listCommand({
  name: 'exchanges',
  summary: 'list the webhook exchanges the sandbox recorded (request, reply, verdict)',
  description: `Every HTTP call of the sandbox's switch to the card program's webhook, newest first: authorizations,
financials, balance inquiries, lifecycle messages, advices and each retry, reversal repeats, duplicate
deliveries, replays. Each holds the request as sent (signature and secret header redacted, card number
masked), the reply (status, headers, body up to 64 KiB), latency, the verdict (accepted, refused,
no-answer) and its reason, the faults injected and the attempt; -o json shows them whole.
The sandbox keeps them in memory, bounded (\`sandbox serve --exchanges-max\`, \`--exchanges-max-bytes\`).
With --as-scenario FILE the exchanges' messages are written as a scenario that \`simulate run\` replays
in forward mode, expecting the response codes and lifecycle amounts seen (\`cardctl help exchanges\`).`,
  flags: FLAGS,
  wide: 'more columns: transaction, replay of, faults, URL',
  noun: 'exchanges',
  // A sandbox read; writing a scenario file is for the person at the terminal (its flags are no tool inputs).
  mcp: 'simulate',
  // The exchanges, or with --as-scenario what was written.
  output: async () => (await import('../output-shapes.js')).exchangeShape({ keys: ['file', 'steps', 'messages'] }),
  examples: [
    'cardctl webhook exchanges',
    'cardctl webhook exchanges --failed --since 30m',
    'cardctl webhook exchanges --tx 6651d00d -o json | jq ".[0].response"',
    'cardctl webhook exchanges --tx 6651d00d --as-scenario regression.yaml --keep-spacing',
  ],
  query: (opts, now): ExchangeQuery => {
    if (!opts.asScenario && (opts.keepSpacing || opts.force)) throw new UsageError(`--${opts.keepSpacing ? 'keep-spacing' : 'force'} goes with --as-scenario`);
    if (opts.asScenario !== undefined && opts.asScenario.trim() === '') throw new UsageError('--as-scenario needs a file name');
    if (opts.asScenario !== undefined && !opts.force && existsSync(opts.asScenario.trim())) {
      throw new UsageError(`${opts.asScenario.trim()} already exists; refusing to overwrite`, { hint: 'pass --force to replace it, or choose another file' });
    }
    const tx = (opts.tx ?? []).map((id) => id.trim()).filter(Boolean);
    return {
      tx,
      failed: Boolean(opts.failed),
      ...(opts.since !== undefined ? { since: parseTimeBound('--since', opts.since, now) } : {}),
      ...(opts.asScenario !== undefined ? { scenario: { file: opts.asScenario.trim(), keepSpacing: Boolean(opts.keepSpacing), force: Boolean(opts.force) } } : {}),
    };
  },
  emptyMessage: (query) => (query.tx.length || query.failed || query.since
    ? 'no webhook exchanges match'
    : 'no webhook exchanges yet; they are recorded when the sandbox forwards a message (`simulate authorization --forward`)'),
  columns: async () => (await import('../../output/columns/webhook-exchanges.js')).webhookExchangeColumns,
  async page(ctx, query, paging) {
    const { listWebhookExchanges } = await import('../../api/webhook-exchanges.js');
    if (query.tx.length > 1) return { rows: await readAll(await ctx.client(), query, ctx.signal) };
    const response = await listWebhookExchanges(await ctx.client(), { ...apiParams(query, query.tx[0]), ...paging }, ctx.signal);
    return { rows: response.data ?? [], raw: () => response.raw, pagination: response.pagination };
  },
  async pages(ctx, query, limit, onPage) {
    const { listAllWebhookExchanges } = await import('../../api/webhook-exchanges.js');
    const { forEachPage } = await import('../../api/paging.js');
    let more = true;
    for (const tx of query.tx.length ? query.tx : [undefined]) {
      if (!more) return;
      await forEachPage(listAllWebhookExchanges(await ctx.client(), { ...apiParams(query, tx), limit }, ctx.signal), async (response) => {
        more = await onPage({ rows: response.records(), raw: () => response.raw });
        return more;
      });
    }
  },
});

export default {
  ...list,
  async run(ctx: Context, input: Parameters<typeof list.run>[1]) {
    const { scenario } = input.query;
    if (scenario) await writeScenario(ctx, input.query, scenario.file, scenario);
    else await list.run(ctx, input);
  },
};

function apiParams(query: ExchangeQuery, tx: string | undefined): ListWebhookExchangesParams {
  return { ...(tx ? { transactionId: tx } : {}), ...(query.failed ? { failed: true } : {}), ...(query.since ? { since: query.since.toISOString() } : {}) };
}

/** Every exchange matching, each once, newest first. */
async function readAll(client: ApiClient, query: ExchangeQuery, signal: AbortSignal | undefined): Promise<WebhookExchange[]> {
  const { listAllWebhookExchanges } = await import('../../api/webhook-exchanges.js');
  const seen = new Map<string, WebhookExchange>();
  for (const tx of query.tx.length ? query.tx : [undefined]) {
    for await (const response of listAllWebhookExchanges(client, apiParams(query, tx), signal)) {
      for (const exchange of response.records()) seen.set(exchange.id, exchange);
    }
  }
  return [...seen.values()].sort((a, b) => b.at.localeCompare(a.at));
}

async function writeScenario(ctx: Context, query: ExchangeQuery, file: string, options: { keepSpacing: boolean; force: boolean }): Promise<void> {
  const client = await ctx.client();
  const exchanges = await readAll(client, query, ctx.signal);
  const { getTransaction } = await import('../../api/transactions.js');
  const { getLifecycle } = await import('../../api/simulate.js');
  const { NETWORK_KINDS, originalIdOf, scenarioFromExchanges } = await import('../../scenario/from-exchanges.js');
  // A message's first delivery (not a retry, a repeat or a replay), oldest first.
  const firsts = new Map<string, WebhookExchange>();
  for (const exchange of [...exchanges].reverse()) {
    if (exchange.replayOf || exchange.attempt > 1 || exchange.kind.endsWith('-repeat') || !exchange.transactionId) continue;
    if (!firsts.has(exchange.transactionId)) firsts.set(exchange.transactionId, exchange);
  }
  const transactions = new Map<string, Transaction>();
  const lifecycles = new Map<string, Lifecycle>();
  const read = async (id: string) => {
    if (!transactions.has(id)) transactions.set(id, (await getTransaction(client, id, { signal: ctx.signal })).data);
    return transactions.get(id)!;
  };
  for (const id of firsts.keys()) {
    const tx = await read(id);
    if (NETWORK_KINDS.has(tx.messageKind ?? '')) continue;
    const lifecycle = (await getLifecycle(client, id, { signal: ctx.signal })).data;
    const originalId = originalIdOf(tx, lifecycle);
    lifecycles.set(originalId, lifecycle);
    // The original a message belongs to goes first, recorded or not: the message needs it.
    await read(originalId);
  }
  const messages = [...transactions.values()]
    .filter((tx) => !NETWORK_KINDS.has(tx.messageKind ?? ''))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
    .map((transaction) => ({ transaction, ...(firsts.has(transaction.id) ? { exchange: firsts.get(transaction.id)! } : {}) }));
  if (messages.length === 0) throw new UsageError('no recorded messages to write a scenario from', { hint: 'list them with `cardctl webhook exchanges`' });
  const { yaml, steps } = scenarioFromExchanges({ name: `replay of ${messages.length} recorded message${messages.length === 1 ? '' : 's'}`, messages, lifecycles, keepSpacing: options.keepSpacing });
  const { writeFileAtomic } = await import('../../core/write-file.js');
  writeFileAtomic(file, yaml, { mode: 0o644, exclusive: !options.force });
  const output = ctx.output();
  output.success(`wrote ${file}: ${steps} step${steps === 1 ? '' : 's'} from ${messages.length} message${messages.length === 1 ? '' : 's'}; run it with \`cardctl simulate run ${file}\``);
  if (output.format !== 'table') await output.record({ file, steps, messages: messages.length });
}
