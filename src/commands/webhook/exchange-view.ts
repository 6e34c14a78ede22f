// One or more recorded webhook exchanges for people: a heading line, then the request and the
// reply side by side on a terminal wide enough, else one under the other. Other formats print
// the records as they are (json: the exchange, or the list).
import type { WebhookExchange } from '../../api/schemas.js';
import type { Context } from '../../contract/context.js';
import { redactValue } from '../../core/redact.js';
import { escapeControls, truncate, visibleWidth } from '../../output/format.js';

/** Side by side from this terminal width; below it, stacked. */
const SIDE_BY_SIDE_COLUMNS = 120;

export async function printExchanges(ctx: Context, exchanges: WebhookExchange[], options: { raw?: string; single?: boolean } = {}): Promise<void> {
  const output = ctx.output();
  if (output.format !== 'table' || output.settings.quiet || ctx.globals.fields) {
    if (options.single) await output.record(exchanges[0], { raw: options.raw });
    else await output.list(exchanges, (await import('../../output/columns/webhook-exchanges.js')).webhookExchangeColumns, { raw: options.raw });
    return;
  }
  for (const exchange of exchanges) await printExchange(ctx, exchange);
}

/** The exchanges of a transaction under `tx show --exchanges`. */
export async function printExchangeSection(ctx: Context, exchanges: WebhookExchange[]): Promise<void> {
  const tty = ctx.io.stdoutIsTTY;
  ctx.io.out(tty ? `\n${ctx.style.bold('Webhook exchanges')}\n` : '# webhook exchanges\n');
  if (exchanges.length === 0) ctx.io.out('  (none recorded)\n');
  for (const exchange of exchanges) await printExchange(ctx, exchange);
}

async function printExchange(ctx: Context, given: WebhookExchange): Promise<void> {
  // Printed here, not by the renderer: disclosed by the one rule first (its strings are escaped below).
  const exchange = redactValue(given) as WebhookExchange;
  const { exchangeLines } = await import('../../output/columns/webhook-exchanges.js');
  const { style } = ctx;
  const tone = exchange.verdict === 'accepted' ? style.ok : exchange.verdict === 'refused' ? style.error : style.warn;
  const text = (value: unknown) => escapeControls(String(value));
  const heading = [
    style.bold(text(exchange.id)), text(exchange.at), text(`${exchange.kind} ${exchange.mti}`), `attempt ${exchange.attempt}`, tone(text(exchange.verdict)),
    `${exchange.latencyMs} ms`, ...(exchange.responseCode ? [`code ${text(exchange.responseCode)}`] : []),
    ...(exchange.replayOf ? [`replay of ${text(exchange.replayOf)}`] : []), ...(exchange.faults.length ? [`faults: ${text(exchange.faults.join(', '))}`] : []),
  ].join('  ');
  ctx.io.out(`\n${heading}\n`);
  if (exchange.reason) ctx.io.out(`  ${escapeControls(exchange.reason)}\n`);
  const { request, reply } = exchangeLines(exchange);
  const width = ctx.io.columns;
  if (width !== undefined && width >= SIDE_BY_SIDE_COLUMNS) {
    const half = Math.floor((width - 5) / 2);
    const rows = Math.max(request.length, reply.length) + 1;
    const left = [style.dim('request'), ...request];
    const right = [style.dim('reply'), ...reply];
    for (let i = 0; i < rows; i++) {
      const cell = truncate(left[i] ?? '', half);
      ctx.io.out(`  ${cell}${' '.repeat(Math.max(0, half - visibleWidth(cell)))} │ ${truncate(right[i] ?? '', half)}\n`);
    }
    return;
  }
  ctx.io.out(`  ${style.dim('request')}\n${request.map((line) => `    ${line}\n`).join('')}  ${style.dim('reply')}\n${reply.map((line) => `    ${line}\n`).join('')}`);
}
