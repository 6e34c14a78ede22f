// The sandbox store: one object holding the table modules over one connection.
import { CardProgramStore } from './card-programs.js';
import { CardStore } from './cards.js';
import { inTransaction, openDatabase, type Db, type OpenOptions } from './db.js';
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
  transaction<T>(work: () => T): T;
  /**
   * A value that changes whenever a row is written through this connection or another one
   * commits; undefined inside a transaction, whose writes may yet be rolled back. A cache of
   * query results is current while the token it was filled under is the token now.
   */
  changeToken(): string | undefined;
  close(): void;
}

export function openStore(options: OpenOptions): Store {
  const db = openDatabase(options);
  // total_changes() counts the rows this connection has written (rolled-back ones too: a
  // spurious change, never a missed one); data_version moves when another connection commits,
  // which only a database file can have (reading it costs more than the rest of the query).
  const changes = db.prepare(db.memory ? 'SELECT total_changes()' : 'SELECT total_changes(), data_version FROM pragma_data_version');
  changes.raw(true);
  return {
    db,
    meta: new MetaStore(db),
    institutions: new InstitutionStore(db),
    credentials: new CredentialStore(db),
    cardPrograms: new CardProgramStore(db),
    cards: new CardStore(db),
    oauthApplications: new OAuthApplicationStore(db),
    transactions: new TransactionStore(db),
    transaction: (work) => inTransaction(db, work),
    changeToken: () => (db.inTransaction ? undefined : (changes.get() as number[]).join(':')),
    close: () => db.close(),
  };
}

export type { StoredCard, CardListQuery, CardPage, ProgramRef } from './cards.js';
export type { TransactionIndex, TransactionListQuery, DailyUsage } from './transactions.js';
export type { StoredApplication } from './oauth-applications.js';
export type { CredentialRow, CredentialKind } from './institutions.js';
