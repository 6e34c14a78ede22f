
import { defineCommand, notImplemented } from '../core/command.js';

export default defineCommand({
  name: 'api',
  summary: 'make an authenticated request to any endpoint',
  arguments: [
    { syntax: '<method>', description: 'GET, POST, PUT, PATCH or DELETE' },
    { syntax: '<path>', description: 'path relative to the base URL, e.g. /institutions/cards?limit=5' },
  ],
  options: (c) => c
    .option('--data <json>', 'request body: JSON text, @FILE, or - for stdin')
    .option('--api-key', 'authenticate with the API key (x-api-key) instead of the bearer token'),
  examples: ['cardctl api GET /institutions/cards', "cardctl api PUT /institutions/cards/ID/renew --data '{\"expiration\":\"202912\",\"renewReason\":\"RENEW\"}'", 'cardctl api GET /institutions/transactions -o raw'],
  run: notImplemented('api'),
});

