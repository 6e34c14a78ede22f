import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'get',
  summary: 'show one card',
  aliases: ['show'],
  arguments: [{ syntax: '<card-id>', description: 'card identifier' }],
  examples: ['cardctl cards get 6650c0ffee', 'cardctl cards get 6650c0ffee -o json --fields id,status,customer.emailAddress'],
  run: notImplemented('cards get'),
});
