// Cards. The record column holds the card as the API shows it (masked PAN, cardProgram as an
// id); the clear PAN and the PIN hash live only in their own columns and never leave the store
// through a response.
import type { Card } from '../../api/schemas.js';
import type { Db, Statement } from './db.js';

export interface StoredCard {
  card: Card;
  /** The clear card number. */
  pan: string;
  /** scrypt hash of the PIN (see ../pin.ts), or null when the card has no PIN. */
  pinHash: string | null;
  /** Import key (`realId`) for imported cards. */
  realId: string | null;
}

export interface CardListQuery {
  institutionId: string;
  search?: string;
  cardId?: string;
  limit: number;
  offset: number;
}

export interface CardPageRow {
  programId: string;
  /** The card as the API shows it, JSON text, cardProgram as an id. */
  record: string;
}

interface CardRow {
  record: string;
  pan: string;
  pin_hash: string | null;
  real_id: string | null;
}

export class CardStore {
  private readonly insertCard: Statement;
  private readonly selectCard: Statement;
  private readonly selectByReference: Statement;
  private readonly selectByRealId: Statement;
  private readonly selectByPan: Statement;
  private readonly selectPanExists: Statement;
  private readonly updateCard: Statement;
  private readonly pageAll: Statement;
  private readonly countAll: Statement;
  private readonly pageSearch: Statement;
  private readonly countSearch: Statement;
  private readonly pageById: Statement;
  private readonly countById: Statement;
  private readonly pageSearchById: Statement;
  private readonly countSearchById: Statement;

  constructor(db: Db) {
    this.insertCard = db.prepare(
      `INSERT INTO cards (id, institution_id, program_id, reference_code, real_id, pan, status, pin_hash, search_text, created_at, record)
       VALUES (@id, @institutionId, @programId, @referenceCode, @realId, @pan, @status, @pinHash, @searchText, @createdAt, @record)`,
    );
    this.selectCard = db.prepare('SELECT record, pan, pin_hash, real_id FROM cards WHERE id = ? AND institution_id = ?');
    this.selectByReference = db.prepare('SELECT record, pan, pin_hash, real_id FROM cards WHERE institution_id = ? AND reference_code = ?');
    this.selectByRealId = db.prepare('SELECT record, pan, pin_hash, real_id FROM cards WHERE institution_id = ? AND real_id = ?');
    this.selectByPan = db.prepare('SELECT record, pan, pin_hash, real_id FROM cards WHERE pan = ?');
    this.selectPanExists = db.prepare('SELECT 1 AS found FROM cards WHERE pan = ?');
    this.updateCard = db.prepare(
      `UPDATE cards SET status = @status, pin_hash = @pinHash, search_text = @searchText, record = @record
       WHERE id = @id AND institution_id = @institutionId`,
    );
    // One prepared statement per filter combination keeps each query on the
    // (institution_id, created_at DESC, id DESC) index without dynamic SQL. Parameters are
    // positional in the order institution, card id, search pattern; pages come back raw
    // ([programId, record] arrays): the list endpoint is the hot path.
    const byId = ' AND id = ?';
    const search = " AND search_text LIKE ? ESCAPE '\\'";
    const page = (filters: string) =>
      db.prepare(`SELECT program_id, record FROM cards WHERE institution_id = ?${filters} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`).raw() as Statement;
    const count = (filters: string) => db.prepare(`SELECT COUNT(*) AS total FROM cards WHERE institution_id = ?${filters}`);
    this.pageAll = page('');
    this.countAll = count('');
    this.pageSearch = page(search);
    this.countSearch = count(search);
    this.pageById = page(byId);
    this.countById = count(byId);
    this.pageSearchById = page(byId + search);
    this.countSearchById = count(byId + search);
  }

  insert(stored: StoredCard): void {
    const { card } = stored;
    this.insertCard.run({
      id: card.id,
      institutionId: card.institution,
      programId: typeof card.cardProgram === 'string' ? card.cardProgram : card.cardProgram.id,
      referenceCode: card.referenceCode,
      realId: stored.realId,
      pan: stored.pan,
      status: card.status,
      pinHash: stored.pinHash,
      searchText: searchTextOf(card),
      createdAt: card.createdAt,
      record: JSON.stringify(card),
    });
  }

  /** The card of this institution, or undefined (also for another institution's card). */
  get(institutionId: string, id: string): StoredCard | undefined {
    return fromRow(this.selectCard.get(id, institutionId) as CardRow | undefined);
  }

  findByReference(institutionId: string, referenceCode: string): StoredCard | undefined {
    return fromRow(this.selectByReference.get(institutionId, referenceCode) as CardRow | undefined);
  }

  findByRealId(institutionId: string, realId: string): StoredCard | undefined {
    return fromRow(this.selectByRealId.get(institutionId, realId) as CardRow | undefined);
  }

  /** By clear card number, across institutions (the switch routes by PAN). */
  findByPan(pan: string): StoredCard | undefined {
    return fromRow(this.selectByPan.get(pan) as CardRow | undefined);
  }

  panExists(pan: string): boolean {
    return this.selectPanExists.get(pan) !== undefined;
  }

  /** Writes the card record (status, customer, expiry, pinAttempts, …) and the PIN hash. */
  update(card: Card, pinHash: string | null): void {
    this.updateCard.run({
      id: card.id,
      institutionId: card.institution,
      status: card.status,
      pinHash,
      searchText: searchTextOf(card),
      record: JSON.stringify(card),
    });
  }

  /** One page, newest first: each card's stored JSON text and program id, and the total matching. */
  list(query: CardListQuery): { rows: CardPageRow[]; total: number } {
    const hasSearch = query.search !== undefined && query.search.trim() !== '';
    const filterParams: unknown[] = [query.institutionId];
    if (query.cardId !== undefined) filterParams.push(query.cardId);
    if (hasSearch) filterParams.push(`%${escapeLike(query.search!.trim().toLowerCase())}%`);
    const [page, count] = query.cardId !== undefined
      ? (hasSearch ? [this.pageSearchById, this.countSearchById] : [this.pageById, this.countById])
      : (hasSearch ? [this.pageSearch, this.countSearch] : [this.pageAll, this.countAll]);
    const total = (count.get(...filterParams) as { total: number }).total;
    if (total === 0 || query.offset >= total) return { rows: [], total };
    const raw = page.all(...filterParams, query.limit, query.offset) as Array<[string, string]>;
    return { rows: raw.map(([programId, record]) => ({ programId, record })), total };
  }
}

function fromRow(row: CardRow | undefined): StoredCard | undefined {
  if (!row) return undefined;
  return { card: JSON.parse(row.record) as Card, pan: row.pan, pinHash: row.pin_hash, realId: row.real_id };
}

/** What free-text search looks through: ids, reference, names, contact, last four, status. */
function searchTextOf(card: Card): string {
  const c = card.customer;
  return [
    card.id, card.referenceCode, card.embossingName, card.lastFour, card.status, card.account.number,
    c.firstName, c.middleName, c.lastName, c.emailAddress, c.phoneNumber, card.cardHolderId,
  ].join('\u0001').toLowerCase();
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
