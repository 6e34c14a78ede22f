// Flags shared by `simulate authorization|financial|reversal`.
import { defineFlags } from '../../core/flags.js';
import { CHANNELS, PAYMENT_METHODS, PROCESSING_FLOWS } from '../../core/enums.js';

export { CHANNELS, PAYMENT_METHODS, PROCESSING_FLOWS };

export const SIMULATION_FLAGS = defineFlags({
  amount: { type: 'string', value: 'amount', description: 'amount in major units: 1500, 1500.00 or 1,500.00' },
  flow: { type: 'string', value: 'flow', choices: PROCESSING_FLOWS, default: 'purchase', description: 'processing flow' },
  card: { type: 'string', value: 'card-id', description: 'card identifier' },
  pan: { type: 'string', value: 'pan', pan: true, description: 'card number (with --expiry and --account, instead of --card)' },
  expiry: { type: 'string', value: 'yymm', description: 'card expiry, YYMM or YYYYMM' },
  account: { type: 'string', value: 'number', description: 'account number' },
  channel: { type: 'string', value: 'channel', choices: CHANNELS, description: 'channel' },
  method: { type: 'string', value: 'method', choices: PAYMENT_METHODS, description: 'payment method' },
  currency: { type: 'string', value: 'code', description: 'ISO 4217 numeric currency (default 566)' },
  merchant: { type: 'string', value: 'id', description: 'merchant identifier' },
  terminal: { type: 'string', value: 'id', description: 'terminal identifier' },
  forward: { type: 'boolean', description: "send to the program's webhook instead of the approving stub" },
  originalTx: { type: 'string', value: 'id', description: 'reversal: the transaction to reverse' },
  originalStan: { type: 'string', value: 'stan', description: 'reversal: STAN of the original (with --original-rrn)' },
  originalRrn: { type: 'string', value: 'rrn', description: 'reversal: RRN of the original (with --original-stan)' },
  date: { type: 'string', value: 'iso', description: 'the date-time the message carries (default now); daily limits count on the switch clock\'s day whatever it is' },
  set: { type: 'list', value: 'field=value', repeat: 'variadic', description: 'override a message field verbatim, e.g. --set 43="ACME STORE" (repeatable)' },
  expectApproved: { type: 'boolean', description: 'exit 5 unless the response code approves (00, 10 partial, 11 VIP…; for CI)' },
  messages: { type: 'boolean', description: 'show the full request and response messages' },
});
