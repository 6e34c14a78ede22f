// Files on a full disk: node:fs's write is made to fail (ENOSPC) after a short write, as a disk
// that fills up does. Atomic files are left as they were; append-only files never glue the next
// line to a torn one.
import { execFileSync, spawn } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * The disk: while `callsLeft` is set, that many more writes succeed; after them a write takes at
 * most `shortBytes` bytes (a short write) once, and every later one fails with ENOSPC.
 */
const disk = vi.hoisted(() => ({ callsLeft: undefined as number | undefined, shortBytes: 0 }));

vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
  const writeSync = ((fd: number, data: string | NodeJS.ArrayBufferView, ...rest: unknown[]) => {
    if (disk.callsLeft === undefined || disk.callsLeft-- > 0) return (fs.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
    if (disk.shortBytes === 0) throw enospc();
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const offset = typeof rest[0] === 'number' ? rest[0] : 0;
    const written = fs.writeSync(fd, bytes, offset, Math.min(disk.shortBytes, bytes.length - offset));
    disk.shortBytes = 0;
    return written;
  }) as typeof fs.writeSync;
  // writeFileSync as a full disk leaves it: the file made, nothing in it.
  const writeFileSync = ((path: string, data: unknown, options?: unknown) => {
    if (disk.callsLeft === undefined || disk.callsLeft-- > 0) return (fs.writeFileSync as (...args: unknown[]) => void)(path, data, options);
    (fs.writeFileSync as (...args: unknown[]) => void)(path, '', options);
    throw enospc();
  }) as typeof fs.writeFileSync;
  return { ...fs, default: { ...fs, writeSync, writeFileSync }, writeSync, writeFileSync };
});

/** From now on the disk takes `shortBytes` more bytes, then nothing. */
function fillDisk(shortBytes = 0, callsLeft = 0): void {
  disk.callsLeft = callsLeft;
  disk.shortBytes = shortBytes;
}

const { writeFileAtomic } = await import('../../src/core/write-file.js');
const { SetupError } = await import('../../src/core/errors.js');
const { Journal } = await import('../../src/audit/journal.js');

const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-full-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  disk.callsLeft = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a file written whole or not at all', () => {
  it('a full disk: one SetupError naming the file, the old file untouched, no temporary file left', () => {
    const dir = temp();
    const path = join(dir, 'private-key.pem');
    writeFileSync(path, 'the old key');
    fillDisk(5);
    const error = (() => {
      try {
        writeFileAtomic(path, 'a new key, longer than five bytes', { mode: 0o600 });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(SetupError);
    expect((error as Error).message).toBe(`cannot write ${path}: no space left on the device (ENOSPC)`);
    expect((error as InstanceType<typeof SetupError>).exitCode).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe('the old key');
    expect(readdirSync(dir)).toEqual(['private-key.pem']);
  });

  it('a new file on a full disk is not there at all (never 0 bytes)', () => {
    const dir = temp();
    fillDisk();
    expect(() => writeFileAtomic(join(dir, 'private-key.pem'), 'key', { mode: 0o600, exclusive: true })).toThrow(/no space left/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('exclusive: refuses a file already there, and leaves it', () => {
    const dir = temp();
    const path = join(dir, 'certificate.pem');
    writeFileSync(path, 'there');
    expect(() => writeFileAtomic(path, 'new', { mode: 0o644, exclusive: true })).toThrow(/EEXIST/);
    expect(readFileSync(path, 'utf8')).toBe('there');
    expect(readdirSync(dir)).toEqual(['certificate.pem']);
  });

  it.each([
    ['the key', 0],
    ['the certificate, after the key', 1],
  ])('oauth keygen with the disk full at %s leaves no key behind', async (_when, callsLeft) => {
    const { default: keygen } = await import('../../src/commands/oauth/keygen.js');
    const { testContext } = await import('../helpers/context.js');
    const { runCommand } = await import('../helpers/parse.js');
    const dir = temp();
    fillDisk(0, callsLeft);
    await expect(runCommand(keygen, testContext({ globals: { json: true } }), ['--out', dir, '--subject', 'x'])).rejects.toThrow(/cannot write .*\.pem: no space left on the device/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('a target that is not a regular file', () => {
  it('a pipe (as /dev/stdout may be) is written through, never replaced by a regular file', async () => {
    const dir = temp();
    const fifo = join(dir, 'merged.ndjson');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo]);
    let received = '';
    reader.stdout.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise((resolve) => reader.on('close', resolve));
    const stop = setTimeout(() => reader.kill(), 5_000);
    try {
      writeFileAtomic(fifo, '{"row":1}\n', { mode: 0o600 });
      await closed;
    } finally {
      clearTimeout(stop);
    }
    expect(received).toBe('{"row":1}\n');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(['merged.ndjson']);
  });

  it('a path through a file is one error naming the path to write', () => {
    const dir = temp();
    writeFileSync(join(dir, 'ids.txt'), 'x');
    expect(() => writeFileAtomic(join(dir, 'ids.txt', 'merged.ndjson'), 'new', { mode: 0o600 })).toThrow(new RegExp(`^cannot write ${join(dir, 'ids.txt', 'merged.ndjson')}: .*ENOTDIR`));
  });

  it('a symbolic link stays a link: the file it names is replaced', () => {
    const dir = temp();
    writeFileSync(join(dir, 'report.ndjson'), 'old');
    symlinkSync('report.ndjson', join(dir, 'latest.ndjson'));
    writeFileAtomic(join(dir, 'latest.ndjson'), 'new', { mode: 0o600 });
    expect(lstatSync(join(dir, 'latest.ndjson')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'report.ndjson'), 'utf8')).toBe('new');
    expect(readdirSync(dir).sort()).toEqual(['latest.ndjson', 'report.ndjson']);
  });
});

describe('a report on a full disk', () => {
  it('the run stops with one error naming the report; a resumed run appends after the torn line', async () => {
    const { openReport, readReport } = await import('../../src/bulk/import-report.js');
    const { runHeaderLine } = await import('../../src/bulk/report.js');
    const path = join(temp(), 'report.ndjson');
    // Every report starts with its run's header (src/bulk/report.ts).
    const report = openReport(path, false, runHeaderLine({ verb: 'import', input: `sha256:${'0'.repeat(64)}`, source: 'cards.csv' }));
    report.write({ line: 1, realId: 'r1', outcome: 'imported', cardId: 'c1' });
    report.close();
    const second = openReport(path, true);
    fillDisk(10);
    second.write({ line: 2, realId: 'r2', outcome: 'imported', cardId: 'c2' });
    let error: unknown;
    try {
      second.close();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SetupError);
    expect((error as Error).message).toBe(`cannot write the report ${path}: no space left on the device (ENOSPC)`);
    disk.callsLeft = undefined;
    const third = openReport(path, true);
    third.write({ line: 3, realId: 'r3', outcome: 'imported', cardId: 'c3' });
    third.close();
    const state = await readReport(path);
    expect([...state.done.keys()]).toEqual(['r1', 'r3']);
  });

  it('a failed batch is reported by the next write, not thrown from a timer', () => {
    return (async () => {
      const { openReport } = await import('../../src/bulk/import-report.js');
      const path = join(temp(), 'report.ndjson');
      const report = openReport(path, false);
      fillDisk();
      // 64 entries: a batch, written at once.
      expect(() => {
        for (let line = 1; line <= 64; line++) report.write({ line, realId: `r${line}`, outcome: 'imported' });
      }).toThrow(/cannot write the report/);
      expect(() => report.write({ line: 65, outcome: 'failed' })).toThrow(SetupError);
      expect(() => report.close()).toThrow(SetupError);
    })();
  });
});

describe('the audit journal after a failed write', () => {
  const entry = (id: string) => ({
    time: '2026-11-27T10:00:00.000Z', profile: 'p', env: 'sandbox', baseUrl: 'http://127.0.0.1:1', operator: 'me', command: 'cardctl x',
    method: 'POST', path: `/institutions/cards/${id}/deactivate`, status: 200, message: 'ok', ids: [id], durationMs: 1,
  });

  it('a torn line does not swallow the next entry, and the reader skips it with a count', () => {
    const dir = temp();
    const journal = new Journal({}, { dir });
    journal.append(entry('c1'));
    fillDisk(20);
    expect(() => journal.append(entry('c2'))).toThrow(/ENOSPC/);
    disk.callsLeft = undefined;
    journal.append(entry('c3'));
    // Another process (another run of cardctl) appends after the torn line too.
    new Journal({}, { dir }).append(entry('c4'));
    const lines = readFileSync(journal.file, 'utf8').split('\n');
    expect(lines).toHaveLength(5);
    const read = [...journal.read()];
    expect(read.map((e) => e.ids[0])).toEqual(['c1', 'c3', 'c4']);
    expect(journal.skippedLines).toBe(1);
  });

  it('a file torn by an earlier process gets its newline before the next entry', () => {
    const dir = temp();
    writeFileSync(join(dir, 'journal.ndjson'), '{"time":"2026-11-27T09:00:00.000Z","prof', { mode: 0o600 });
    const journal = new Journal({}, { dir });
    journal.append(entry('c5'));
    expect([...journal.read()].map((e) => e.ids[0])).toEqual(['c5']);
    expect(journal.skippedLines).toBe(1);
  });

  it('`cardctl history` shows the whole entries and warns of the torn line', async () => {
    const dir = temp();
    const journal = new Journal({}, { dir });
    journal.append(entry('c6'));
    writeFileSync(journal.file, '{"time":"2026-11-27T09', { flag: 'a' });
    journal.close();
    new Journal({}, { dir }).append(entry('c7'));
    const { main } = await import('../../src/app/cli.js');
    const { testIO } = await import('../helpers/context.js');
    const io = testIO();
    const code = await main(['history', '-o', 'json'], { io, env: { CARDCTL_CONFIG_DIR: dir, CARDCTL_DATA_DIR: dir, CARDCTL_JOURNAL_DIR: dir, CI: '1' } });
    expect(code, io.stderrText()).toBe(0);
    expect(JSON.parse(io.stdoutText()).map((e: { ids: string[] }) => e.ids[0]).sort()).toEqual(['c6', 'c7']);
    expect(io.stderrText()).toMatch(/skipped 1 unreadable journal line/);
  });
});
