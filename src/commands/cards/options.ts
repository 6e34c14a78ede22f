// Flags shared by `cards create` and `cards customer update`.
import { Option, type Command } from 'commander';

import { CARD_STATUSES } from '../../api/enums.js';

export { CARD_STATUSES };

export function addCustomerOptions(command: Command): Command {
  return command
    .option('--first-name <name>', "cardholder's first name")
    .option('--middle-name <name>', "cardholder's middle name")
    .option('--last-name <name>', "cardholder's last name")
    .option('--email <address>', 'email address')
    .option('--phone <number>', 'phone number, international format (+2348012345678)')
    .option('--dob <date>', 'date of birth, YYYY-MM-DD')
    .option('--address-line1 <text>', 'address line 1')
    .option('--address-line2 <text>', 'address line 2')
    .option('--city <name>', 'city')
    .option('--state <name>', 'state or region')
    .option('--country <code>', 'country')
    .option('--postal-code <code>', 'postal code')
    .option('--from-file <file>', 'JSON body (or - for stdin); flags override its fields');
}

export function addStatusOption(command: Command): Command {
  return command.addOption(new Option('--status <status>', 'initial card status').choices(CARD_STATUSES));
}
