import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'update',
  summary: 'update an OAuth application',
  arguments: [{ syntax: '<id>', description: 'application identifier' }],
  options: (c) => c
    .option('--name <name>', 'application name')
    .option('--description <text>', 'description')
    .option('--website-url <url>', 'website URL')
    .option('--scope <scope...>', 'permission (repeatable); replaces the current scopes'),
  examples: ['cardctl oauth update 6652aa --name reconciler --description "nightly" --website-url https://example.com --scope read:card'],
  run: notImplemented('oauth update'),
});
