// The SQLite connection of the sandbox: open (file or memory), durability pragmas, versioned
// migrations and a transaction helper. Every SQL statement of the sandbox lives in this folder.
import Database from 'libsql';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

type NativeDb = InstanceType<typeof Database>;
/** What the sandbox uses of a libsql statement. */
type NativeStatement = Omit<Statement, 'raw'> & { raw(toggle?: boolean): unknown };
/** The connection, whose statements recover from a failure (see RecoveringStatement). */
export type Db = Omit<NativeDb, 'prepare'> & { prepare(sql: string): Statement };
/** A prepared statement (positional or named parameters). */
export interface Statement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** Rows as arrays of values instead of objects. */
  raw(toggle?: boolean): Statement;
}

/**
 * libsql leaves a statement whose execution failed un-reset: a value SQLite cannot use (an
 * OFFSET past 64 bits arrives as a REAL: "datatype mismatch"), a busy database, any error of
 * sqlite3_step. Every later get() of that statement then answers the same error, whatever its
 * parameters, so one bad request would break that query for every caller until a restart. Each
 * statement of the sandbox is therefore prepared again after any failure, before the error goes
 * on: a failed request leaves nothing behind for the next one.
 */
class RecoveringStatement implements Statement {
  private native: NativeStatement;
  private rawRows = false;

  constructor(private readonly prepareNative: (sql: string) => NativeStatement, private readonly sql: string) {
    this.native = prepareNative(sql);
  }

  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint } {
    return this.attempt(() => this.native.run(...params));
  }

  get(...params: unknown[]): unknown {
    return this.attempt(() => this.native.get(...params));
  }

  all(...params: unknown[]): unknown[] {
    return this.attempt(() => this.native.all(...params));
  }

  raw(toggle = true): Statement {
    this.native.raw(toggle);
    this.rawRows = toggle;
    return this;
  }

  private attempt<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      try {
        const fresh = this.prepareNative(this.sql);
        if (this.rawRows) fresh.raw(true);
        this.native = fresh;
      } catch {
        // The connection itself is gone (closed): the original error says more.
      }
      throw error;
    }
  }
}

/**
 * Migrations in order; `version` is their index + 1. Never edit one that has shipped: add a new
 * one. Records are JSON (the API shape) beside the columns that are queried or sorted on.
 */
const MIGRATIONS: string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE institutions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    record TEXT NOT NULL
  );

  CREATE TABLE institution_users (
    id TEXT PRIMARY KEY,
    institution_id TEXT NOT NULL REFERENCES institutions(id),
    created_at TEXT NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX institution_users_by_institution ON institution_users (institution_id);

  -- Bearer tokens and API keys, stored as sha256 of the secret.
  CREATE TABLE credentials (
    secret_hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('token', 'apiKey')),
    institution_id TEXT NOT NULL REFERENCES institutions(id),
    user_id TEXT,
    application_id TEXT,
    scope TEXT NOT NULL DEFAULT '*',
    expires_at INTEGER,
    created_at TEXT NOT NULL
  );

  CREATE TABLE card_programs (
    id TEXT PRIMARY KEY,
    institution_id TEXT NOT NULL REFERENCES institutions(id),
    created_at TEXT NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX card_programs_by_institution ON card_programs (institution_id, created_at);

  CREATE TABLE cards (
    id TEXT PRIMARY KEY,
    institution_id TEXT NOT NULL REFERENCES institutions(id),
    program_id TEXT NOT NULL,
    reference_code TEXT NOT NULL,
    real_id TEXT,
    pan TEXT NOT NULL,
    status TEXT NOT NULL,
    pin_hash TEXT,
    search_text TEXT NOT NULL,
    created_at TEXT NOT NULL,
    record TEXT NOT NULL
  );
  CREATE UNIQUE INDEX cards_reference ON cards (institution_id, reference_code);
  CREATE UNIQUE INDEX cards_real_id ON cards (institution_id, real_id) WHERE real_id IS NOT NULL;
  CREATE UNIQUE INDEX cards_pan ON cards (pan);
  CREATE INDEX cards_newest_first ON cards (institution_id, created_at DESC, id DESC);

  CREATE TABLE oauth_applications (
    id TEXT PRIMARY KEY,
    institution_id TEXT NOT NULL REFERENCES institutions(id),
    client_id TEXT NOT NULL UNIQUE,
    certificate TEXT NOT NULL,
    search_text TEXT NOT NULL,
    created_at TEXT NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX oauth_applications_newest_first ON oauth_applications (institution_id, created_at DESC, id DESC);

  -- Client-assertion ids already used at the token endpoint (replay protection).
  CREATE TABLE used_assertions (
    client_id TEXT NOT NULL,
    jti TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (client_id, jti)
  );

  CREATE TABLE transactions (
    id TEXT PRIMARY KEY,
    institution_id TEXT NOT NULL REFERENCES institutions(id),
    card_id TEXT,
    stan TEXT NOT NULL,
    rrn TEXT NOT NULL,
    status TEXT NOT NULL,
    merchant_id TEXT NOT NULL,
    terminal_id TEXT NOT NULL,
    channel TEXT NOT NULL,
    amount_minor INTEGER NOT NULL,
    day TEXT NOT NULL,
    created_at TEXT NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX transactions_newest_first ON transactions (institution_id, created_at DESC, id DESC);
  CREATE INDEX transactions_by_stan_rrn ON transactions (institution_id, stan, rrn);
  CREATE INDEX transactions_daily_usage ON transactions (card_id, channel, day);
  `,
  // The switch's transaction state (its table of transitions is src/sandbox/switch/states.ts),
  // the part of the amount that approved reversals gave back, and a reversal's original. Rows
  // of version 1 get the state their status and response code say.
  `
  ALTER TABLE transactions ADD COLUMN state TEXT NOT NULL DEFAULT 'approved';
  ALTER TABLE transactions ADD COLUMN reversed_minor INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE transactions ADD COLUMN original_id TEXT;
  CREATE INDEX transactions_by_original ON transactions (original_id) WHERE original_id IS NOT NULL;
  CREATE INDEX transactions_awaiting ON transactions (created_at) WHERE state = 'awaiting';
  UPDATE transactions SET state = CASE
    WHEN status = 'failed' THEN 'declined'
    WHEN status = 'reversed' THEN 'reversed'
    WHEN json_extract(record, '$.responseCode') = '' THEN 'awaiting'
    ELSE 'approved' END;
  UPDATE transactions SET reversed_minor = amount_minor WHERE status = 'reversed';
  `,
  // How many cards each institution holds, kept in step by triggers: Get Cards' unfiltered
  // total is read here instead of counted (a count walks every index entry of the institution).
  `
  CREATE TABLE card_counts (institution_id TEXT PRIMARY KEY, cards INTEGER NOT NULL);
  INSERT INTO card_counts (institution_id, cards) SELECT institution_id, COUNT(*) FROM cards GROUP BY institution_id;
  CREATE TRIGGER card_counts_insert AFTER INSERT ON cards BEGIN
    INSERT INTO card_counts (institution_id, cards) VALUES (NEW.institution_id, 1)
      ON CONFLICT (institution_id) DO UPDATE SET cards = cards + 1;
  END;
  CREATE TRIGGER card_counts_delete AFTER DELETE ON cards BEGIN
    UPDATE card_counts SET cards = cards - 1 WHERE institution_id = OLD.institution_id;
  END;
  `,
  // The lifecycle of an original (docs/switch.md): what a completion captured and what refunds
  // took back. reversed_minor keeps its name and now counts every release of the hold
  // (reversals, a completion's remainder, an expiry); amount_minor is what was authorized
  // (the approved amount, increments included).
  `
  ALTER TABLE transactions ADD COLUMN captured_minor INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE transactions ADD COLUMN refunded_minor INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX transactions_approved_authorizations ON transactions (created_at) WHERE state = 'approved' AND original_id IS NULL;
  `,
  // The ledger's own view of a transaction (src/sandbox/switch/ledger.ts), set from what the
  // simulator planned, never from the message's text (which overrides may change): the kind of
  // message, its processing flow, and the currency its amounts are in. Existing rows get what
  // their record says.
  `
  ALTER TABLE transactions ADD COLUMN kind TEXT NOT NULL DEFAULT '';
  ALTER TABLE transactions ADD COLUMN flow TEXT NOT NULL DEFAULT '';
  ALTER TABLE transactions ADD COLUMN currency TEXT NOT NULL DEFAULT '';
  UPDATE transactions SET
    kind = COALESCE(json_extract(record, '$.messageKind'), json_extract(record, '$.messageType'), ''),
    flow = CASE substr(COALESCE(json_extract(record, '$.processingCode'), ''), 1, 2)
      WHEN '00' THEN 'purchase' WHEN '01' THEN 'cash_withdrawal' WHEN '31' THEN 'balance_inquiry' WHEN '20' THEN 'refund' ELSE '' END,
    currency = COALESCE(json_extract(record, '$.amounts.currency'), '');
  `,
];

export interface OpenOptions {
  /** Database file; ignored when `memory` is true. */
  file?: string;
  memory?: boolean;
}

/** Opens the database, sets WAL + synchronous=FULL, and applies pending migrations. */
export function openDatabase(options: OpenOptions): Db {
  const path = options.memory || !options.file ? ':memory:' : options.file;
  // The database holds the seeded credentials and the PIN private key: owner-only.
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const native = new Database(path);
  if (path !== ':memory:') chmodSync(path, 0o600);
  const prepareNative = native.prepare.bind(native) as (sql: string) => NativeStatement;
  const db: Db = Object.assign(native, { prepare: (sql: string): Statement => new RecoveringStatement(prepareNative, sql) });
  // WAL lets readers run beside the writer; FULL fsyncs the WAL on every commit, so a
  // response is only sent for a write that survives kill -9 (and power loss). A commit that
  // another durable one always follows before the answer may opt out (TransactionOptions).
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA busy_timeout = 5000');
  migrate(db);
  return db;
}

export function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as { version: number | null };
  const current = row.version ?? 0;
  for (let index = current; index < MIGRATIONS.length; index++) {
    inTransaction(db, () => {
      db.exec(MIGRATIONS[index]!);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(index + 1, new Date().toISOString());
    });
  }
}

export function schemaVersion(db: Db): number {
  const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as { version: number | null };
  return row.version ?? 0;
}

export interface TransactionOptions {
  /**
   * false: this commit does not wait for the disk (synchronous=NORMAL for it alone; SQLite
   * refuses the change inside a transaction). It survives kill -9 at once, and a power loss once
   * the WAL is next fsynced, by a durable commit or syncWal(): the WAL holds the commits in order,
   * so one fsync makes every earlier one durable. For a write that is never the last before an
   * answer.
   */
  durable?: boolean;
}

/**
 * Runs `work` in one transaction (BEGIN IMMEDIATE: take the write lock up front so two writers
 * never deadlock upgrading). Nested calls join the outer transaction.
 */
export function inTransaction<T>(db: Db, work: () => T, { durable = true }: TransactionOptions = {}): T {
  if (db.inTransaction) return work();
  if (!durable) db.exec('PRAGMA synchronous = NORMAL');
  try {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      db.exec('COMMIT');
      writeFailures.delete(db);
      return result;
    } catch (error) {
      noteWriteFailure(db, error);
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  } finally {
    if (!durable) db.exec('PRAGMA synchronous = FULL');
  }
}

/** Why the database could not be written: SQLite's code (SQLITE_FULL …) and message. */
export interface WriteFailure {
  code: string;
  message: string;
}

/** The last write each database refused, until one of its transactions commits again. */
const writeFailures = new WeakMap<Db, WriteFailure>();

/**
 * Whether an error says the database cannot be written, whatever was asked: full (the disk, or
 * max_page_count), read-only, an I/O error, a file that cannot be opened (extended codes too).
 */
export function isWriteFailure(error: unknown): error is WriteFailure {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN)/.test(code);
}

/** Remembers `error` when it is a write failure (the health route reports it). */
export function noteWriteFailure(db: Db, error: unknown): void {
  if (isWriteFailure(error)) writeFailures.set(db, { code: error.code, message: error.message });
}

/**
 * Why the database cannot be written, or undefined when it can. Nothing is written while no
 * write has failed; after one has, a probe (a page-sized row written, removed and committed
 * durably, so a full disk, a page limit and a read-only file all show) tells whether it can again.
 */
export function writeFailure(db: Db): WriteFailure | undefined {
  if (!writeFailures.has(db)) return undefined;
  try {
    inTransaction(db, () => {
      db.prepare("INSERT INTO meta (key, value) VALUES ('write-probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run('x'.repeat(8192));
      db.prepare("DELETE FROM meta WHERE key = 'write-probe'").run();
    });
  } catch {
    // Noted by inTransaction; a failure of another kind leaves the last one standing.
  }
  return writeFailures.get(db);
}

/** Makes every commit so far durable: an fsync of the WAL file (nothing to do in memory). */
export function syncWal(file: string | undefined): void {
  if (!file) return;
  const fd = openSync(`${file}-wal`, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Whether an error is SQLite's unique-constraint violation. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  return Boolean(e && (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || /UNIQUE constraint failed/.test(e.message ?? '')));
}
