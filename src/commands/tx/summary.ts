import { Option } from 'commander';
import { defineCommand } from '../../core/command.js';
import { addTransactionFilters, type TransactionFilterOptions } from './options.js';

export const SUMMARY_GROUPS = ['channel', 'responseCode', 'hour', 'merchant'] as const;
export type SummaryGroupBy = (typeof SUMMARY_GROUPS)[number];

export interface SummaryOptions extends TransactionFilterOptions {
  by?: SummaryGroupBy;
}

export default defineCommand<SummaryOptions>({
  name: 'summary',
  summary: 'approval rate, counts and amounts, grouped',
  aliases: ['stats'],
  description: `Counts transactions (default: the last 24 hours), their approval rate and amounts per currency,
grouped --by channel, responseCode, hour or merchant, with the response codes and what they mean. On a
terminal: bar charts (a sparkline over time for --by hour). -o json prints the whole summary; csv, ndjson
and piped tables print one row per group. Reads the list page by page; memory does not grow with it.`,
  options: (c) => {
    addTransactionFilters(c)
      .addOption(new Option('--by <group>', 'group by').choices(SUMMARY_GROUPS).default('channel'));
  },
  examples: ['cardctl tx summary', 'cardctl tx summary --since 7d --by responseCode', 'cardctl tx summary --by hour', 'cardctl tx summary --merchant SBXMERCHANT0001 -o json --jq .approvalRate'],
  async run(ctx, { opts }) {
    // The aggregation and the ISO tables (currencies, response codes) load only when it runs.
    const { runSummary } = await import('./summary-report.js');
    await runSummary(ctx, opts);
  },
});
