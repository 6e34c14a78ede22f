// The sandbox store: one object holding the table modules over one connection.
import { CardProgramStore } from './card-programs.js';
import { CardStore } from './cards.js';
import { inTransaction, openDatabase, syncWal, type Db, type OpenOptions, type TransactionOptions } from './db.js';
import { CredentialStore, InstitutionStore } from './institutions.js';
import { MetaStore } from './meta.js';
import { OAuthApplicationStore } from './oauth-applications.js';
import { TransactionStore } from './transactions.js';

export interface Store {
  db: Db;
  meta: MetaStore;
  institutions: InstitutionStore;
  credentials: CredentialStore;
  cardPrograms: CardProgramStore;
  cards: CardStore;
  oauthApplications: OAuthApplicationStore;
  transactions: TransactionStore;
  /** Runs `work` in one SQLite transaction; every mutation goes through here. */
  transaction<T>(work: () => T, options?: TransactionOptions): T;
  /** Makes every commit so far durable (after commits made with `durable: false`). */
  sync(): void;
  close(): void;
}

export function openStore(options: OpenOptions): Store {
  const db = openDatabase(options);
  return {
    db,
    meta: new MetaStore(db),
    institutions: new InstitutionStore(db),
    credentials: new CredentialStore(db),
    cardPrograms: new CardProgramStore(db),
    cards: new CardStore(db),
    oauthApplications: new OAuthApplicationStore(db),
    transactions: new TransactionStore(db),
    transaction: (work, options) => inTransaction(db, work, options),
    sync: () => syncWal(options.memory || !options.file ? undefined : options.file),
    close: () => db.close(),
  };
}

export type { StoredCard, CardListQuery } from './cards.js';
export type { TransactionIndex, TransactionListQuery, DailyUsage } from './transactions.js';
export type { StoredApplication } from './oauth-applications.js';
export type { CredentialRow, CredentialKind } from './institutions.js';
