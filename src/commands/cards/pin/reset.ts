import { defineCommand, notImplemented } from '../../../core/command.js';

export default defineCommand({
  name: 'reset',
  summary: "reset a card's PIN (no old PIN; unlocks a locked PIN)",
  arguments: [{ syntax: '<card-id>', description: 'card identifier' }],
  options: (c) => c
    .option('--pin-stdin', 'read the new PIN from stdin')
    .option('--allow-weak-pin', 'accept trivially weak PINs such as 1234'),
  examples: ['cardctl cards pin reset 6650c0ffee', 'printf 7305 | cardctl cards pin reset 6650c0ffee --pin-stdin --yes'],
  run: notImplemented('cards pin reset'),
});
