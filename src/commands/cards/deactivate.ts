import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'deactivate',
  summary: 'suspend a card (asks first unless --yes)',
  arguments: [{ syntax: '<card-id>', description: 'card identifier' }],
  options: (c) => c.option('--reason <text>', 'why (kept in the audit journal)'),
  examples: ['cardctl cards deactivate 6650c0ffee', 'cardctl cards deactivate 6650c0ffee --yes --reason "reported stolen"'],
  run: notImplemented('cards deactivate'),
});
