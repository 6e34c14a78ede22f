import type { Transaction } from '../../api/schemas.js';
import type { Context } from '../../core/context.js';
import { defineCommand } from '../../core/command.js';
import { UsageError } from '../../core/errors.js';
import { escapeControlsDeep } from '../../output/format.js';

const HOPS = [
  ['switchToService', 'switch → service'],
  ['serviceToInstitution', 'service → institution'],
  ['institutionToService', 'institution → service'],
  ['serviceToSwitch', 'service → switch'],
] as const;

export default defineCommand({
  name: 'show',
  summary: 'show one transaction with its messages and hop timeline',
  aliases: ['get'],
  description: `Shows the whole transaction: a summary, the request (original message) and the response as
field-number / name / value rows (PAN masked), and the four hops with their times.
Uses GET /institutions/transactions/{id} (a sandbox extension); where a deployment answers 404 for that
route, the list is scanned page by page instead.`,
  args: [{ syntax: '<tx-id>', description: 'transaction identifier' }],
  examples: ['cardctl tx show 6651d00d', 'cardctl tx show 6651d00d -o json', 'cardctl tx show 6651d00d -o json | jq .response'],
  async run(ctx, { args }) {
    const id = String(args[0] ?? '').trim();
    if (!id) throw new UsageError('a transaction id is required', { hint: 'find one with `cardctl tx list`' });
    const { getTransaction } = await import('../../api/transactions.js');
    const response = await getTransaction(await ctx.client(), id, {
      signal: ctx.signal,
      onScan: (page) => ctx.log.verbose(`GET /institutions/transactions/{id} is not available; scanning page ${page}`),
    });
    const output = ctx.output();
    if (output.format !== 'table' || output.settings.quiet || ctx.globals.fields) {
      await output.record(response.data, { raw: response.raw });
      return;
    }
    await showTransaction(ctx, response.data);
  },
});

async function showTransaction(ctx: Context, tx: Transaction): Promise<void> {
  const [{ transactionRows }, { printMessage }] = await Promise.all([
    import('../../output/columns/transactions.js'),
    import('../simulate/execute.js'),
  ]);
  await ctx.output().record(tx, { rows: transactionRows as never });
  await printMessage(ctx, 'Request', tx.originalMessage);
  await printMessage(ctx, 'Response', tx.response);
  printTimeline(ctx, tx);
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
    const hop = escapeControlsDeep(raw);
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
