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
  /**
   * The number of cards matching the filters, when the caller already has it (counted under the
   * same store.changeToken()): the page is then read without counting them again.
   */
  total?: number;
}

export interface CardPage {
  total: number;
  /**
   * The page's cards as stored (the API's JSON, cardProgram as an id), comma-separated, as
   * UTF-8 bytes: they go out as they are, so they are never decoded into a string.
   */
  records: Buffer;
  /** Per card, in page order: its program reference (its only one: see PROGRAM_REFERENCE). */
  programRefs: ProgramRef[];
}

/** Where a card record of a page says `"cardProgram":"<id>"`: bytes at..end of the records. */
export interface ProgramRef {
  programId: string;
  at: number;
  end: number;
}

/**
 * What every card record holds in place of its program object, as JSON.stringify spells it.
 * The first match in a record is the reference: inside a string value the quotes would be
 * escaped, and no byte of a multi-byte UTF-8 character is ASCII.
 */
const PROGRAM_REFERENCE = Buffer.from('"cardProgram":"');
const QUOTE = 0x22;

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
  /** Page statements by filter combination (see pageStatement()), with and without the count. */
  private readonly pages: Record<'counted' | 'uncounted', Statement[]>;

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
    // One statement per filter combination, each answering a whole page in one row: the
    // total, the page's records joined into one JSON text, and the length of each record in
    // bytes, so that each program reference is found near the start of its record instead of
    // by searching 30 KB of JSON. libsql costs a few microseconds per row crossing into
    // JavaScript, so one row instead of twenty is most of the list endpoint's speed.
    // group_concat visits the rows in the subquery's order (a LIMITed subquery under an
    // aggregate is never flattened), the same order for both aggregates; an ORDER BY inside
    // group_concat would say the same but re-sorts, at four times the cost. The records come
    // back as a BLOB (the same bytes as the TEXT), which libsql copies into a Buffer: decoding
    // them into a string only to encode them again for the socket cost more than the query.
    // Every variant stays on the (institution_id, created_at DESC, id DESC) index.
    // Parameters: ?1 institution, ?2 card id, ?3 search pattern, ?4 limit, ?5 offset. The
    // uncounted variants answer total as NULL (the caller knows it).
    const page = (filters: string, counted: boolean) => {
      const where = `institution_id = ?1${filters}`;
      return db.prepare(`SELECT
          ${counted ? `(SELECT COUNT(*) FROM cards WHERE ${where})` : 'NULL'} AS total,
          CAST(group_concat(record, ',') AS BLOB) AS records,
          group_concat(octet_length(record)) AS lengths
        FROM (SELECT record FROM cards WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ?4 OFFSET ?5)`);
    };
    const byId = ' AND id = ?2';
    const search = " AND search_text LIKE ?3 ESCAPE '\\'";
    const filters = ['', search, byId, byId + search];
    this.pages = {
      counted: filters.map((where) => page(where, true)),
      uncounted: filters.map((where) => page(where, false)),
    };
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

  /** One page, newest first, as JSON bytes ready to send, with the programs it refers to. */
  listPage(query: CardListQuery): CardPage {
    const hasSearch = query.search !== undefined && query.search.trim() !== '';
    // Index into `filters` above: search is bit 0, cardId bit 1.
    const filter = (hasSearch ? 1 : 0) + (query.cardId !== undefined ? 2 : 0);
    const statement = this.pages[query.total === undefined ? 'counted' : 'uncounted'][filter]!;
    const pattern = hasSearch ? `%${escapeLike(query.search!.trim().toLowerCase())}%` : null;
    const row = statement.get(query.institutionId, query.cardId ?? null, pattern, query.limit, query.offset) as {
      total: number | null; records: Buffer | null; lengths: string | null;
    };
    const records = row.records ?? Buffer.alloc(0);
    const programRefs: ProgramRef[] = [];
    let start = 0;
    for (const length of row.lengths ? row.lengths.split(',') : []) {
      const end = start + Number(length);
      const at = records.indexOf(PROGRAM_REFERENCE, start);
      if (at !== -1 && at < end) {
        const idStart = at + PROGRAM_REFERENCE.length;
        const idEnd = records.indexOf(QUOTE, idStart);
        programRefs.push({ programId: records.toString('latin1', idStart, idEnd), at, end: idEnd + 1 });
      }
      start = end + 1; // and the comma
    }
    return { total: query.total ?? row.total!, records, programRefs };
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
