// Card programs: the templates cards are issued from (PAN range, expiry, channel limits, webhook).
import type { CardProgram } from '../../api/schemas.js';
import type { Db, Statement } from './db.js';

export class CardProgramStore {
  private readonly insertProgram: Statement;
  private readonly selectProgram: Statement;
  private readonly selectByInstitution: Statement;
  private readonly updateProgram: Statement;
  private readonly selectRangeHolder: Statement;

  constructor(db: Db) {
    this.insertProgram = db.prepare('INSERT INTO card_programs (id, institution_id, created_at, record) VALUES (?, ?, ?, ?)');
    this.selectProgram = db.prepare('SELECT record FROM card_programs WHERE id = ? AND institution_id = ?');
    this.selectByInstitution = db.prepare('SELECT record FROM card_programs WHERE institution_id = ? ORDER BY created_at, id');
    this.updateProgram = db.prepare('UPDATE card_programs SET record = ? WHERE id = ? AND institution_id = ?');
    // Two ranges of the same length overlap when one prefix begins with the other.
    this.selectRangeHolder = db.prepare(
      `SELECT 1 AS held FROM card_programs
       WHERE institution_id != ?1 AND json_extract(record, '$.panLength') = ?2
         AND (substr(?3, 1, length(json_extract(record, '$.panPrefix'))) = json_extract(record, '$.panPrefix')
              OR substr(json_extract(record, '$.panPrefix'), 1, length(?3)) = ?3)
       LIMIT 1`,
    );
  }

  insert(program: CardProgram): void {
    this.insertProgram.run(program.id, program.institution, program.createdAt, JSON.stringify(program));
  }

  /** The program of this institution, or undefined (also for another institution's program). */
  get(institutionId: string, id: string): CardProgram | undefined {
    const row = this.selectProgram.get(id, institutionId) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as CardProgram) : undefined;
  }

  listByInstitution(institutionId: string): CardProgram[] {
    return (this.selectByInstitution.all(institutionId) as Array<{ record: string }>).map((row) => JSON.parse(row.record) as CardProgram);
  }

  /**
   * Whether a program of an institution other than `institutionId` has card numbers of this
   * length under this prefix (pass '' to ask about every institution).
   */
  rangeHeldByOthers(institutionId: string, panPrefix: string, panLength: number): boolean {
    return this.selectRangeHolder.get(institutionId, panLength, panPrefix) !== undefined;
  }

  update(program: CardProgram): void {
    this.updateProgram.run(JSON.stringify(program), program.id, program.institution);
  }
}
