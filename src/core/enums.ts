// The API's closed value lists, in one place and with no imports: the sandbox's TypeBox schemas
// and the CLI's flag choices both read them, and the CLI never loads TypeBox to get them.
export const CARD_STATUSES = ['active', 'inactive', 'suspended', 'expired'] as const;
export const TRANSACTION_STATUSES = ['pending', 'completed', 'failed', 'reversed'] as const;
export const GRANT_TYPES = ['client_credentials', 'authorization_code', 'refresh_token'] as const;
export const INTENTS = ['authorization', 'financial', 'reversal'] as const;
export const PROCESSING_FLOWS = ['purchase', 'cash_withdrawal', 'balance_inquiry', 'refund'] as const;
export const CHANNELS = ['pos', 'atm', 'web'] as const;
export const PAYMENT_METHODS = ['chip', 'magstripe', 'contactless', 'manual', 'ecom', 'moto'] as const;
