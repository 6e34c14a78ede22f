import { defineCommand, notImplemented } from '../../core/command.js';
import { addTransactionFilters } from './options.js';

export default defineCommand({
  name: 'list',
  summary: 'list card transactions',
  aliases: ['ls'],
  options: (c) => {
    addTransactionFilters(c)
      .option('--limit <n>', 'page size, 1-100 (default 20)')
      .option('--page <n>', 'page number, from 1')
      .option('--all', 'every page, streamed as it arrives')
      .option('--wide', 'more columns');
  },
  examples: ['cardctl tx list', 'cardctl tx list --status failed --since 24h', 'cardctl tx list --all -o ndjson | jq .responseCode'],
  run: notImplemented('tx list'),
});
