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
import { envelope, startTestServer } from '../helpers/http-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = join('dist', 'cache', `${process.version}-${process.arch}`);

describe('the code cache of the route bundles', () => {
  let install: ReturnType<typeof tempDir>;

  // An installation of its own: bin/, package.json and the route bundles of alias and cards.
  beforeEach(() => {
    install = tempDir('cardctl-code-cache-');
    cpSync(join(ROOT, 'bin'), join(install.path, 'bin'), { recursive: true });
    copyFileSync(join(ROOT, 'package.json'), join(install.path, 'package.json'));
    mkdirSync(join(install.path, 'dist'));
    for (const bundle of ['cli-alias.cjs', 'cli-cards.cjs']) copyFileSync(join(ROOT, 'dist', bundle), join(install.path, 'dist', bundle));
  });
  afterEach(() => {
    install.remove();
  });

  const aliasList = () => execa('node', [join(install.path, 'bin', 'cardctl.js'), 'alias', 'list', '-o', 'json'], {
    env: cleanEnv(scratchDirs()), reject: false,
  });
  const cardsList = (baseUrl: string, ...args: string[]) => execa('node', [join(install.path, 'bin', 'cardctl.js'), 'cards', 'list', '-o', 'json', ...args], {
    env: cleanEnv({ ...scratchDirs(), CARDCTL_BASE_URL: baseUrl, CARDCTL_TOKEN: 'tok_code_cache' }), reject: false,
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

  // V8 refuses a cache made under other V8 flags: a command of many requests sets the heap flags
  // (bin/tuning.js), and a cache it made would be refused by every one-request command after it.
  it('a command that set V8 flags writes no cache; one that set none writes it, and the next of many requests uses it', async () => {
    const server = await startTestServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      const page = Number(url.searchParams.get('page') ?? 1);
      envelope(res, [{ id: `card_${page}`, status: 'active' }], { pagination: { page, limit: 1, total: 2, pages: 2 } });
    });
    try {
      const many = await cardsList(server.url, '--all', '--limit', '1');
      expect([many.exitCode, JSON.parse(many.stdout).map((card: { id: string }) => card.id)], many.stderr).toEqual([0, ['card_1', 'card_2']]);
      expect(caches().filter((name) => name.startsWith('cli-cards'))).toEqual([]);
      const one = await cardsList(server.url, '--limit', '1');
      expect(one.exitCode, one.stderr).toBe(0);
      const [made] = caches().filter((name) => name.startsWith('cli-cards'));
      const before = statSync(join(install.path, CACHE, made!));
      expect((await cardsList(server.url, '--all', '--limit', '1')).exitCode).toBe(0);
      expect(statSync(join(install.path, CACHE, made!)).mtimeMs).toBe(before.mtimeMs);
    } finally {
      await server.close();
    }
  });
});
