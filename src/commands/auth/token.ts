import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'token',
  summary: "print the profile's access token (for other tools)",
  description: "Print the bearer token of the selected profile on stdout, renewing it first when it comes from\nclient credentials. Meant for piping into other tools; it is the only command that prints a secret.",
  examples: ['curl -H "Authorization: Bearer $(cardctl auth token)" "$BASE/institutions/cards"'],
  run: notImplemented('auth token'),
});
