// The route bundles run with V8's code cache (bin/code-cache.js): made after a command's first
// run, beside the bundles, owner-only; a cache that is corrupt, of another build of the bundle, or
// impossible to write is the same as none, and the command's result never depends on it.
import { execa } from 'execa';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { scratchDirs } from '../helpers/dirs.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = join('dist', 'cache', `${process.version}-${process.arch}`);

describe('the code cache of the route bundles', () => {
  let install: ReturnType<typeof tempDir>;

  // An installation of its own: bin/, package.json and the one route bundle `alias list` runs.
  beforeEach(() => {
    install = tempDir('cardctl-code-cache-');
    cpSync(join(ROOT, 'bin'), join(install.path, 'bin'), { recursive: true });
    copyFileSync(join(ROOT, 'package.json'), join(install.path, 'package.json'));
    mkdirSync(join(install.path, 'dist'));
    copyFileSync(join(ROOT, 'dist', 'cli-alias.cjs'), join(install.path, 'dist', 'cli-alias.cjs'));
  });
  afterEach(() => {
    install.remove();
  });

  const aliasList = () => execa('node', [join(install.path, 'bin', 'cardctl.js'), 'alias', 'list', '-o', 'json'], {
    env: cleanEnv(scratchDirs()), reject: false,
  });
  const caches = () => (existsSync(join(install.path, CACHE)) ? readdirSync(join(install.path, CACHE)) : []);

  it('is made by the first run, owner-only, and used as it is by the next', async () => {
    const first = await aliasList();
    expect([first.exitCode, first.stdout, first.stderr]).toEqual([0, '[]', '']);
    expect(caches()).toHaveLength(1);
    const file = join(install.path, CACHE, caches()[0]!);
    expect(caches()[0]).toMatch(/^cli-alias\.cjs\.\d+-\d+$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(install.path, CACHE)).mode & 0o777).toBe(0o700);
    const made = statSync(file);

    const second = await aliasList();
    expect([second.exitCode, second.stdout, second.stderr]).toEqual([0, '[]', '']);
    expect(statSync(file).mtimeMs).toBe(made.mtimeMs);
    expect(statSync(file).ino).toBe(made.ino);
  });

  it('a corrupt cache is refused by V8 and made again; the command runs the same', async () => {
    await aliasList();
    const file = join(install.path, CACHE, caches()[0]!);
    const good = readFileSync(file);
    writeFileSync(file, Buffer.alloc(good.length, 7));
    const run = await aliasList();
    expect([run.exitCode, run.stdout, run.stderr]).toEqual([0, '[]', '']);
    expect(readFileSync(file).equals(Buffer.alloc(good.length, 7))).toBe(false);
  });

  // V8 checks a cache against its source's length only: the name holds the bundle's modification time.
  it('a rebuilt bundle gets a cache of its own, and the old one is removed', async () => {
    await aliasList();
    const before = caches();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(install.path, 'dist', 'cli-alias.cjs'), later, later);
    const run = await aliasList();
    expect([run.exitCode, run.stdout]).toEqual([0, '[]']);
    expect(caches()).toHaveLength(1);
    expect(caches()).not.toEqual(before);
  });

  it('where the cache cannot be written, commands run without it', async () => {
    writeFileSync(join(install.path, 'dist', 'cache'), 'not a directory');
    for (let i = 0; i < 2; i++) {
      const run = await aliasList();
      expect([run.exitCode, run.stdout, run.stderr]).toEqual([0, '[]', '']);
    }
    expect(readFileSync(join(install.path, 'dist', 'cache'), 'utf8')).toBe('not a directory');
  });
});
