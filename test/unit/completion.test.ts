// Completion scripts: generated from the commander tree, committed copies current, valid syntax
// in every shell that is installed, and they complete what they should.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram, main } from '../../src/app/cli.js';
import { commandTree } from '../../src/commands/index.js';
import { generateCompletion, SHELLS, type Shell } from '../../src/completion/index.js';
import { completionSpec } from '../../src/completion/spec.js';
import { addFlags, defineFlags } from '../../src/core/flags.js';
import { tempDir } from '../helpers/cli.js';
import { testIO } from '../helpers/context.js';
import { isolatedDirs } from '../helpers/dirs.js';

const FILES: Record<Shell, string> = { bash: 'cardctl.bash', zsh: '_cardctl', fish: 'cardctl.fish' };
const committed = (shell: Shell) => readFileSync(new URL(`../../completions/${FILES[shell]}`, import.meta.url), 'utf8');
const generated = (shell: Shell) => generateCompletion(shell, buildProgram(commandTree));

function installed(shell: string): boolean {
  return spawnSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' }).status === 0;
}

/** Every commander option with fixed choices, anywhere in the tree. */
function choiceOptions(): Array<{ flag: string; choices: string[] }> {
  const found: Array<{ flag: string; choices: string[] }> = [];
  const walk = (command: ReturnType<typeof buildProgram>) => {
    for (const option of command.options as Option[]) if (option.argChoices) found.push({ flag: option.long!, choices: option.argChoices });
    command.commands.forEach(walk);
  };
  walk(buildProgram(commandTree));
  return found;
}

let dir: ReturnType<typeof tempDir>;
let shim: string;
beforeAll(() => {
  dir = tempDir();
  // Stands in for cardctl when the scripts ask for profile names.
  shim = join(dir.path, 'cardctl');
  writeFileSync(shim, '#!/bin/sh\ncase "$1 $2" in\n  "__complete profiles") printf "alpha\\nbeta\\n" ;;\n  "__complete aliases") printf "failed\\n" ;;\nesac\n');
  chmodSync(shim, 0o755);
});
afterAll(() => dir.remove());

describe('committed completion scripts', () => {
  it.each(SHELLS)('completions/%s is what `cardctl completion` generates (run `npm run completions` if not)', (shell) => {
    expect(committed(shell)).toBe(generated(shell));
  });

  it('knows every enum value of the tree', () => {
    const script = generated('bash');
    const options = choiceOptions();
    expect(options.map((o) => o.flag)).toEqual(expect.arrayContaining(['--output', '--status', '--channel', '--method', '--flow']));
    for (const { choices } of options) expect(script).toContain(choices.join(' '));
  });
});

describe('value completion comes from the flag declaration', () => {
  const flags = defineFlags({
    profile: { type: 'string', value: 'name', complete: 'profile', description: 'p' },
    input: { type: 'string', value: 'path', complete: 'file', description: 'i' },
    out: { type: 'string', value: 'path', complete: 'directory', description: 'o' },
    region: { type: 'string', value: 'code', complete: ['eu', 'us'], description: 'r' },
    level: { type: 'string', value: 'n', choices: ['1', '2'], description: 'l' },
    keyFile: { type: 'string', value: 'file', description: 'named like a file, declared as nothing' },
    tag: { type: 'list', value: 'tag', repeat: 'each', complete: ['a', 'b'], description: 't' },
  });
  it.each([
    ['--profile', { kind: 'profiles' }],
    ['--input', { kind: 'file' }],
    ['--out', { kind: 'dir' }],
    ['--region', { kind: 'choices', choices: ['eu', 'us'] }],
    ['--level', { kind: 'choices', choices: ['1', '2'] }],
    ['--key-file', { kind: 'none' }],
    ['--tag', { kind: 'choices', choices: ['a', 'b'] }],
  ])('%s', (flag, value) => {
    const root = completionSpec(addFlags(new Command('x'), flags));
    expect(root.options.find((o) => o.long === flag)?.value).toEqual(value);
  });
});

describe('syntax', () => {
  it('bash -n', () => {
    const result = spawnSync('bash', ['-n'], { input: generated('bash') });
    expect(result.stderr.toString()).toBe('');
    expect(result.status).toBe(0);
  });
  it.skipIf(!installed('zsh'))('zsh -n (skipped when zsh is not installed)', () => {
    const result = spawnSync('zsh', ['-n'], { input: generated('zsh') });
    expect(result.stderr.toString()).toBe('');
    expect(result.status).toBe(0);
  });
  it.skipIf(!installed('fish'))('fish -n (skipped when fish is not installed)', () => {
    const file = join(dir.path, 'cardctl.fish');
    writeFileSync(file, generated('fish'));
    const result = spawnSync('fish', ['-n', file]);
    expect(result.stderr.toString()).toBe('');
    expect(result.status).toBe(0);
  });
});

describe('bash completes', () => {
  const complete = (line: string): string[] => {
    const file = join(dir.path, 'cardctl.bash');
    writeFileSync(file, generated('bash'));
    const words = line.split(' ');
    const script = `source ${JSON.stringify(file)}
COMP_WORDS=(${[shim, ...words.slice(1)].map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}
_cardctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
    return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split('\n').filter(Boolean);
  };

  it.each([
    ['cardctl ', ['cards', 'tx', 'simulate', 'completion', 'help', 'failed']],
    ['cardctl fa', ['failed']],
    ['cardctl alias delete ', ['failed']],
    ['cardctl ca', ['cards']],
    ['cardctl cards ', ['list', 'create', 'renew', 'pin', 'activate', 'deactivate']],
    ['cardctl cards pin ', ['change', 'reset']],
    ['cardctl cards create --st', ['--status', '--start-date', '--state']],
    ['cardctl cards create --status ', ['active', 'inactive', 'suspended', 'expired']],
    ['cardctl transactions ls --status f', ['failed']],
    ['cardctl simulate authorization --channel ', ['pos', 'atm', 'web']],
    ['cardctl -o ', ['table', 'json', 'ndjson', 'csv', 'raw']],
    ['cardctl --output=nd', ['--output=ndjson']],
    ['cardctl --profile ', ['alpha', 'beta']],
    ['cardctl -p alpha profile use ', ['alpha', 'beta']],
    ['cardctl profile set ', ['baseUrl', 'output', 'pinBlockFormat']],
    ['cardctl completion ', ['bash', 'zsh', 'fish']],
    ['cardctl help ', ['cards', 'exit-codes', 'pin-encryption', 'scenarios']],
    ['cardctl cards list --li', ['--limit']],
  ])('%j', (line, expected) => {
    expect(complete(line)).toEqual(expect.arrayContaining(expected));
  });

  it('offers nothing for free-text values', () => {
    expect(complete('cardctl cards list --search ')).toEqual([]);
  });
});

describe.skipIf(!installed('fish'))('fish completes (skipped when fish is not installed)', () => {
  const complete = (line: string): string[] => {
    const file = join(dir.path, 'complete.fish');
    writeFileSync(file, generated('fish'));
    const out = execFileSync('fish', ['-c', `source ${file}; complete -C${JSON.stringify(line)}`], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dir.path}:${process.env.PATH}` },
    });
    return out.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!);
  };
  it.each([
    ['cardctl cards ', ['list', 'create', 'renew']],
    ['cardctl cards create --status ', ['active', 'suspended']],
    ['cardctl tx list --st', ['--status']],
    ['cardctl completion ', ['bash', 'zsh', 'fish']],
    ['cardctl ', ['cards', 'failed']],
    ['cardctl -p ', ['alpha', 'beta']],
  ])('%j', (line, expected) => {
    expect(complete(line)).toEqual(expect.arrayContaining(expected));
  });
});

describe.skipIf(!installed('zsh'))('zsh completes (skipped when zsh is not installed)', () => {
  // The completion system's builtins are stubbed to print what they were given.
  const complete = (words: string[]): string => {
    const file = join(dir.path, '_cardctl');
    writeFileSync(file, generated('zsh'));
    const script = `compdef() { :; }; compset() { :; }
compadd() { [[ $1 == -a ]] && print -r -- "\${(P)2}"; }
_describe() { local -a items; items=("\${(@P)4}"); print -r -- "\${items[@]%%:*}"; }
_files() { print -r -- files; }; _message() { :; }
source ${file}
words=(${[shim, ...words.slice(1)].map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _cardctl`;
    return execFileSync('zsh', ['-f', '-c', script], { encoding: 'utf8' }).trim();
  };
  it('commands, options, choices, profiles, files', () => {
    expect(complete(['cardctl', 'cards', ''])).toContain('list get create renew');
    expect(complete(['cardctl', 'tx', 'list', '--'])).toContain('--card-status');
    expect(complete(['cardctl', 'cards', 'create', '--status', ''])).toBe('active inactive suspended expired');
    expect(complete(['cardctl', '-p', ''])).toBe('alpha beta');
    expect(complete(['cardctl', ''])).toMatch(/^cards tx .*\nfailed$/);
    expect(complete(['cardctl', 'simulate', 'run', ''])).toBe('files');
  });
});

describe('cardctl completion / __complete', () => {
  it('prints the script for each shell', async () => {
    for (const shell of SHELLS) {
      const io = testIO();
      expect(await main(['completion', shell], { io, env: {} })).toBe(0);
      expect(io.stdoutText()).toBe(committed(shell));
    }
  });

  it('exits 2 for an unknown shell', async () => {
    const io = testIO();
    expect(await main(['completion', 'tcsh'], { io, env: {} })).toBe(2);
    expect(io.stderrText()).toMatch(/^error: unknown shell "tcsh"\nhint: give one of: bash, zsh, fish/);
  });

  it('`__complete profiles` lists the stored profiles without the network', async () => {
    const config = join(dir.path, 'config');
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: { sandbox: {}, prod: { baseUrl: 'https://x' } } }));
    const io = testIO();
    expect(await main(['__complete', 'profiles'], { io, env: isolatedDirs(config) })).toBe(0);
    expect(io.stdoutText()).toBe('prod\nsandbox\n');
  });

  it('`__complete aliases` lists the user aliases', async () => {
    const config = join(dir.path, 'aliases');
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: {}, aliases: { failed: 'tx list --status failed', act: 'cards activate' } }));
    const io = testIO();
    expect(await main(['__complete', 'aliases'], { io, env: isolatedDirs(config) })).toBe(0);
    expect(io.stdoutText()).toBe('act\nfailed\n');
  });

  it('`__complete profiles` prints nothing (exit 0) without a config or with a broken one', async () => {
    const config = join(dir.path, 'broken');
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'config.json'), '{not json');
    for (const env of [isolatedDirs(join(dir.path, 'none')), isolatedDirs(config)]) {
      const io = testIO();
      expect(await main(['__complete', 'profiles'], { io, env })).toBe(0);
      expect(io.stdoutText()).toBe('');
    }
  });
});
