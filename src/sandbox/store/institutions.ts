// Institutions, their users, and the credentials (bearer tokens, API keys) that act for them.
import type { Institution, InstitutionUser } from '../../api/schemas.js';
import type { Db, Statement } from './db.js';

export type CredentialKind = 'token' | 'apiKey';

export interface CredentialRow {
  secretHash: string;
  kind: CredentialKind;
  institutionId: string;
  userId: string | null;
  applicationId: string | null;
  scope: string;
  /** Unix milliseconds, or null for credentials that never expire. */
  expiresAt: number | null;
}

export class InstitutionStore {
  private readonly insertInstitution: Statement;
  private readonly selectInstitution: Statement;
  private readonly updateInstitution: Statement;
  private readonly insertUser: Statement;
  private readonly selectUser: Statement;
  private readonly updateUserRecord: Statement;

  constructor(db: Db) {
    this.insertInstitution = db.prepare('INSERT INTO institutions (id, created_at, record) VALUES (?, ?, ?)');
    this.selectInstitution = db.prepare('SELECT record FROM institutions WHERE id = ?');
    this.updateInstitution = db.prepare('UPDATE institutions SET record = ? WHERE id = ?');
    this.insertUser = db.prepare('INSERT INTO institution_users (id, institution_id, created_at, record) VALUES (?, ?, ?, ?)');
    this.selectUser = db.prepare('SELECT record FROM institution_users WHERE id = ? AND institution_id = ?');
    this.updateUserRecord = db.prepare('UPDATE institution_users SET record = ? WHERE id = ? AND institution_id = ?');
  }

  insert(institution: Institution): void {
    this.insertInstitution.run(institution.id, institution.createdAt, JSON.stringify(institution));
  }

  get(id: string): Institution | undefined {
    const row = this.selectInstitution.get(id) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as Institution) : undefined;
  }

  update(institution: Institution): void {
    this.updateInstitution.run(JSON.stringify(institution), institution.id);
  }

  insertUserRecord(user: InstitutionUser): void {
    this.insertUser.run(user.id, user.institution, user.createdAt, JSON.stringify(user));
  }

  /** A user of the institution, or undefined (also when it belongs to another institution). */
  getUser(institutionId: string, userId: string): InstitutionUser | undefined {
    const row = this.selectUser.get(userId, institutionId) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as InstitutionUser) : undefined;
  }

  updateUser(user: InstitutionUser): void {
    this.updateUserRecord.run(JSON.stringify(user), user.id, user.institution);
  }
}

export class CredentialStore {
  /**
   * Credentials found so far, by hash. A credential row never changes after it is written
   * (expiry is checked on every use, and only expired rows are ever deleted), so a hit is as
   * good as a read, and every authenticated request saves a query.
   */
  private readonly found = new Map<string, CredentialRow>();
  private readonly insertCredential: Statement;
  private readonly selectByHash: Statement;
  private readonly deleteExpired: Statement;

  constructor(db: Db) {
    this.insertCredential = db.prepare(
      `INSERT INTO credentials (secret_hash, kind, institution_id, user_id, application_id, scope, expires_at, created_at)
       VALUES (@secretHash, @kind, @institutionId, @userId, @applicationId, @scope, @expiresAt, @createdAt)`,
    );
    this.selectByHash = db.prepare(
      `SELECT secret_hash AS secretHash, kind, institution_id AS institutionId, user_id AS userId,
              application_id AS applicationId, scope, expires_at AS expiresAt
       FROM credentials WHERE secret_hash = ?`,
    );
    this.deleteExpired = db.prepare('DELETE FROM credentials WHERE expires_at IS NOT NULL AND expires_at < ?');
  }

  insert(credential: CredentialRow): void {
    this.insertCredential.run({ ...credential, createdAt: new Date().toISOString() });
  }

  /** The credential stored under this sha256, if any (the caller compares in constant time). */
  findByHash(secretHash: string): CredentialRow | undefined {
    const cached = this.found.get(secretHash);
    if (cached) return cached;
    const row = this.selectByHash.get(secretHash) as (CredentialRow & { _metadata?: unknown }) | undefined;
    if (!row) return undefined;
    const { _metadata, ...credential } = row;
    if (this.found.size >= 10_000) this.found.clear();
    this.found.set(secretHash, credential);
    return credential;
  }

  removeExpired(nowMs: number): void {
    this.deleteExpired.run(nowMs);
    for (const [hash, credential] of this.found) {
      if (credential.expiresAt !== null && credential.expiresAt < nowMs) this.found.delete(hash);
    }
  }
}
