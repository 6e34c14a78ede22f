import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'show',
  summary: 'show a profile (secrets masked)',
  arguments: [{ syntax: '[name]', description: 'profile name (default: the current one)' }],
  examples: ['cardctl profile show', 'cardctl profile show production -o json'],
  run: notImplemented('profile show'),
});
