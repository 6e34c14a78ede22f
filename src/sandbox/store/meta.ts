// Key/value settings of the sandbox itself: the PIN key pair and the seeded credentials.
import type { Db, Statement } from './db.js';

export class MetaStore {
  private readonly selectValue: Statement;
  private readonly upsertValue: Statement;

  constructor(db: Db) {
    this.selectValue = db.prepare('SELECT value FROM meta WHERE key = ?');
    this.upsertValue = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  }

  get<T>(key: string): T | undefined {
    const row = this.selectValue.get(key) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  set(key: string, value: unknown): void {
    this.upsertValue.run(key, JSON.stringify(value));
  }
}
