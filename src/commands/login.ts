import { defineCommand, notImplemented } from '../core/command.js';

export default defineCommand({
  name: 'login',
  summary: 'store credentials for a deployment as a profile',
  description: `Store a base URL and credentials as a profile.

Interactive on a terminal (asks for the base URL and the token, hidden). In scripts, give
--base-url and pipe secrets through stdin: --token-stdin, --api-key-stdin (one per run, or
both: token on the first line, API key on the second). Secrets are never taken from argv.
With --client-id and --private-key, logs in with OAuth client credentials and renews the
token by itself.`,
  options: (c) => c
    .option('--token-stdin', 'read the bearer token from stdin')
    .option('--api-key-stdin', 'read the API key (for `import`) from stdin')
    .option('--pin-key <file>', 'PIN public key (PEM) used to encrypt PIN blocks')
    .option('--switch <name>', 'path segment of the simulate endpoint (default "switch")')
    .option('--env <environment>', 'sandbox or production')
    .option('--client-id <id>', 'OAuth client id, for client-credentials login')
    .option('--private-key <file>', 'private key of the OAuth application (its path is stored, not the key)')
    .option('--token-url <url>', 'token endpoint (default: <base-url>/oauth/token)')
    .option('--no-use', 'do not make this profile the current one'),
  examples: [
    'cardctl login',
    'printf %s "$TOKEN" | cardctl login --base-url https://api.example.com --token-stdin --pin-key pin.pem',
    'cardctl login -p ci --base-url https://api.example.com --client-id APP_ID --private-key ./keys/private-key.pem',
  ],
  run: notImplemented('login'),
});
