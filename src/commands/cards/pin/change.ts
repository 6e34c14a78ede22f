import { defineCommand, notImplemented } from '../../../core/command.js';

export default defineCommand({
  name: 'change',
  summary: "change a card's PIN (old PIN required)",
  description: 'Asks for the old PIN and the new PIN (twice) with hidden prompts, or reads them from stdin with\n--pin-stdin: the old PIN on the first line, the new PIN on the second.',
  arguments: [{ syntax: '<card-id>', description: 'card identifier' }],
  options: (c) => c
    .option('--pin-stdin', 'read old and new PIN from stdin, one per line')
    .option('--allow-weak-pin', 'accept trivially weak PINs such as 1234'),
  examples: ['cardctl cards pin change 6650c0ffee', "printf '4821\\n7305\\n' | cardctl cards pin change 6650c0ffee --pin-stdin"],
  run: notImplemented('cards pin change'),
});
