// The case tables that bash and zsh completion scripts share. The two shells differ only in how
// a case arm is written: bash `pattern)`, zsh `(pattern)` (zsh's own form, which also works
// where a pattern starts with a parenthesis).
import { allCommands, assertPlain, optionWords, pathKey, valueWord, type CommandSpec } from './spec.js';

export type CaseArm = (pattern: string) => string;

export const bashArm: CaseArm = (pattern) => `${pattern})`;
export const zshArm: CaseArm = (pattern) => `(${pattern})`;

/** Arms of `_cardctl_sub`: REPLY=the canonical name of a subcommand (or one of its aliases). */
export function subcommandArms(root: CommandSpec, arm: CaseArm): string[] {
  const lines: string[] = [];
  for (const command of allCommands(root)) {
    for (const sub of command.subcommands) {
      const patterns = [sub.name, ...sub.aliases].map((w) => `"${pathKey(command)}|${assertPlain(w)}"`).join('|');
      lines.push(`    ${arm(patterns)} REPLY=${sub.name} ;;`);
    }
  }
  return lines;
}

/** Arms of `_cardctl_value`: first the command options, then (in a second case) the global ones. */
export function optionValueArms(root: CommandSpec, arm: CaseArm): { commands: string[]; globals: string[] } {
  const commands: string[] = [];
  for (const command of allCommands(root).filter((c) => c !== root)) {
    for (const option of command.options.filter((o) => o.takesValue)) {
      const patterns = optionWords(option).map((w) => `"${pathKey(command)}|${assertPlain(w)}"`).join('|');
      commands.push(`    ${arm(patterns)} REPLY="${valueWord(option.value)}"; return ;;`);
    }
  }
  const globals = root.options
    .filter((o) => o.takesValue)
    .map((option) => `    ${arm(optionWords(option).map(assertPlain).join('|'))} REPLY="${valueWord(option.value)}" ;;`);
  return { commands, globals };
}

/** Arms of `_cardctl_arg`: how the INDEX-th positional argument of a command completes. */
export function argumentArms(root: CommandSpec, arm: CaseArm): string[] {
  const lines: string[] = [];
  for (const command of allCommands(root)) {
    command.arguments.forEach((argument, index) => {
      const word = valueWord(argument.value);
      if (!word) return;
      const pattern = argument.variadic ? `"${pathKey(command)}|"*` : `"${pathKey(command)}|${index}"`;
      lines.push(`    ${arm(pattern)} REPLY="${word}" ;;`);
    });
  }
  return lines;
}
