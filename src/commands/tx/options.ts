// Filters shared by `tx list`, `tx tail` and `tx summary`.
import { Option, type Command } from 'commander';
import { CARD_STATUSES } from '../cards/options.js';

import { TRANSACTION_STATUSES } from '../../api/enums.js';

export { TRANSACTION_STATUSES };

/** What addTransactionFilters adds, as commander hands it to run(). */
export interface TransactionFilterOptions {
  merchant?: string;
  terminal?: string;
  cardStatus?: string;
  status?: string;
  since?: string;
  until?: string;
}

export function addTransactionFilters(command: Command): Command {
  return command
    .option('--merchant <id>', 'merchant identifier')
    .option('--terminal <id>', 'terminal identifier')
    .addOption(new Option('--card-status <status>', 'status of the card').choices(CARD_STATUSES))
    .addOption(new Option('--status <status>', 'transaction status').choices(TRANSACTION_STATUSES))
    .option('--since <time>', 'only transactions at or after this time (ISO date-time or a duration like 24h, 7d)')
    .option('--until <time>', 'only transactions before this time');
}
