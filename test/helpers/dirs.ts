// Where a test's cardctl keeps its files: both directories, always set together, so nothing
// falls back to the user's home directory (during the tests, a fake home that fails the run when
// anything of cardctl's appears in it: test/setup/isolated-home.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** CARDCTL_CONFIG_DIR and CARDCTL_DATA_DIR (config, sandbox database, audit journal) in `dir`. */
export function isolatedDirs(dir: string): { CARDCTL_CONFIG_DIR: string; CARDCTL_DATA_DIR: string } {
  return { CARDCTL_CONFIG_DIR: dir, CARDCTL_DATA_DIR: dir };
}

/** isolatedDirs of a fresh empty directory, removed when the test process exits. */
export function scratchDirs(): { CARDCTL_CONFIG_DIR: string; CARDCTL_DATA_DIR: string } {
  return isolatedDirs(scratchDir());
}

let scratchRoot: string | undefined;

/** A fresh empty directory, removed when the test process exits. */
export function scratchDir(): string {
  if (!scratchRoot) {
    const root = mkdtempSync(join(tmpdir(), 'cardctl-test-scratch-'));
    scratchRoot = root;
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  }
  return mkdtempSync(join(scratchRoot, 'dir-'));
}
