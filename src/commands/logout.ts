import { defineCommand, notImplemented } from '../core/command.js';

export default defineCommand({
  name: 'logout',
  summary: "remove the profile's stored credentials",
  description: 'Remove the token and API key of the selected profile (asks first unless --yes).',
  examples: ['cardctl logout', 'cardctl logout -p staging --yes'],
  run: notImplemented('logout'),
});
