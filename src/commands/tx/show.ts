import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'show',
  summary: 'show one transaction with its messages and hop timeline',
  aliases: ['get'],
  arguments: [{ syntax: '<tx-id>', description: 'transaction identifier' }],
  examples: ['cardctl tx show 6651d00d', 'cardctl tx show 6651d00d -o json'],
  run: notImplemented('tx show'),
});
