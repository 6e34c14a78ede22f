import { describe, expect, it } from 'vitest';
import { builtinNames, expandAlias } from '../../src/aliases/expand.js';
import { commandTree } from '../../src/commands/index.js';
import { main } from '../../src/app/cli.js';
import { CliError } from '../../src/core/errors.js';
import { testIO } from '../helpers/context.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isolatedDirs } from '../helpers/dirs.js';

const builtins = builtinNames(commandTree);

describe('alias expansion', () => {
  const aliases = { co: 'cards list --search $1', two: 'tx list --merchant $2 --status $1', st: "tx list --status failed --fields 'id,responseCode'" };

  it('knows the built-in commands and their aliases', () => {
    for (const name of ['cards', 'tx', 'transactions', 'alias', 'help', 'sandbox']) expect(builtins.has(name), name).toBe(true);
    expect(builtins.has('co')).toBe(false);
  });

  it('replaces $N and appends what no $N took', () => {
    expect(expandAlias(['co', 'ada', '-o', 'json'], aliases, builtins)).toEqual(['cards', 'list', '--search', 'ada', '-o', 'json']);
    expect(expandAlias(['two', 'failed', 'M1'], aliases, builtins)).toEqual(['tx', 'list', '--merchant', 'M1', '--status', 'failed']);
    expect(expandAlias(['st'], aliases, builtins)).toEqual(['tx', 'list', '--status', 'failed', '--fields', 'id,responseCode']);
  });

  it('leaves built-ins and unknown names alone, even when an alias has their name', () => {
    expect(expandAlias(['cards', 'list'], { cards: 'tx list' }, builtins)).toEqual(['cards', 'list']);
    expect(expandAlias(['nope', 'x'], aliases, builtins)).toEqual(['nope', 'x']);
    expect(expandAlias(['toString'], aliases, builtins)).toEqual(['toString']);
  });

  it('too few arguments is a usage error', () => {
    const error = (() => { try { expandAlias(['two', 'failed'], aliases, builtins); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
  });

  it('set, list and delete through main(), stored in the config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-alias-'));
    try {
      const env = { ...isolatedDirs(dir), CI: '1' };
      const io = () => testIO();
      expect(await main(['alias', 'set', 'cards', 'tx list'], { io: io(), env })).toBe(2);
      expect(await main(['alias', 'set', 'ls', 'oops'], { io: io(), env })).toBe(2);
      expect(await main(['alias', 'set', 'fails', 'tx list --status failed'], { io: io(), env })).toBe(0);
      const listed = io();
      expect(await main(['alias', 'list', '-o', 'json'], { io: listed, env })).toBe(0);
      expect(JSON.parse(listed.stdoutText())).toEqual([{ name: 'fails', expansion: 'tx list --status failed' }]);
      // The alias expands before commander parses: its --help is tx list's.
      const help = io();
      expect(await main(['fails', '--help'], { io: help, env })).toBe(0);
      expect(help.stdoutText()).toContain('Usage: cardctl tx list');
      expect(await main(['alias', 'delete', 'fails'], { io: io(), env })).toBe(0);
      expect(await main(['alias', 'delete', 'fails'], { io: io(), env })).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
