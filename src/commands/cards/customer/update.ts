import { defineCommand, notImplemented } from '../../../core/command.js';
import { addCustomerOptions } from '../options.js';

export default defineCommand({
  name: 'update',
  summary: "update a card's cardholder details",
  description: 'Give only what changes: the current record is fetched and merged before the full body is sent.',
  arguments: [{ syntax: '<card-id>', description: 'card identifier' }],
  options: (c) => void addCustomerOptions(c),
  examples: ['cardctl cards customer update 6650c0ffee --email ada.obi@example.com', 'cardctl cards customer update 6650c0ffee --from-file customer.json'],
  run: notImplemented('cards customer update'),
});
