import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'use',
  summary: 'make a profile the current one',
  arguments: [{ syntax: '<name>', description: 'profile name' }],
  examples: ['cardctl profile use sandbox'],
  run: notImplemented('profile use'),
});
