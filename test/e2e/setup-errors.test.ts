// A set-up mistake (a config or data directory that is a file or unreadable, a corrupt config, a
// bad PIN key file, a --db that is not a SQLite file) is exit 2 with what to fix: never exit 1
// "this is a bug in cardctl", never a stack trace.
import { execa } from 'execa';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, isolatedDirs, tempDir } from '../helpers/cli.js';
import { envelope, startTestServer, type TestServer } from '../helpers/http-server.js';

const dir = tempDir();
const path = (...parts: string[]) => join(dir.path, ...parts);
const root = process.getuid?.() === 0;
let server: TestServer;

beforeAll(async () => {
  writeFileSync(path('a-file'), 'not a directory\n');
  writeFileSync(path('cards.csv'), 'realId,firstName\nR1,Ada\n');
  mkdirSync(path('a-dir'));
  mkdirSync(path('corrupt'));
  writeFileSync(path('corrupt', 'config.json'), '{"profiles": {');
  mkdirSync(path('config-is-dir', 'config.json'), { recursive: true });
  writeFileSync(path('fake.db'), Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(200, 7)]));
  server = await startTestServer((_req, res) => envelope(res, { id: 'x1' }));
});
afterAll(async () => {
  await server.close();
  dir.remove();
});

function expectSetupError(result: { exitCode?: number; stderr: unknown; stdout: unknown }, what: RegExp) {
  const stderr = String(result.stderr);
  expect(result.exitCode, stderr).toBe(2);
  expect(stderr).toMatch(what);
  expect(stderr).not.toMatch(/bug in cardctl|unexpected error/);
  expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
  expect(String(result.stdout)).toBe('');
}

const login = ['login', '--base-url', 'http://127.0.0.1:9', '--token-stdin'];

describe('config directory and file', () => {
  it.each([
    ['/dev/null', ['profile', 'set', 'baseUrl', 'https://api.example.com'], /config directory \/dev\/null is not a directory/],
    ['a regular file', ['profile', 'list'], /config directory .*a-file is not a directory/],
    ['a path through a file', login, /a-file\/sub: a part of the path is a file, not a directory \(ENOTDIR\)/],
  ])('CARDCTL_CONFIG_DIR is %s → exit 2 naming CARDCTL_CONFIG_DIR', async (name, argv, what) => {
    const config = name === '/dev/null' ? '/dev/null' : name === 'a regular file' ? path('a-file') : path('a-file', 'sub');
    const result = await cardctl(argv, { configDir: dir.path, env: { CARDCTL_CONFIG_DIR: config }, input: 'tok_setup_123456\n' });
    expectSetupError(result, what);
    expect(result.stderr).toMatch(/hint: CARDCTL_CONFIG_DIR is /);
  });

  it('config.json that is not JSON → exit 2', async () => {
    expectSetupError(await cardctl(['profile', 'list'], { configDir: path('corrupt') }), /config file .* is not valid JSON/);
  });

  it('config.json that is a directory → exit 2 (EISDIR), not "not valid JSON"', async () => {
    expectSetupError(await cardctl(['profile', 'list'], { configDir: path('config-is-dir') }), /cannot read the config file .*config\.json: it is a directory, not a file \(EISDIR\)/);
  });

  // (An existing config directory of the user's own with mode 0500 is tightened to 0700 like any
  // other mode; a directory that cannot be created is the case that remains.) Root ignores modes.
  it.skipIf(root)('a config directory inside a read-only directory → exit 2 (EACCES)', async () => {
    const parent = path('read-only');
    mkdirSync(parent, { mode: 0o500 });
    chmodSync(parent, 0o500);
    try {
      const result = await cardctl(['profile', 'set', 'baseUrl', 'https://api.example.com'], { configDir: dir.path, env: { CARDCTL_CONFIG_DIR: join(parent, 'cardctl') } });
      expectSetupError(result, /cannot write the config .*read-only\/cardctl: permission denied \(EACCES\)/);
    } finally {
      chmodSync(parent, 0o700);
    }
  });

  it.skipIf(root)('an unreadable config file → exit 2 (EACCES)', async () => {
    const config = path('unreadable');
    mkdirSync(config, { mode: 0o700 });
    writeFileSync(path('unreadable', 'config.json'), '{"profiles":{}}', { mode: 0o000 });
    chmodSync(path('unreadable', 'config.json'), 0o000);
    expectSetupError(await cardctl(['profile', 'list'], { configDir: config }), /cannot read the config file .*permission denied \(EACCES\)/);
  });
});

describe('PIN key file', () => {
  it.each([
    ['a directory', path('a-dir'), /--pin-key .*a-dir: it is a directory, not a file \(EISDIR\)/],
    ['missing', path('nope.pem'), /--pin-key .*nope\.pem: it does not exist \(ENOENT\)/],
    ['a CSV', path('cards.csv'), /not a PEM public key/],
    ['/dev/null', '/dev/null', /not a PEM public key/],
  ])('login --pin-key %s → exit 2', async (_name, file, what) => {
    const config = tempDir();
    try {
      expectSetupError(await cardctl([...login, '--pin-key', file], { configDir: config.path, input: 'tok_setup_123456\n' }), what);
    } finally {
      config.remove();
    }
  });
});

describe('sandbox serve --db', () => {
  it.each([
    ['a directory', () => path('a-dir'), /--db .*a-dir: is a directory/],
    ['/dev/null', () => '/dev/null', /--db \/dev\/null: is not a regular file/],
    ['a CSV file', () => path('cards.csv'), /--db .*cards\.csv: is not a SQLite database/],
    ['a file with a SQLite header and garbage', () => path('fake.db'), /--db .*fake\.db: is not a usable SQLite database/],
    ['under a file', () => path('a-file', 'x.db'), /--db .*a-file\/x\.db: .*not a directory/],
    ['empty', () => '', /--db must not be empty/],
  ])('%s → exit 2', async (_name, db, what) => {
    expectSetupError(await cardctl(['sandbox', 'serve', '--port', '0', '--db', db()], { configDir: dir.path, timeout: 20_000 }), what);
  });

  it('a database another process holds locked → exit 2', async () => {
    const file = path('locked.db');
    const holder = execa('node', ['-e', `
      const Database = require('libsql');
      const db = new Database(${JSON.stringify(file)});
      db.exec('PRAGMA journal_mode = WAL'); db.exec('CREATE TABLE t (x)'); db.exec('BEGIN EXCLUSIVE'); db.exec('INSERT INTO t VALUES (1)');
      console.log('locked'); setInterval(() => {}, 1000);`], { cwd: process.cwd(), env: cleanEnv(), extendEnv: false, reject: false, buffer: false });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.once('data', () => resolve());
        holder.once('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
      });
      expectSetupError(await cardctl(['sandbox', 'serve', '--port', '0', '--db', file], { configDir: dir.path, timeout: 30_000 }), /--db .*locked\.db: the database is locked by another process/);
    } finally {
      holder.kill('SIGKILL');
      await holder.catch(() => undefined);
    }
  });

  it.skipIf(root)('the default database in a read-only data directory → exit 2 (EACCES)', async () => {
    const data = path('read-only-data');
    mkdirSync(data, { mode: 0o500 });
    chmodSync(data, 0o500);
    try {
      const result = await cardctl(['sandbox', 'serve', '--port', '0'], { configDir: dir.path, env: { CARDCTL_DATA_DIR: data }, timeout: 20_000 });
      expectSetupError(result, /the sandbox database .*read-only-data\/sandbox\.db: cannot write in the directory .*permission denied \(EACCES\)/);
    } finally {
      chmodSync(data, 0o700);
    }
  });

  it('the default database when CARDCTL_DATA_DIR is a file → exit 2 naming CARDCTL_DATA_DIR', async () => {
    const result = await cardctl(['sandbox', 'serve', '--port', '0'], { configDir: dir.path, env: { CARDCTL_DATA_DIR: path('a-file') }, timeout: 20_000 });
    expectSetupError(result, /the sandbox database .*a-file\/sandbox\.db: .*not a directory/);
    expect(result.stderr).toMatch(/hint: set CARDCTL_DATA_DIR/);
  });
});

describe('audit journal', () => {
  it('a data directory that is a file: the mutation goes ahead, one warning says where and what to set', async () => {
    const config = tempDir();
    try {
      const result = await execa('node', [BIN, 'api', 'POST', '/institutions/things', '--data', '{}', '-o', 'json'], {
        env: cleanEnv({ ...isolatedDirs(config.path), CARDCTL_DATA_DIR: path('a-file'), CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: 'tok_setup_123456' }),
        extendEnv: false, reject: false,
      });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr.match(/could not write the audit journal/g)).toHaveLength(1);
      expect(result.stderr).toMatch(/a-file\/journal \(a (file is in the way|part of the path is a file)[^)]*\(E(EXIST|NOTDIR)\)\); the command itself went ahead\. Set CARDCTL_DATA_DIR/);
    } finally {
      config.remove();
    }
  });
});
