import { defineCommand, notImplemented } from '../../core/command.js';
import { addCustomerOptions, addStatusOption } from './options.js';

export default defineCommand({
  name: 'create',
  summary: 'issue a card from a card program',
  description: `Issue a card. Fields come from flags, from --from-file (JSON; flags win), or, on a terminal,
from prompts for whatever is missing. The default PIN is read from a hidden prompt (asked twice)
or, with --pin-stdin, from stdin, and encrypted on this machine before it is sent.
A reference code is generated when none is given; reuse it to retry safely.`,
  options: (c) => {
    c.option('--program <id>', 'card program identifier')
      .option('--reference <code>', 'your tracking code (unique per institution; generated when absent)')
      .option('--embossing-name <name>', 'name printed on the card');
    addCustomerOptions(c);
    c.option('--account-number <number>', 'linked account number')
      .option('--account-type <type>', 'account type, e.g. savings, current')
      .option('--currency <code>', 'ISO 4217 numeric currency code (default 566)')
      .option('--bank-code <code>', 'bank code of the account')
      .option('--start-date <date>', 'validity start, YYYY-MM-DD or ISO date-time (default today)')
      .option('--expiry-date <date>', "expiry, YYYY-MM-DD or ISO date-time (default: the program's maximum)")
      .option('--pan <pan>', 'card number, when the program lets you bring one (Luhn-checked)')
      .option('--seq-number <n>', 'card sequence number (default from the program)')
      .option('--enroll-2fa', 'enrol the card for extra cardholder verification')
      .option('--print-card', 'print a physical card')
      .option('--no-pin', 'create the card with PIN transactions disabled')
      .option('--pin-stdin', 'read the default PIN from stdin')
      .option('--allow-weak-pin', 'accept trivially weak PINs such as 1234');
    addStatusOption(c);
  },
  examples: [
    'cardctl cards create                        # prompts for what is missing',
    'printf 4821 | cardctl cards create --program PROG --embossing-name "ADA OBI" --first-name Ada --last-name Obi \\\n      --email ada@example.com --phone +2348012345678 --account-number 0123456789 --account-type savings \\\n      --bank-code 058 --pin-stdin',
    'cardctl cards create --from-file card.json --pin-stdin < pin.txt',
  ],
  run: notImplemented('cards create'),
});
