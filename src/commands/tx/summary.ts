import { defineCommand } from '../../contract/command.js';
import { parseTransactionFilters, SUMMARY_FLAGS } from './options.js';

export default defineCommand({
  name: 'summary',
  mcp: 'read',
  summary: 'approval rate, counts and amounts, grouped',
  aliases: ['stats'],
  description: `Counts transactions (default: the last 24 hours), their approval rate and amounts per currency,
grouped --by channel, responseCode, hour or merchant, with the response codes and what they mean. On a
terminal: bar charts (a sparkline over time for --by hour). -o json prints the whole summary; csv, ndjson
and piped tables print one row per group. Reads the list page by page; memory does not grow with it.`,
  flags: SUMMARY_FLAGS,
  examples: ['cardctl tx summary', 'cardctl tx summary --since 7d --by responseCode', 'cardctl tx summary --by hour', 'cardctl tx summary --merchant SBXMERCHANT0001 -o json --jq .approvalRate'],
  // The last 24 hours unless --since says otherwise.
  parse: ({ opts, now }) => ({ filter: parseTransactionFilters({ ...opts, since: opts.since ?? '24h' }, now), by: opts.by ?? 'channel' }),
  async run(ctx, input) {
    // The aggregation and the ISO tables (currencies, response codes) load only when it runs.
    const { runSummary } = await import('./summary-report.js');
    await runSummary(ctx, input);
  },
});
