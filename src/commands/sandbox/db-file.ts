// What `sandbox serve` checks of its database file before opening it: the mistakes of a set-up
// (a directory, a device, a CSV, a missing or unwritable directory, a file another process holds
// locked) are exit 2 naming --db, never an "unexpected error" from SQLite.
import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError, SetupError } from '../../core/errors.js';

const SQLITE_HEADER = 'SQLite format 3\0';

/** How the path was chosen, for messages: `--db FILE`, or the default in the data directory. */
export function dbLabel(fromFlag: boolean): { what: string; hint: string } {
  return fromFlag
    ? { what: '--db', hint: 'give --db a SQLite file (new or made by `cardctl sandbox serve`) in a directory you can write, or use --memory' }
    : { what: 'the sandbox database', hint: 'set CARDCTL_DATA_DIR to a directory you can write, pass --db FILE, or use --memory' };
}

/** Throws a SetupError unless `file` can be a sandbox database (absent, or a SQLite file), in a writable directory. */
export function checkDbFile(file: string, fromFlag: boolean): void {
  const { what, hint } = dbLabel(fromFlag);
  const fail = (why: string): never => {
    throw new SetupError(`${what} ${file}: ${why}`, { hint });
  };
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw SetupError.fromFs(what, file, error, hint);
  }
  if (stat) {
    if (stat.isDirectory()) fail('is a directory; give the path of a database file');
    if (!stat.isFile()) fail('is not a regular file (a device, pipe or socket)');
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch (error) {
      throw SetupError.fromFs(what, file, error, hint);
    }
    if (stat.size > 0 && readHeader(file) !== SQLITE_HEADER) fail('is not a SQLite database (a file of something else is there)');
  }
  // The directory must exist as a directory, or be creatable, and be writable (WAL files go beside it).
  let dir = dirname(file);
  for (;;) {
    let dirStat;
    try {
      dirStat = statSync(dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && dirname(dir) !== dir) { dir = dirname(dir); continue; }
      throw SetupError.fromFs(`${what} ${file}: cannot use the directory`, dir, error, hint);
    }
    if (!dirStat.isDirectory()) fail(`${dir} is not a directory`);
    try {
      accessSync(dir, constants.W_OK | constants.X_OK);
    } catch (error) {
      throw SetupError.fromFs(`${what} ${file}: cannot write in the directory`, dir, error, hint);
    }
    return;
  }
}

function readHeader(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/** An error SQLite gave while opening or migrating the file, as a SetupError when it is about the file. */
export function explainDbOpenError(error: unknown, file: string, fromFlag: boolean): unknown {
  if (error instanceof CliError) return error;
  const { what, hint } = dbLabel(fromFlag);
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code ?? '';
  if (/locked|SQLITE_BUSY/i.test(message) || code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new SetupError(`${what} ${file}: the database is locked by another process`, { hint: 'stop the other process using it, or give another --db file', cause: error });
  }
  if (/not a database|SQLITE_NOTADB|SQLITE_CORRUPT|malformed/i.test(message) || code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) {
    return new SetupError(`${what} ${file}: is not a usable SQLite database (${message})`, { hint, cause: error });
  }
  if (/unable to open|disk I\/O|readonly|read-only|SQLITE_CANTOPEN|SQLITE_IOERR|SQLITE_READONLY|SQLITE_PERM/i.test(message) || /^SQLITE_(CANTOPEN|IOERR|READONLY|PERM)/.test(code)) {
    return new SetupError(`${what} ${file}: cannot open it (${message})`, { hint, cause: error });
  }
  return error;
}
