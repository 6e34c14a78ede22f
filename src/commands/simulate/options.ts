// Flags shared by `simulate authorization|financial|reversal`.
import { Option, type Command } from 'commander';

import { CHANNELS, PAYMENT_METHODS, PROCESSING_FLOWS } from '../../api/enums.js';

export { CHANNELS, PAYMENT_METHODS, PROCESSING_FLOWS };

export function addSimulationOptions(command: Command): Command {
  return command
    .option('--amount <amount>', 'amount in major units: 1500, 1500.00 or 1,500.00')
    .addOption(new Option('--flow <flow>', 'processing flow').choices(PROCESSING_FLOWS).default('purchase'))
    .option('--card <card-id>', 'card identifier')
    .option('--pan <pan>', 'card number (with --expiry and --account, instead of --card)')
    .option('--expiry <yymm>', 'card expiry, YYMM or YYYYMM')
    .option('--account <number>', 'account number')
    .addOption(new Option('--channel <channel>', 'channel').choices(CHANNELS))
    .addOption(new Option('--method <method>', 'payment method').choices(PAYMENT_METHODS))
    .option('--currency <code>', 'ISO 4217 numeric currency (default 566)')
    .option('--merchant <id>', 'merchant identifier')
    .option('--terminal <id>', 'terminal identifier')
    .option('--forward', "send to the program's webhook instead of the approving stub")
    .option('--original-tx <id>', 'reversal: the transaction to reverse')
    .option('--original-stan <stan>', 'reversal: STAN of the original (with --original-rrn)')
    .option('--original-rrn <rrn>', 'reversal: RRN of the original (with --original-stan)')
    .option('--date <iso>', 'transaction date-time (default now)')
    .option('--set <field=value...>', 'override a message field verbatim, e.g. --set 43="ACME STORE" (repeatable)')
    .option('--expect-approved', 'exit 5 when the response is not approved (for CI)')
    .option('--messages', 'show the full request and response messages');
}
