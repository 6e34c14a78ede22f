// Files written whole or not at all. A key, a certificate, a merged report: written to a
// temporary file beside the target (same directory, so the rename cannot cross file systems),
// fsynced, then renamed over it. A full disk or any other failure removes the temporary file and
// leaves the target as it was: never a 0-byte key, never half a report that looks whole.
// A target that is not a regular file (/dev/stdout, a FIFO) is written through, never replaced;
// a symbolic link's target is the file replaced, so the link stays.
import { closeSync, fsyncSync, linkSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SetupError, fsErrorCode } from './errors.js';

/** Writes all of `data` at the descriptor's position: a short write (a disk filling up) is continued, and a failure thrown. */
export function writeAllSync(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}

export interface AtomicWriteOptions {
  /** The file's mode: 0o600 for anything secret. */
  mode: number;
  /** Refuse (EEXIST) rather than replace a file already there. */
  exclusive?: boolean;
}

/**
 * Writes `data` to `path` whole or not at all (see above). Failures are a SetupError naming the
 * path and why (`cannot write ./keys/private-key.pem: no space left on the device (ENOSPC)`).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, { mode, exclusive = false }: AtomicWriteOptions): void {
  let existing: Stats | undefined;
  let target = path;
  try {
    existing = statSync(path, { throwIfNoEntry: false });
    if (existing?.isFile()) target = realpathSync(path);
  } catch (error) {
    throw writeError(path, error);
  }
  if (existing && !existing.isFile() && !exclusive) return writeThrough(path, data);
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temporary, 'wx', mode);
    writeAllSync(fd, data);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    // link() refuses a name already there, where rename() would replace it.
    if (exclusive) {
      linkSync(temporary, target);
      rmSync(temporary);
    } else {
      renameSync(temporary, target);
    }
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temporary, { force: true });
    throw writeError(path, error);
  }
}

/** A device or a pipe (`--out /dev/stdout`): written in place, as a shell redirection would. */
function writeThrough(path: string, data: string | Uint8Array): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'w');
    writeAllSync(fd, data);
  } catch (error) {
    throw writeError(path, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function writeError(path: string, error: unknown): SetupError {
  const full = fsErrorCode(error) === 'ENOSPC' || fsErrorCode(error) === 'EDQUOT';
  return SetupError.fromFs('cannot write', path, error, full ? 'free some space or write elsewhere; nothing was written' : undefined);
}
