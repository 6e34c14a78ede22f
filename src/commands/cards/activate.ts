import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'activate',
  summary: 'activate a card',
  arguments: [{ syntax: '<card-id>', description: 'card identifier' }],
  examples: ['cardctl cards activate 6650c0ffee'],
  run: notImplemented('cards activate'),
});
