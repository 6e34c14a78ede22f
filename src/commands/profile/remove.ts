import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'remove',
  summary: 'delete a stored profile',
  aliases: ['rm'],
  arguments: [{ syntax: '<name>', description: 'profile name' }],
  examples: ['cardctl profile remove staging --yes'],
  run: notImplemented('profile remove'),
});
