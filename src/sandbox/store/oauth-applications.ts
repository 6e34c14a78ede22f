// OAuth applications and the client assertions already used at the token endpoint.
import type { OAuthApplication } from '../../api/schemas.js';
import type { Db, Statement } from './db.js';

export interface StoredApplication {
  application: OAuthApplication;
  /** The registered PEM certificate (client assertions are checked against its key). */
  certificate: string;
}

export class OAuthApplicationStore {
  private readonly insertApplication: Statement;
  private readonly selectByIdOrClientId: Statement;
  private readonly selectByClientId: Statement;
  private readonly updateApplication: Statement;
  private readonly pageAll: Statement;
  private readonly countAll: Statement;
  private readonly pageSearch: Statement;
  private readonly countSearch: Statement;
  private readonly insertAssertion: Statement;
  private readonly deleteExpiredAssertions: Statement;

  constructor(db: Db) {
    this.insertApplication = db.prepare(
      `INSERT INTO oauth_applications (id, institution_id, client_id, certificate, search_text, created_at, record)
       VALUES (@id, @institutionId, @clientId, @certificate, @searchText, @createdAt, @record)`,
    );
    this.selectByIdOrClientId = db.prepare(
      'SELECT record, certificate FROM oauth_applications WHERE institution_id = @institutionId AND (id = @id OR client_id = @id)',
    );
    this.selectByClientId = db.prepare('SELECT record, certificate FROM oauth_applications WHERE client_id = ?');
    this.updateApplication = db.prepare(
      'UPDATE oauth_applications SET search_text = @searchText, record = @record WHERE id = @id AND institution_id = @institutionId',
    );
    const order = 'ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset';
    this.pageAll = db.prepare(`SELECT record FROM oauth_applications WHERE institution_id = @institutionId ${order}`);
    this.countAll = db.prepare('SELECT COUNT(*) AS total FROM oauth_applications WHERE institution_id = @institutionId');
    const search = "search_text LIKE @pattern ESCAPE '\\'";
    this.pageSearch = db.prepare(`SELECT record FROM oauth_applications WHERE institution_id = @institutionId AND ${search} ${order}`);
    this.countSearch = db.prepare(`SELECT COUNT(*) AS total FROM oauth_applications WHERE institution_id = @institutionId AND ${search}`);
    this.insertAssertion = db.prepare('INSERT OR IGNORE INTO used_assertions (client_id, jti, expires_at) VALUES (?, ?, ?)');
    this.deleteExpiredAssertions = db.prepare('DELETE FROM used_assertions WHERE expires_at < ?');
  }

  insert(stored: StoredApplication): void {
    const { application } = stored;
    this.insertApplication.run({
      id: application.id,
      institutionId: institutionIdOf(application),
      clientId: application.institutionId,
      certificate: stored.certificate,
      searchText: searchTextOf(application),
      createdAt: application.createdAt,
      record: JSON.stringify(application),
    });
  }

  /** By record id or client id (`institutionId`), within the institution. */
  get(institutionId: string, idOrClientId: string): StoredApplication | undefined {
    const row = this.selectByIdOrClientId.get({ institutionId, id: idOrClientId }) as { record: string; certificate: string } | undefined;
    return row ? { application: JSON.parse(row.record) as OAuthApplication, certificate: row.certificate } : undefined;
  }

  /** By client id across institutions (the token endpoint knows no institution yet). */
  findByClientId(clientId: string): StoredApplication | undefined {
    const row = this.selectByClientId.get(clientId) as { record: string; certificate: string } | undefined;
    return row ? { application: JSON.parse(row.record) as OAuthApplication, certificate: row.certificate } : undefined;
  }

  update(application: OAuthApplication): void {
    this.updateApplication.run({
      id: application.id,
      institutionId: institutionIdOf(application),
      searchText: searchTextOf(application),
      record: JSON.stringify(application),
    });
  }

  list(query: { institutionId: string; search?: string; limit: number; offset: number }): { applications: OAuthApplication[]; total: number } {
    const params: Record<string, unknown> = { institutionId: query.institutionId };
    const hasSearch = query.search !== undefined && query.search.trim() !== '';
    if (hasSearch) params.pattern = `%${query.search!.trim().toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    const [page, count] = hasSearch ? [this.pageSearch, this.countSearch] : [this.pageAll, this.countAll];
    const total = (count.get(params) as { total: number }).total;
    if (total === 0) return { applications: [], total };
    const rows = page.all({ ...params, limit: query.limit, offset: query.offset }) as Array<{ record: string }>;
    return { applications: rows.map((row) => JSON.parse(row.record) as OAuthApplication), total };
  }

  /** Records a client assertion's jti; false when it was used before (a replay). */
  useAssertion(clientId: string, jti: string, expiresAtMs: number, nowMs: number): boolean {
    this.deleteExpiredAssertions.run(nowMs);
    return this.insertAssertion.run(clientId, jti, expiresAtMs).changes === 1;
  }
}

function institutionIdOf(application: OAuthApplication): string {
  return typeof application.institution === 'string' ? application.institution : application.institution.id;
}

function searchTextOf(application: OAuthApplication): string {
  return [application.id, application.name, application.description, application.institutionId, application.subject, application.grantType]
    .join('\u0001').toLowerCase();
}
