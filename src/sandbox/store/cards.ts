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
  status?: string;
  limit: number;
  offset: number;
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
  private readonly selectOfProgram: Statement;
  private readonly updateCard: Statement;
  /** By filter combination (see the constructor): the page, and the number of cards matching. */
  private readonly pages: Statement[];
  private readonly counts: Statement[];

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
    this.selectOfProgram = db.prepare('SELECT 1 AS found FROM cards WHERE program_id = ? LIMIT 1');
    this.updateCard = db.prepare(
      `UPDATE cards SET status = @status, pin_hash = @pinHash, search_text = @searchText, record = @record
       WHERE id = @id AND institution_id = @institutionId`,
    );
    // One page and one count statement per filter combination. Pages walk the
    // (institution_id, created_at DESC, id DESC) index, so the first page costs the same at any
    // size; the unfiltered total is the institution's row of card_counts (kept by triggers),
    // since counting 100,000 index entries takes milliseconds. Parameters: ?1 institution,
    // ?2 card id, ?3 search pattern, ?4 limit, ?5 offset, ?6 status. Filter i has search when
    // bit 0 of i is set, the card id with bit 1, the status with bit 2.
    const byId = ' AND id = ?2';
    const search = " AND search_text LIKE ?3 ESCAPE '\\'";
    const byStatus = ' AND status = ?6';
    const filters = Array.from({ length: 8 }, (_, i) => `${i & 2 ? byId : ''}${i & 1 ? search : ''}${i & 4 ? byStatus : ''}`);
    this.pages = filters.map((filter) => db.prepare(
      `SELECT record FROM cards WHERE institution_id = ?1${filter} ORDER BY created_at DESC, id DESC LIMIT ?4 OFFSET ?5`,
    ));
    this.counts = filters.map((filter) => db.prepare(filter === ''
      ? 'SELECT COALESCE((SELECT cards FROM card_counts WHERE institution_id = ?1), 0) AS total'
      : `SELECT COUNT(*) AS total FROM cards WHERE institution_id = ?1${filter}`));
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

  /** Whether the program has issued any card (created or imported). */
  programHasCards(programId: string): boolean {
    return this.selectOfProgram.get(programId) !== undefined;
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

  /** One page of the institution's cards, newest first, and how many match the filters. */
  list(query: CardListQuery): { cards: Card[]; total: number } {
    const hasSearch = query.search !== undefined && query.search.trim() !== '';
    // Index into the filter combinations: search is bit 0, cardId bit 1, status bit 2.
    const filter = (hasSearch ? 1 : 0) + (query.cardId !== undefined ? 2 : 0) + (query.status !== undefined ? 4 : 0);
    const params = [query.institutionId, query.cardId ?? null, hasSearch ? `%${escapeLike(query.search!.trim().toLowerCase())}%` : null];
    // Both run in the same synchronous call, so no write of this sandbox falls between them.
    const rows = this.pages[filter]!.all(...params, query.limit, query.offset, query.status ?? null) as Array<{ record: string }>;
    const { total } = this.counts[filter]!.get(...params, null, null, query.status ?? null) as { total: number };
    return { cards: rows.map((row) => JSON.parse(row.record) as Card), total };
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
