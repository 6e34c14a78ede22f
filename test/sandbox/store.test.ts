// The store on its own: durability pragmas, versioned migrations, transactions, seeding.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { openStore } from '../../src/sandbox/store/index.js';
import { schemaVersion } from '../../src/sandbox/store/db.js';
import { seedSandbox } from '../../src/sandbox/tenancy.js';
import { tempDir } from '../helpers/cli.js';

const dir = tempDir('cardctl-store-');
afterAll(() => dir.remove());

test('a file database runs in WAL mode with synchronous=FULL', () => {
  const store = openStore({ file: join(dir.path, 'pragmas.db') });
  try {
    expect((store.db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal');
    expect((store.db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous).toBe(2);
    // It holds the seeded credentials and the PIN private key.
    expect(statSync(join(dir.path, 'pragmas.db')).mode & 0o777).toBe(0o600);
  } finally {
    store.close();
  }
});

test('migrations are recorded and applied once; seeding is idempotent across reopenings', () => {
  const file = join(dir.path, 'nested', 'seed.db');
  const first = openStore({ file });
  const seeded = seedSandbox(first, new Date());
  expect(schemaVersion(first.db)).toBe(2);
  first.close();

  const second = openStore({ file });
  try {
    const rows = second.db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>;
    expect(rows.map((r) => r.version)).toEqual([1, 2]);
    expect(seedSandbox(second, new Date())).toEqual(seeded);
    expect(second.cardPrograms.listByInstitution(seeded.institutionId)).toHaveLength(1);
    // A webhook URL given on a later start updates the seeded program.
    seedSandbox(second, new Date(), { webhookUrl: 'http://127.0.0.1:9/hook' });
    expect(second.cardPrograms.get(seeded.institutionId, seeded.cardProgramId)!.webHookConfig.url).toBe('http://127.0.0.1:9/hook');
  } finally {
    second.close();
  }
});

test('a transaction that throws leaves nothing behind; nested calls join the outer one', () => {
  const store = openStore({ memory: true });
  try {
    expect(() => store.transaction(() => {
      seedSandbox(store, new Date());
      throw new Error('boom');
    })).toThrow('boom');
    expect(store.meta.get('seed')).toBeUndefined();
    expect((store.db.prepare('SELECT COUNT(*) AS n FROM institutions').get() as { n: number }).n).toBe(0);
    expect(store.db.inTransaction).toBe(false);
  } finally {
    store.close();
  }
});

test('the change token moves with every row written, by this connection or another, and is unset inside a transaction', () => {
  const file = join(dir.path, 'changes.db');
  const store = openStore({ file });
  const other = openStore({ file });
  try {
    const seeded = seedSandbox(store, new Date());
    const token = store.changeToken();
    expect(token).toBeDefined();
    expect(store.changeToken()).toBe(token);

    store.meta.set('probe', 1);
    const afterOwn = store.changeToken();
    expect(afterOwn).not.toBe(token);

    other.meta.set('probe', 2);
    const afterOther = store.changeToken();
    expect(afterOther).not.toBe(afterOwn);

    // Inside a transaction its writes may still be rolled back: no token to cache under.
    store.transaction(() => {
      store.meta.set('probe', 3);
      expect(store.changeToken()).toBeUndefined();
    });
    expect(store.changeToken()).not.toBe(afterOther);

    // A write that is rolled back still moves it (a spurious change, never a missed one).
    const beforeRollback = store.changeToken();
    expect(() => store.transaction(() => {
      store.cardPrograms.update({ ...store.cardPrograms.get(seeded.institutionId, seeded.cardProgramId)!, name: 'gone' });
      throw new Error('boom');
    })).toThrow('boom');
    expect(store.changeToken()).not.toBe(beforeRollback);
  } finally {
    other.close();
    store.close();
  }
});

test('a statement that fails answers its next call: no query is left broken by one bad request', () => {
  const store = openStore({ memory: true });
  try {
    const { institutionId } = seedSandbox(store, new Date());
    // An OFFSET past 64 bits reaches SQLite as a REAL ("datatype mismatch"): each list query
    // fails once with it, then answers ordinary parameters as if it had never been asked.
    const huge = 2 ** 64;
    const lists: Array<[string, (offset: number) => unknown]> = [
      ['counted', (offset) => store.cards.listPage({ institutionId, limit: 20, offset })],
      ['uncounted', (offset) => store.cards.listPage({ institutionId, limit: 20, offset, total: 0 })],
      ['search', (offset) => store.cards.listPage({ institutionId, search: 'ada', limit: 20, offset })],
      ['by id', (offset) => store.cards.listPage({ institutionId, cardId: 'x', limit: 20, offset })],
    ];
    for (const [name, list] of lists) {
      expect(() => list(huge), name).toThrow(/datatype mismatch/);
      expect(list(0), name).toMatchObject({ total: 0 });
      expect(list(0), name).toMatchObject({ total: 0 });
    }
    const failing = store.db.prepare('SELECT 1 AS one LIMIT 1 OFFSET ?');
    expect(() => failing.get(huge)).toThrow(/datatype mismatch/);
    expect(failing.get(0)).toMatchObject({ one: 1 });
    expect(() => failing.all(1.5)).toThrow(/datatype mismatch/);
    expect(failing.all(0)).toMatchObject([{ one: 1 }]);
    // Raw mode survives the recovery.
    const raw = store.db.prepare('SELECT 1 AS one LIMIT 1 OFFSET ?').raw(true);
    expect(() => raw.get(huge)).toThrow(/datatype mismatch/);
    expect(raw.get(0)).toEqual([1]);
  } finally {
    store.close();
  }
});
