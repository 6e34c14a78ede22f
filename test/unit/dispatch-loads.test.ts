// What a command line loads: help and usage errors come from the command manifest without loading
// a command module, and a command that runs loads its own module, not its siblings'. The modules
// that must stay unloaded throw when imported.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/app/cli.js';
import { testIO } from '../helpers/context.js';
import { isolatedDirs } from '../helpers/dirs.js';

vi.mock('../../src/commands/index.js', () => {
  throw new Error('the whole command tree was loaded');
});
vi.mock('../../src/commands/cards/index.js', () => {
  throw new Error('the cards group module was loaded');
});
vi.mock('../../src/commands/cards/list.js', () => {
  throw new Error('cards list was loaded');
});
vi.mock('../../src/commands/alias/set.js', () => {
  throw new Error('alias set was loaded by a sibling');
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cardctl-test-dispatch-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]) {
  const io = testIO();
  const code = await main(args, { io, env: isolatedDirs(dir) });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('dispatch from the manifest', () => {
  it('answers --help, a command\'s --help and `help <command>` without loading a command module', async () => {
    for (const args of [['--help'], ['cards', '--help'], ['cards', 'list', '--help'], ['help', 'cards'], ['cards', 'ls', '-h']]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout, args.join(' ')).toMatch(/^Usage: cardctl/);
    }
  });

  it('reports a usage error without loading a command module', async () => {
    const result = await run(['cards', 'lst']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'lst'");
  });

  it('runs a command with its own module alone', async () => {
    const result = await run(['alias', 'list']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });
});
