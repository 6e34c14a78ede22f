// A transaction's lifecycle as the ledger sees it (GET /sandbox/transactions/{id}/lifecycle).
import type { Lifecycle } from '../../api/schemas.js';
import { currencyInfo, minorToMajor } from '../../iso8583/amount.js';
import { DomainError } from '../errors.js';
import type { StoredTransaction } from '../store/transactions.js';
import * as ledger from './ledger.js';
import type { SwitchStore } from './store-port.js';

/**
 * The lifecycle of a transaction: its original and every linked message in order, with the
 * amounts (major units) authorized, held, captured, released and refunded.
 */
export function lifecycleOf(store: SwitchStore, institutionId: string, id: string): Lifecycle {
  const named = store.get(institutionId, id);
  if (!named) throw new DomainError('not-found', `transaction ${id} not found`);
  const original = named.originalId ? store.get(institutionId, named.originalId) ?? named : named;
  const digits = currencyInfo(original.currency)?.digits ?? 2;
  const major = (minor: number) => minorToMajor(Math.max(0, minor), digits);
  const linked = store.linked(institutionId, original.record.id);
  const balances = ledger.balancesOf(original, linked);
  const entry = (s: StoredTransaction) => ({
    transactionId: s.record.id,
    mti: s.record.mti,
    messageKind: s.record.messageKind ?? (s.kind || s.record.mti),
    amount: s.record.amount,
    responseCode: s.record.responseCode,
    transactionStatus: s.record.transactionStatus,
    createdAt: s.record.createdAt,
  });
  return {
    originalTransactionId: original.record.id,
    transactionStatus: original.record.transactionStatus,
    currency: original.currency,
    amounts: {
      requested: original.record.requestedAmount ?? original.record.amount,
      authorized: major(balances.authorized),
      held: major(balances.held),
      captured: major(balances.captured),
      released: major(balances.released),
      refunded: major(balances.refunded),
    },
    messages: [original, ...linked].map(entry),
  };
}
