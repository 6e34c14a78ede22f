// The published package: `npm pack` (with its prepack clean build) gives a tarball of only
// bin/, dist/, completions/, man/, README.md, LICENSE and package.json, and that tarball installs
// into an empty prefix and runs. The pack happens in a staging copy so this repository's dist/
// is never cleaned under the feet of tests running in parallel.
import { execa } from 'execa';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { APPROVED_CODES } from '../../src/iso8583/codes.js';
import { INSPECTOR_PAGE } from '../../src/sandbox/inspector/assets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LONG = 240_000;

let work: ReturnType<typeof tempDir>;
let tarball: string;
let entries: string[];
/** The tarball's size in bytes. */
let packedSize: number;

beforeAll(async () => {
  work = tempDir('cardctl-pack-');
  const stage = join(work.path, 'stage');
  for (const item of ['package.json', 'bin', 'src', 'scripts', 'completions', 'man', 'docs', 'examples', 'README.md', 'LICENSE']) {
    cpSync(join(ROOT, item), join(stage, item), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'), 'dir');
  // Left over from an earlier build: prepack must remove it.
  mkdirSync(join(stage, 'dist', 'chunks'), { recursive: true });
  writeFileSync(join(stage, 'dist', 'chunks', 'stale-chunk.js'), 'export {};\n');
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', work.path], { cwd: stage, env: cleanEnv(), timeout: LONG });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>;
  tarball = join(work.path, info!.filename);
  entries = info!.files.map((f) => f.path);
  packedSize = info!.size;
}, LONG);
afterAll(() => work?.remove());

describe('npm pack', () => {
  it('holds only bin/, dist/, completions/, man/, the webhook protocol page and its example handlers, README.md, LICENSE and package.json', () => {
    const tops = new Set(entries.map((path) => (path.includes('/') ? `${path.split('/')[0]}/` : path)));
    expect([...tops].sort()).toEqual(['LICENSE', 'README.md', 'bin/', 'completions/', 'dist/', 'docs/', 'examples/', 'man/', 'package.json']);
    expect(entries).toEqual(expect.arrayContaining(['bin/cardctl.js', 'dist/cli.js', 'dist/paths.cjs', 'completions/cardctl.bash', 'completions/_cardctl', 'completions/cardctl.fish', 'man/cardctl.1']));
    // What docs/webhook-protocol.md points a handler's engineer to ships with it.
    expect(entries.filter((path) => path.startsWith('docs/') || path.startsWith('examples/')).sort())
      .toEqual(['docs/webhook-protocol.md', 'examples/webhook-handler/WebhookHandler.java', 'examples/webhook-handler/handler.pl', 'examples/webhook-handler/handler.py']);
  });

  it('is at most 3 MB (as npm counts them): the CLI ships once, without its source maps', () => {
    expect(packedSize).toBeLessThanOrEqual(3_000_000);
    expect(entries.filter((path) => path.endsWith('.map'))).toEqual([]);
  });

  it('carries a manifest without `prepare` (it builds a clone; the tarball holds dist/), and leaves the clone\'s package.json as it was', async () => {
    const { stdout } = await execa('tar', ['-xzOf', tarball, 'package/package.json']);
    const packed = JSON.parse(stdout) as { scripts: Record<string, string> };
    expect(packed.scripts).not.toHaveProperty('prepare');
    const prepare = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.prepare as string;
    expect(prepare).toContain('build.mjs');
    expect(JSON.parse(readFileSync(join(work.path, 'stage', 'package.json'), 'utf8')).scripts.prepare).toBe(prepare);
    expect(readdirSync(join(work.path, 'stage')).filter((name) => name.startsWith('package.json'))).toEqual(['package.json']);
  });

  it('is built clean by prepack: a stale file in dist/ does not ship', () => {
    expect(entries.some((path) => path.includes('stale-chunk'))).toBe(false);
    expect(entries.filter((path) => path.startsWith('dist/') && path.endsWith('.js')).length).toBeGreaterThan(1);
  });
});

describe('the installed tarball', () => {
  let prefix: string;
  /** Set when the registry cannot be reached: the tests say so and skip. */
  let unreachable: string | undefined;
  /** What `npm install -g` printed on stderr. */
  let installErrors = '';

  beforeAll(async () => {
    prefix = join(work.path, 'prefix');
    // Reachable registry: use the local cache where it is fresh. Unreachable: the cache alone,
    // and skip (saying why) when it does not hold every dependency.
    const ping = await execa('npm', ['ping', '--fetch-retries=0'], { env: cleanEnv(), reject: false, timeout: 30_000 });
    const mode = ping.exitCode === 0 ? '--prefer-offline' : '--offline';
    const install = await execa('npm', ['install', '-g', '--prefix', prefix, tarball, mode, '--no-audit', '--no-fund'], {
      env: cleanEnv(), reject: false, timeout: LONG,
    });
    installErrors = install.stderr;
    if (install.exitCode === 0) return;
    if (mode === '--offline') {
      unreachable = `the npm registry is unreachable (npm ping: ${ping.stderr.split('\n').find((l) => l.startsWith('npm error')) ?? 'failed'}) and the npm cache lacks some of the tarball's dependencies`;
      return;
    }
    throw new Error(`npm install -g ${tarball} failed:\n${install.stderr}`);
  }, LONG);

  const installed = (args: string[]) => execa(join(prefix, 'bin', 'cardctl'), args, {
    env: cleanEnv({ CARDCTL_CONFIG_DIR: join(work.path, 'config'), CARDCTL_DATA_DIR: join(work.path, 'data') }),
    reject: false,
    timeout: 60_000,
  });

  it('installs without a warning on this Node: no engine a dependency refuses, no install script (cardctl\'s own prepare is not in the tarball)', ({ skip }) => {
    if (unreachable) skip(unreachable);
    expect(installErrors.split('\n').filter((line) => /^npm warn/i.test(line))).toEqual([]);
  });

  it('runs without writing into the package folder', async ({ skip }) => {
    if (unreachable) skip(unreachable);
    const folder = join(prefix, 'lib', 'node_modules', 'cardctl');
    const before = listing(folder);
    for (const args of [['--version'], ['--help'], ['cards', 'list', '--help'], ['completion', 'bash']]) expect((await installed(args)).exitCode).toBe(0);
    expect(listing(folder)).toEqual(before);
  });

  it('runs `cardctl --version` and `--version --verbose`', async ({ skip }) => {
    if (unreachable) skip(unreachable);
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect((await installed(['--version'])).stdout).toBe(version);
    const verbose = await installed(['--version', '--verbose']);
    expect(verbose.exitCode).toBe(0);
    expect(verbose.stdout).toBe(`cardctl ${version}\nnode ${process.version}\nplatform ${process.platform}-${process.arch}`);
  });

  it('ships completion scripts equal to what the installed cardctl generates', async ({ skip }) => {
    if (unreachable) skip(unreachable);
    const shipped = join(prefix, 'lib', 'node_modules', 'cardctl', 'completions');
    for (const [shell, file] of [['bash', 'cardctl.bash'], ['zsh', '_cardctl'], ['fish', 'cardctl.fish']]) {
      const result = await installed(['completion', shell!]);
      expect(result.exitCode).toBe(0);
      expect(`${result.stdout}\n`, `completions/${file} (run \`npm run completions\`)`).toBe(readFileSync(join(shipped, file!), 'utf8'));
    }
  });

  it('links the man page where `man` looks for it', async ({ skip }) => {
    if (unreachable) skip(unreachable);
    const linked = join(prefix, 'share', 'man', 'man1', 'cardctl.1');
    expect(readFileSync(linked, 'utf8')).toBe(readFileSync(join(ROOT, 'man', 'cardctl.1'), 'utf8'));
  });

  it('runs `cardctl demo --json` with every step ok', async ({ skip }) => {
    if (unreachable) skip(unreachable);
    const result = await installed(['demo', '--json']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const steps = result.stdout.split('\n').map((line) => JSON.parse(line) as { ok: boolean });
    expect(steps.length).toBeGreaterThanOrEqual(9);
    expect(steps.every((s) => s.ok)).toBe(true);
  });

  it("serves the inspector's page and its files from the bundle (they ship inside dist/)", async ({ skip }) => {
    if (unreachable) skip(unreachable);
    const serve = execa(join(prefix, 'bin', 'cardctl'), ['sandbox', 'serve', '--port', '0', '--memory', '--json', '--quiet-log'], {
      env: cleanEnv({ CARDCTL_CONFIG_DIR: join(work.path, 'config'), CARDCTL_DATA_DIR: join(work.path, 'data') }), reject: false, buffer: false,
    });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: serve.stdout! }).once('line', resolve);
        serve.once('exit', (code) => reject(new Error(`sandbox serve exited with ${code}`)));
      });
      const { inspectorUrl } = JSON.parse(first) as { inspectorUrl: string };
      const source = (name: string) => readFileSync(join(ROOT, 'src', 'sandbox', 'inspector', name), 'utf8');
      // The page as the source has it, its approved codes filled in (assets.ts).
      expect(await (await fetch(inspectorUrl)).text()).toBe(INSPECTOR_PAGE);
      expect(INSPECTOR_PAGE).toBe(source('index.html').replace('data-approved-codes=""', `data-approved-codes="${[...APPROVED_CODES].join(' ')}"`));
      for (const name of ['client.js', 'inspector.css']) {
        expect(await (await fetch(new URL(`/sandbox/inspector/${name}`, inspectorUrl))).text()).toBe(source(name));
      }
    } finally {
      serve.kill('SIGTERM');
      await serve.catch(() => undefined);
    }
  });
});

/** Every path under `dir` with its size and modification time. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort().map((path) => {
    const { size, mtimeMs } = statSync(join(dir, path));
    return `${path} ${size} ${mtimeMs}`;
  });
}
