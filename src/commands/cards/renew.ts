import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'renew',
  summary: 'renew or replace a card with a new expiry',
  arguments: [{ syntax: '<card-id>', description: 'card identifier' }],
  options: (c) => c
    .option('--expiration <yyyymm>', 'new expiry month, YYYYMM, in the future')
    .option('--reason <reason>', 'renewal reason (default RENEW)'),
  examples: ['cardctl cards renew 6650c0ffee --expiration 202912'],
  run: notImplemented('cards renew'),
});
