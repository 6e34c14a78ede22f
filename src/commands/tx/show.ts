import type { Lifecycle, Transaction } from '../../api/schemas.js';
import type { Context } from '../../contract/context.js';
import { defineCommand } from '../../contract/command.js';
import { defineFlags } from '../../core/flags.js';
import { CliError, ExitCode, NotFoundError, UsageError } from '../../core/errors.js';
import { terminalValue } from '../../output/format.js';

const HOPS = [
  ['switchToService', 'switch → service'],
  ['serviceToInstitution', 'service → institution'],
  ['institutionToService', 'institution → service'],
  ['serviceToSwitch', 'service → switch'],
] as const;

const FLAGS = defineFlags({
  lifecycle: { type: 'boolean', description: 'print only the lifecycle: the original, every linked message, the amounts (sandbox)' },
  exchanges: { type: 'boolean', description: "add its webhook exchanges, request and reply (sandbox; -o json: an exchanges array)" },
});

/** The lifecycle amounts in the order a hold moves through them. */
const AMOUNTS = ['requested', 'authorized', 'held', 'captured', 'released', 'refunded'] as const;

export default defineCommand({
  name: 'show',
  mcp: 'read',
  summary: 'show one transaction with its messages and hop timeline',
  aliases: ['get'],
  description: `Shows the whole transaction: a summary, the request (original message) and the response as
field-number / name / value rows (PAN masked), and the four hops with their times.
Uses GET /institutions/transactions/{id} (a sandbox extension); where a deployment answers 404 for that
route, the list is scanned page by page instead.
Against the sandbox the view ends with the transaction's lifecycle (GET
/sandbox/transactions/{id}/lifecycle, an extension): the original and every linked message in
order (increments, completion, reversals, refunds, advices), with the amounts requested,
authorized, held, captured, released and refunded. --lifecycle prints only that (-o json: the
lifecycle record). A deployment without the route shows the transaction alone.
--exchanges adds the webhook exchanges of the transaction and of the messages linked to it, as the
sandbox recorded them (GET /sandbox/webhook-exchanges): each request and reply, the verdict and its
reason (-o json: the transaction with an \`exchanges\` array).`,
  args: [{ syntax: '<tx-id>', description: 'transaction identifier' }],
  flags: FLAGS,
  examples: ['cardctl tx show 6651d00d', 'cardctl tx show 6651d00d -o json', 'cardctl tx show 6651d00d -o json | jq .response', 'cardctl tx show 6651d00d --lifecycle -o json', 'cardctl tx show 6651d00d --exchanges'],
  parse(raw) {
    const id = String(raw.args[0] ?? '').trim();
    if (!id) throw new UsageError('a transaction id is required', { hint: 'find one with `cardctl tx list`' });
    return { ...raw, id };
  },
  async run(ctx, { id, opts }) {
    if (opts.lifecycle) {
      const { getLifecycle } = await import('../../api/simulate.js');
      const response = await getLifecycle(await ctx.client(), id, { signal: ctx.signal });
      const output = ctx.output();
      if (output.format !== 'table' || output.settings.quiet || ctx.globals.fields) await output.record(response.data, { raw: response.raw });
      else await printLifecycle(ctx, response.data);
      return;
    }
    const { getTransaction } = await import('../../api/transactions.js');
    const response = await getTransaction(await ctx.client(), id, {
      signal: ctx.signal,
      onScan: (page) => ctx.log.verbose(`GET /institutions/transactions/{id} is not available; scanning page ${page}`),
    });
    const exchanges = opts.exchanges ? await exchangesOf(ctx, id) : undefined;
    const output = ctx.output();
    if (output.format !== 'table' || output.settings.quiet || ctx.globals.fields) {
      if (exchanges) await output.record({ ...response.data, exchanges });
      else await output.record(response.data, { raw: response.raw });
      return;
    }
    await showTransaction(ctx, response.data);
    if (exchanges) await (await import('../webhook/exchange-view.js')).printExchangeSection(ctx, [...exchanges].reverse());
  },
});

/** The webhook exchanges of a transaction and of the messages linked to it, newest first. */
async function exchangesOf(ctx: Context, id: string) {
  const { listAllWebhookExchanges } = await import('../../api/webhook-exchanges.js');
  const exchanges = [];
  try {
    for await (const page of listAllWebhookExchanges(await ctx.client(), { transactionId: id }, ctx.signal)) exchanges.push(...page.records());
  } catch (error) {
    // A deployment has no exchange log: say so rather than "not found".
    if (error instanceof NotFoundError && !/webhook exchange/.test(error.apiMessage ?? '')) {
      throw new NotFoundError('this server keeps no webhook exchanges (GET /sandbox/webhook-exchanges is a sandbox extension)', { hint: 'drop --exchanges, or ask the sandbox' });
    }
    throw error;
  }
  return exchanges;
}

async function showTransaction(ctx: Context, tx: Transaction): Promise<void> {
  const [{ transactionRows }, { printMessage }] = await Promise.all([
    import('../../output/columns/transactions.js'),
    import('../simulate/execute.js'),
  ]);
  await ctx.output().record(tx, { rows: transactionRows });
  await printMessage(ctx, 'Request', tx.originalMessage);
  await printMessage(ctx, 'Response', tx.response);
  printTimeline(ctx, tx);
  const lifecycle = await lifecycleIfServed(ctx, tx.id);
  if (lifecycle) await printLifecycle(ctx, lifecycle);
}

/** The lifecycle where the server has the route (the sandbox); undefined where it has not (a deployment). */
async function lifecycleIfServed(ctx: Context, id: string): Promise<Lifecycle | undefined> {
  const { getLifecycle } = await import('../../api/simulate.js');
  try {
    return (await getLifecycle(await ctx.client(), id, { signal: ctx.signal })).data;
  } catch (error) {
    if (error instanceof CliError && (error.exitCode === ExitCode.NotFound || error.exitCode === ExitCode.Rejected)) {
      ctx.log.verbose(`no lifecycle for ${id}: ${error.message}`);
      return undefined;
    }
    throw error;
  }
}

async function printLifecycle(ctx: Context, lifecycle: Lifecycle): Promise<void> {
  const tty = ctx.io.stdoutIsTTY;
  // Server text, disclosed by the one rule and with control characters made visible.
  const life = terminalValue(lifecycle);
  ctx.io.out(tty ? `\n${ctx.style.bold('Lifecycle')}\n` : '# lifecycle\n');
  const amounts = AMOUNTS.map((key) => `${key} ${life.amounts[key]}`).join(tty ? '  ' : '\t');
  ctx.io.out(tty ? `  ${life.originalTransactionId}  ${life.transactionStatus}  ${amounts}  (${life.currency})\n` : `${life.originalTransactionId}\t${life.transactionStatus}\t${amounts}\t${life.currency}\n`);
  await ctx.output().list(life.messages, [
    { header: 'ID', path: 'transactionId' },
    { header: 'Kind', path: 'messageKind' },
    { header: 'MTI', path: 'mti' },
    { header: 'Amount', path: 'amount' },
    { header: 'Code', path: 'responseCode' },
    { header: 'Status', path: 'transactionStatus' },
    { header: 'At', path: 'createdAt' },
  ], { idPath: 'transactionId', emptyMessage: '(no messages)' });
}

function printTimeline(ctx: Context, tx: Transaction): void {
  const hops = HOPS.map(([key, label]) => ({ label, hop: tx.timestamps?.[key] })).filter((h) => h.hop);
  if (hops.length === 0) return;
  const start = Date.parse(hops[0]!.hop!.timestamp);
  const tty = ctx.io.stdoutIsTTY;
  ctx.io.out(tty ? `\n${ctx.style.bold('Timeline')}\n` : '# timeline\n');
  let previous = start;
  for (const { label, hop: raw } of hops) {
    // The hop as the server sent it, with control characters made visible.
    const hop = terminalValue(raw);
    const at = Date.parse(hop!.timestamp);
    const since = Number.isNaN(at) ? '' : `+${at - start} ms`;
    const step = Number.isNaN(at) ? '' : `(${at - previous} ms)`;
    if (!Number.isNaN(at)) previous = at;
    if (tty) {
      ctx.io.out(`  ${timeOfDay(hop!.timestamp)}  ${label.padEnd(22)} ${hop!.direction.padEnd(8)} ${since.padStart(9)} ${ctx.style.dim(step.padEnd(10))} ${hop!.description}\n`);
    } else {
      ctx.io.out(`${hop!.timestamp}\t${label}\t${hop!.direction}\t${since}\t${hop!.description}\n`);
    }
  }
  if (tty) ctx.io.out(`  ${ctx.style.dim(`total ${tx.duration} ms`)}\n`);
}

function timeOfDay(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}
