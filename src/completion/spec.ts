// What the completion scripts know, read off the commander tree: every command path with its
// aliases, options (and whether they take a value, and which values), and positional
// arguments. The shell generators (bash.ts, zsh.ts, fish.ts) only format this.
import type { Argument, Command, Option } from 'commander';
import { DIALECT_KEYS } from '../api/dialect.js';
import { SETTABLE_PROFILE_KEYS } from '../config/store.js';
import { completionOf } from '../core/flags.js';
import { HELP_TOPIC_NAMES } from '../help/topics.js';

/** How the value of an option or argument is completed. */
export type ValueSpec =
  | { kind: 'choices'; choices: string[] }
  | { kind: 'profiles' }
  /** User aliases (`cardctl alias set`), asked from `cardctl __complete aliases`. */
  | { kind: 'aliases' }
  | { kind: 'file' }
  | { kind: 'dir' }
  | { kind: 'none' };

export interface OptionSpec {
  /** e.g. `-p` */
  short?: string;
  /** e.g. `--profile` */
  long?: string;
  description: string;
  /** Does the option consume the next word? */
  takesValue: boolean;
  value: ValueSpec;
}

export interface ArgumentSpec {
  name: string;
  variadic: boolean;
  value: ValueSpec;
}

export interface CommandSpec {
  name: string;
  aliases: string[];
  summary: string;
  /** Names from the root, excluding `cardctl`; empty for the root. */
  path: string[];
  subcommands: CommandSpec[];
  /** This command's own options (global ones live on the root). */
  options: OptionSpec[];
  arguments: ArgumentSpec[];
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Builds the spec of the whole tree from the root program. */
export function completionSpec(program: Command): CommandSpec {
  const root = commandSpec(program, []);
  // Commander adds `help [command]` lazily; it completes command names and help topics.
  root.subcommands.push({
    name: 'help',
    aliases: [],
    summary: 'show help for a command or a topic',
    path: ['help'],
    subcommands: [],
    options: [],
    arguments: [{
      name: 'command',
      variadic: false,
      value: { kind: 'choices', choices: [...root.subcommands.map((c) => c.name), ...HELP_TOPIC_NAMES] },
    }],
  });
  return root;
}

function commandSpec(command: Command, path: string[]): CommandSpec {
  const options: OptionSpec[] = [];
  for (const option of command.options as readonly Option[]) {
    if (option.hidden) continue;
    options.push(optionSpec(option));
  }
  if (path.length === 0) {
    options.push({ short: '-h', long: '--help', description: 'show help', takesValue: false, value: { kind: 'none' } });
  }
  return {
    name: command.name(),
    aliases: command.aliases(),
    summary: command.summary() || firstLine(command.description()),
    path,
    subcommands: command.commands
      .filter((c) => !(c as Command & { _hidden?: boolean })._hidden)
      .map((c) => commandSpec(c, [...path, c.name()])),
    options,
    arguments: (command.registeredArguments as readonly Argument[]).map((a) => ({
      name: a.name(),
      variadic: a.variadic,
      value: argumentValue(path, a),
    })),
  };
}

function optionSpec(option: Option): OptionSpec {
  const takesValue = option.required || option.optional;
  return {
    short: option.short,
    long: option.long,
    description: firstLine(option.description),
    takesValue,
    value: takesValue ? optionValue(option) : { kind: 'none' },
  };
}

/** As the flag's declaration says (src/core/flags.ts `complete`); choices complete as themselves. */
function optionValue(option: Option): ValueSpec {
  if (option.argChoices?.length) return { kind: 'choices', choices: [...option.argChoices] };
  const complete = completionOf(option);
  switch (complete) {
    case undefined: return { kind: 'none' };
    case 'profile': return { kind: 'profiles' };
    case 'file': return { kind: 'file' };
    case 'directory': return { kind: 'dir' };
    default: return { kind: 'choices', choices: [...complete] };
  }
}

/** Positional arguments whose values can be known without the network. */
function argumentValue(path: string[], argument: Argument): ValueSpec {
  if (argument.argChoices?.length) return { kind: 'choices', choices: [...argument.argChoices] };
  const where = path.join(' ');
  const name = argument.name();
  if (where === 'completion') return { kind: 'choices', choices: [...SHELLS] };
  if (where === 'profile set' && name === 'key') return { kind: 'choices', choices: [...Object.keys(SETTABLE_PROFILE_KEYS), ...Object.keys(DIALECT_KEYS)] };
  if (path[0] === 'profile' && name === 'name') return { kind: 'profiles' };
  if (where === 'alias delete' && name === 'name') return { kind: 'aliases' };
  if (/file$/i.test(name)) return { kind: 'file' };
  if (where === 'api' && name === 'method') return { kind: 'choices', choices: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] };
  return { kind: 'none' };
}

function firstLine(text: string): string {
  return (text ?? '').split('\n')[0]!.trim();
}

/** Every command in the tree, depth first, root included. */
export function allCommands(root: CommandSpec): CommandSpec[] {
  return [root, ...root.subcommands.flatMap(allCommands)];
}

/** The option words of an option: `-p`, `--profile`. */
export function optionWords(option: OptionSpec): string[] {
  return [option.short, option.long].filter((w): w is string => Boolean(w));
}

/** A value spec as one shell word: choices space-separated, `@profiles`, `@aliases`, `@file`, `@dir`, or empty. */
export function valueWord(value: ValueSpec): string {
  switch (value.kind) {
    case 'choices': return value.choices.map(assertPlain).join(' ');
    case 'profiles': return '@profiles';
    case 'aliases': return '@aliases';
    case 'file': return '@file';
    case 'dir': return '@dir';
    default: return '';
  }
}

/** Names, flags and choices go into shell case patterns unquoted-safe; refuse anything else. */
export function assertPlain(word: string): string {
  if (!/^[A-Za-z0-9_.,@/+=-]+$/.test(word)) throw new Error(`cannot complete "${word}": unexpected characters`);
  return word;
}

/** The key of a command in generated scripts: its path joined with spaces ("" for the root). */
export function pathKey(command: CommandSpec): string {
  return command.path.join(' ');
}

/** Root options that apply at every level (all but --version, which only the root answers). */
export function globalOptions(root: CommandSpec): OptionSpec[] {
  return root.options.filter((o) => o.long !== '--version');
}
