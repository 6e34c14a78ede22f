import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'list',
  summary: 'list stored profiles',
  examples: ['cardctl profile list', 'cardctl profile list -o json'],
  run: notImplemented('profile list'),
});
