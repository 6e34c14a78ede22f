import { Option } from 'commander';
import { defineCommand, notImplemented } from '../../core/command.js';

export const GRANT_TYPES = ['client_credentials', 'authorization_code', 'refresh_token'] as const;

export default defineCommand({
  name: 'create',
  summary: 'register an OAuth application',
  options: (c) => c
    .option('--name <name>', 'application name')
    .option('--public-key <file>', 'PEM certificate of the application (see `cardctl oauth keygen`)')
    .option('--scope <scope...>', 'permission in verb:object form (repeatable), or *, READ, WRITE')
    .addOption(new Option('--grant-type <type>', 'OAuth grant type').choices(GRANT_TYPES))
    .option('--description <text>', 'description')
    .option('--redirect-uri <uri...>', 'redirect URI (repeatable; required for authorization_code)')
    .option('--website-url <url>', 'website URL')
    .option('--icon-url <url>', 'icon URL')
    .option('--official', 'an official application of the institution')
    .option('--from-file <file>', 'JSON body (or - for stdin); flags override its fields'),
  examples: ['cardctl oauth create --name reconciler --public-key keys/certificate.pem --scope read:card --scope read:transaction --grant-type client_credentials'],
  run: notImplemented('oauth create'),
});
