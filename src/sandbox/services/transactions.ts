// Reading the transactions the switch (../switch/simulate.ts) has recorded.
import type { Transaction } from '../../api/schemas.js';
import type { SandboxDeps } from '../deps.js';
import { notFound } from '../errors.js';
import type { TransactionListQuery } from '../store/index.js';

export function transactionService({ store }: Pick<SandboxDeps, 'store'>) {
  return {
    /** One page, newest first, as the stored JSON of each transaction; `cardStatus` is the card's status now. */
    list(query: TransactionListQuery): { records: Transaction[]; total: number } {
      return store.transactions.list(query);
    },

    get(institutionId: string, id: string): Transaction {
      const transaction = store.transactions.get(institutionId, id);
      if (!transaction) throw notFound(`transaction ${id}`);
      return transaction;
    },
  };
}
