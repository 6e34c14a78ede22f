// Commander's parse errors, said the way cardctl's own errors are: what was wrong with which
// input on one line, and a hint that names the command (`see \`cardctl cards get --help\``) or
// suggests the closest name.
import type { Command, CommanderError, Option } from 'commander';
import { didYouMean } from './suggest.js';

export interface ExplainedError {
  message: string;
  hint: string;
}

export function explainCommanderError(error: CommanderError, program: Command, argv: readonly string[]): ExplainedError {
  const [first = '', ...rest] = error.message.replace(/^error:\s*/i, '').split('\n');
  const command = commandAt(program, argv);
  const path = commandPath(command);
  const help = `see \`${path} --help\``;

  // "(Did you mean cards?)" / "(Did you mean one of list, ls?)" on the next line.
  const suggestion = /\(Did you mean (?:one of )?([^?]+)\?\)/.exec(rest.join(' '))?.[1];
  if (suggestion) return { message: first, hint: didYouMean(suggestion.split(/,\s*/)) };

  switch (error.code) {
    case 'commander.unknownCommand':
      return { message: first, hint: `${help} for its commands` };
    case 'commander.unknownOption':
      return { message: first, hint: `${help} for its options` };
    case 'commander.invalidArgument': {
      // "option '-o, --output <format>' argument 'yaml' is invalid. Allowed choices are table, json."
      const choice = /^option '([^']+)' argument '(.*)' is invalid\. Allowed choices are (.+)\.$/.exec(first);
      if (choice) return { message: `invalid ${flagName(choice[1]!)} "${choice[2]}": expected one of ${choice[3]}`, hint: help };
      return { message: first, hint: help };
    }
    case 'commander.optionMissingArgument': {
      const option = /^option '([^']+)' argument missing$/.exec(first);
      if (option) {
        const flag = flagName(option[1]!);
        const value = /<[^>]+>/.exec(option[1]!)?.[0] ?? 'VALUE';
        return { message: `${flag} needs a value`, hint: `give it as \`${flag} ${value}\`; ${help}` };
      }
      return { message: first, hint: help };
    }
    default:
      return { message: first, hint: `usage: ${path} ${command.usage()}; ${help}` };
  }
}

/** The long flag of commander's flags text: `-o, --output <format>` → `--output`. */
function flagName(flags: string): string {
  return /--[\w-]+/.exec(flags)?.[0] ?? flags.split(/[ ,]/)[0]!;
}

/** The deepest command named in argv (options and their values skipped). */
function commandAt(program: Command, argv: readonly string[]): Command {
  let command = program;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (!word.includes('=') && takesValue(command, program, word)) i++;
      continue;
    }
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) break;
    command = next;
  }
  return command;
}

function takesValue(command: Command, program: Command, flag: string): boolean {
  const find = (c: Command) => (c.options as readonly Option[]).find((o) => o.short === flag || o.long === flag);
  const option = find(command) ?? find(program);
  return Boolean(option && (option.required || option.optional));
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
