import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'status',
  summary: 'show the profile in use and whether its credentials work',
  description: 'Show which profile is used, its base URL, masked token and API key, the PIN key fingerprint,\nand whether the token works (one cheap authenticated request).',
  examples: ['cardctl auth status', 'cardctl auth status -o json'],
  run: notImplemented('auth status'),
});
