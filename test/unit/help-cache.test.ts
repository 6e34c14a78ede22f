// The help cache (src/help/help-cache.ts): bin/cardctl.js prints these pages for
// `cardctl … --help` without loading the bundle, so they must be exactly what the full path
// prints, for every command, and must be rebuilt whenever a command changes (npm test builds first).
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { commandTree } from '../../src/commands/index.js';
import { bufferedIO } from '../../src/core/buffered-io.js';
import { HELP_CACHE_WIDTH, helpPaths, type HelpCache } from '../../src/help/help-cache.js';
import { VERSION } from '../../src/version.js';
import { cleanEnv } from '../helpers/cli.js';

const BIN = fileURLToPath(new URL('../../bin/cardctl.js', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const cache = JSON.parse(readFileSync(new URL('../../dist/help-cache.json', import.meta.url), 'utf8')) as HelpCache;

async function liveHelp(args: string[], io = bufferedIO({ tty: false })): Promise<string> {
  const code = await main(args, { io, env: {}, signal: new AbortController().signal });
  expect(code).toBe(0);
  return io.stdoutText();
}

describe('help cache', () => {
  it('was rendered by this version, at the piped width', () => {
    expect(cache.version).toBe(VERSION);
    expect(cache.width).toBe(HELP_CACHE_WIDTH);
  });

  it('has a page for every command path and alias, each identical to what the source prints now', async () => {
    const paths = helpPaths(commandTree);
    expect(Object.keys(cache.pages).sort()).toEqual(paths.map((p) => p.join(' ')).sort());
    expect(paths).toContainEqual(['cards', 'list']);
    expect(paths).toContainEqual(['tx', 'list']);
    for (const path of paths) {
      expect(cache.pages[path.join(' ')], `cardctl ${path.join(' ')} --help`).toBe(await liveHelp([...path, '--help']));
    }
  });

  it('wraps help to the io\'s terminal width, not the test process\'s', async () => {
    const wide = await liveHelp(['--help'], bufferedIO({ tty: true, columns: 160 }));
    const piped = await liveHelp(['--help'], bufferedIO({ tty: false }));
    expect(Math.max(...piped.split('\n').map((l) => l.length))).toBeLessThanOrEqual(HELP_CACHE_WIDTH + 40);
    expect(wide.split('\n').length).toBeLessThan(piped.split('\n').length);
  });

  it('bin prints the same bytes from the cache as the bundle prints through commander', async () => {
    const env = cleanEnv({});
    for (const args of [['--help'], ['cards', '--help'], ['cards', 'list', '-h'], ['tx', 'tail', '--help'], ['sandbox', 'serve', '--help']]) {
      const fast = await execa('node', [BIN, ...args], { env, extendEnv: false, stripFinalNewline: false });
      // The full path: the bundle's main(), bypassing bin's shortcuts.
      const full = await execa('node', ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(DIST)}); process.exitCode = await main(${JSON.stringify(args)});`], { env, extendEnv: false, stripFinalNewline: false });
      expect(fast.stdout, args.join(' ')).toBe(full.stdout);
      expect(fast.stdout, args.join(' ')).toBe(cache.pages[args.slice(0, -1).join(' ')]);
      expect(fast.exitCode).toBe(0);
    }
  });

  it('leaves anything that is not WORD… --help to the full path', async () => {
    const env = cleanEnv({});
    const unknown = await execa('node', [BIN, 'cards', 'lst', '--help'], { env, extendEnv: false, reject: false });
    const full = await execa('node', ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(DIST)}); process.exitCode = await main(["cards", "lst", "--help"]);`], { env, extendEnv: false, reject: false });
    expect(unknown.stdout).toBe(full.stdout);
    expect(unknown.stderr).toBe(full.stderr);
    expect(unknown.exitCode).toBe(full.exitCode);
  });
});
