// The store on its own: durability pragmas, versioned migrations, transactions, seeding.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { openStore } from '../../src/sandbox/store/index.js';
import { schemaVersion } from '../../src/sandbox/store/db.js';
import { buildCard } from '../../src/sandbox/cards.js';
import { createInstitution, seedSandbox } from '../../src/sandbox/tenancy.js';
import { tempDir } from '../helpers/cli.js';
import { UNDO_VERSION_4 } from './helpers.js';

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
  expect(schemaVersion(first.db)).toBe(5);
  first.close();

  const second = openStore({ file });
  try {
    const rows = second.db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>;
    expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5]);
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

test('the unfiltered card total is counted as cards are written: per institution, rolled-back inserts excluded, older databases counted once', () => {
  const file = join(dir.path, 'counts.db');
  let store = openStore({ file });
  const now = new Date();
  const first = seedSandbox(store, now);
  const second = createInstitution(store, now, { name: 'Second Bank' });
  const insert = (institutionId: string, programId: string, n: number, from = 0) => {
    const program = store.cardPrograms.get(institutionId, programId)!;
    for (let i = from; i < from + n; i++) {
      const pan = `${program.panPrefix}${String(i).padStart(program.panLength - program.panPrefix.length, '0')}${institutionId.slice(-2)}`;
      const card = buildCard({
        institutionId, program, pan, referenceCode: `count-${i}`, pinEnabled: false,
        account: { currency: '566', bankCode: '044', type: 'savings', number: '0123456789' },
        customer: { firstName: 'Ada', middleName: '', lastName: 'Lovelace', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678', honorific: '', gender: '', dateOfBirth: null, address: { line1: '', line2: '', city: '', state: '', country: '', postalCode: '' } },
        embossingName: 'ADA LOVELACE', expiryDate: new Date(Date.UTC(now.getUTCFullYear() + 2, 0, 1)), status: 'active', seqNumber: '001',
        enroll2FA: false, printCard: false, now,
      });
      store.cards.insert({ card, pan, pinHash: null, realId: null });
    }
  };
  const total = (institutionId: string) => store.cards.list({ institutionId, limit: 1, offset: 0 }).total;
  try {
    store.transaction(() => insert(first.institutionId, first.cardProgramId, 3));
    store.transaction(() => insert(second.institutionId, second.cardProgramId, 2));
    expect([total(first.institutionId), total(second.institutionId)]).toEqual([3, 2]);
    expect(() => store.transaction(() => {
      store.db.exec("DELETE FROM cards WHERE reference_code = 'count-2'");
      insert(first.institutionId, first.cardProgramId, 3, 10);
      expect(total(first.institutionId)).toBe(5);
      throw new Error('boom');
    })).toThrow('boom');
    expect(total(first.institutionId)).toBe(3);
    expect(total('no-such-institution')).toBe(0);

    // A database whose cards were written before the count existed gets them counted once.
    store.db.exec(`${UNDO_VERSION_4}
      DROP TRIGGER card_counts_insert; DROP TRIGGER card_counts_delete; DROP TABLE card_counts; DELETE FROM schema_migrations WHERE version = 3`);
    store.close();
    store = openStore({ file });
    expect([total(first.institutionId), total(second.institutionId)]).toEqual([3, 2]);
  } finally {
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
      ['all', (offset) => store.cards.list({ institutionId, limit: 20, offset })],
      ['search', (offset) => store.cards.list({ institutionId, search: 'ada', limit: 20, offset })],
      ['by id', (offset) => store.cards.list({ institutionId, cardId: 'x', limit: 20, offset })],
      ['search by id', (offset) => store.cards.list({ institutionId, search: 'ada', cardId: 'x', limit: 20, offset })],
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
