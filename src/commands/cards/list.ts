import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'list',
  summary: "list the institution's cards",
  aliases: ['ls'],
  options: (c) => c
    .option('--search <text>', 'free-text search across card fields')
    .option('--card-id <id>', 'only this card')
    .option('--limit <n>', 'page size, 1-100 (default 20)')
    .option('--page <n>', 'page number, from 1')
    .option('--all', 'every page, streamed as it arrives')
    .option('--wide', 'more columns'),
  examples: ['cardctl cards list', 'cardctl cards list --search ADA --limit 50', 'cardctl cards list --all -o ndjson > cards.ndjson', 'cardctl cards list -q | xargs -n1 cardctl cards get'],
  run: notImplemented('cards list'),
});
