// How a command is declared. One file per leaf command exports `defineCommand({...})`:
// its commander options with help and examples, and `run(ctx, input)`, which parses what it
// was given into typed options (throwing UsageError before any I/O) and does the work.
// Heavy modules are imported inside run(), never at the top of a command file.
import type { Command } from 'commander';
import type { Context } from './context.js';
import { NotImplementedError } from './errors.js';

export interface RunInput<O> {
  /** Positional arguments, in declaration order (variadic ones as arrays). */
  args: Array<string | string[] | undefined>;
  /** This command's options merged with the global ones. */
  opts: O;
  command: Command;
}

export interface CommandDefinition<O = Record<string, any>> {
  name: string;
  /** One line for the parent's command list. */
  summary: string;
  /** Longer help text shown by `--help`. */
  description?: string;
  /** Commander argument syntax, e.g. `<CARD_ID>` or `[FILE]`. */
  arguments?: Array<{ syntax: string; description: string; choices?: readonly string[] }>;
  /** Adds this command's options (use commander's Option for choices and conflicts). */
  options?: (command: Command) => void;
  /** `$ cardctl …` lines shown under "Examples:" in help. */
  examples?: string[];
  aliases?: string[];
  run(ctx: Context, input: RunInput<O>): Promise<void>;
}

export interface GroupDefinition {
  name: string;
  summary: string;
  description?: string;
  aliases?: string[];
  commands: Array<CommandDefinition<any> | GroupDefinition>;
  examples?: string[];
}

export function defineCommand<O = Record<string, any>>(definition: CommandDefinition<O>): CommandDefinition<O> {
  return definition;
}

export function defineGroup(definition: GroupDefinition): GroupDefinition {
  return definition;
}

export function isGroup(definition: CommandDefinition<any> | GroupDefinition): definition is GroupDefinition {
  return 'commands' in definition;
}

/** The run() of a verb whose implementation has not landed: says so, exits 1. */
export function notImplemented(path: string): CommandDefinition['run'] {
  return async () => {
    throw new NotImplementedError(path);
  };
}
