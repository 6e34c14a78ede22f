import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'list',
  summary: "list the institution's OAuth applications",
  aliases: ['ls'],
  options: (c) => c
    .option('--search <text>', 'filter by name')
    .option('--limit <n>', 'page size, 1-100 (default 20)')
    .option('--page <n>', 'page number, from 1')
    .option('--all', 'every page'),
  examples: ['cardctl oauth list', 'cardctl oauth list -o json'],
  run: notImplemented('oauth list'),
});
