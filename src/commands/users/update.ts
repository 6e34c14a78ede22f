import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'update',
  summary: 'update an institution user',
  arguments: [{ syntax: '<user-id>', description: 'institution user identifier' }],
  options: (c) => c
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name')
    .option('--email <address>', 'email address')
    .option('--phone <number>', 'phone number')
    .option('--status <status>', 'user status, e.g. active')
    .option('--blocked', 'block the user')
    .option('--no-blocked', 'unblock the user')
    .option('--role <role=perms...>', 'role and its permissions, e.g. admin=create:card,read:card (repeatable)')
    .option('--embossing-name <name>', 'embossing name')
    .option('--start-date <date>', 'start date')
    .option('--expiry-date <date>', 'expiry date')
    .option('--print-card', 'print a card')
    .option('--from-file <file>', 'JSON body (or - for stdin); flags override its fields'),
  examples: ['cardctl users update 6653bb --first-name Ada --last-name Obi --email ada@example.com --phone +2348012345678 --status active --no-blocked --role admin=create:card,read:card'],
  run: notImplemented('users update'),
});
