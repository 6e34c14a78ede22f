// The CLI, the entry of dist/cli.js (bin/cardctl.js loads it): cardctl over every command
// definition, and the man page the build renders from them.
import type { ArgumentSpec, CommandDefinition } from '../contract/command.js';
import type { Flags } from '../core/flags.js';
import { buildProgram, type MainDeps, type ParseFacts, parseCommand as parseWith, PROGRAM_EXAMPLES, runCli, wholeTree } from './run-cli.js';

export { buildProgram, PROGRAM_EXAMPLES, reportError, type MainDeps, type ParseFacts } from './run-cli.js';

/** Runs cardctl with the given arguments; resolves to the exit code. */
export function main(argv: string[], deps: MainDeps = {}): Promise<number> {
  return runCli(argv, deps);
}

/**
 * The parse step of one command alone: its command line (global flags included) → the typed
 * input its run() would get, or the UsageError main() would report. Nothing runs. `now`: the
 * moment relative times resolve against (the real time by default); `facts`: the environment and
 * the terminal (none by default: no variables set, no terminal).
 */
export function parseCommand<F extends Flags, A extends readonly ArgumentSpec[], I>(definition: CommandDefinition<F, A, I>, argv: string[], now?: Date, facts?: ParseFacts): Promise<I> {
  return parseWith(definition, argv, now, facts);
}

/** man/cardctl.1 (src/help/man-page.ts; written to man/ by scripts/build.mjs). */
export async function renderManPage(): Promise<string> {
  const { renderManPage: render } = await import('../help/man-page.js');
  const tree = await wholeTree();
  return render({ program: buildProgram(tree), tree, examples: PROGRAM_EXAMPLES });
}
