// The whole CLI, the entry of dist/cli.js: cardctl over every command definition, and what the
// build renders from them (the help cache, the man page). A command line that starts with a
// top-level command's name runs from that command's own bundle instead (cli-route.ts), which
// loads this one only for what needs every command.
import { builtinNames } from './aliases/expand.js';
import { COMMAND_LOADERS } from './commands/routes.js';
import type { ArgumentSpec, CommandDefinition, RunInput } from './core/command.js';
import { ExitCode } from './core/errors.js';
import type { Flags } from './core/flags.js';
import { bufferedIO } from './core/buffered-io.js';
import { HELP_CACHE_WIDTH, helpPaths, type HelpCache } from './help/help-cache.js';
import { buildProgram, type CommandSource, type MainDeps, parseCommand as parseWith, PROGRAM_EXAMPLES, runCli, type TreeNode } from './run-cli.js';
import { VERSION } from './version.js';

export { buildProgram, PROGRAM_EXAMPLES, reportError, type MainDeps } from './run-cli.js';

/** Every command definition (commands/index.ts). */
async function wholeTree(): Promise<TreeNode[]> {
  return (await import('./commands/index.js')).commandTree;
}

/** Every command: each top-level one loadable alone, the whole tree, and the CLI as commands use it. */
export const commands: CommandSource = {
  loaders: COMMAND_LOADERS,
  wholeTree,
  host: {
    run: (argv, deps) => main(argv, deps),
    builtinNames: async () => builtinNames(await wholeTree()),
    completionScript: async (shell) => (await import('./completion/index.js')).generateCompletion(shell, buildProgram(await wholeTree())),
  },
};

/** Runs cardctl with the given arguments; resolves to the exit code. */
export function main(argv: string[], deps: MainDeps = {}): Promise<number> {
  return runCli(argv, deps, commands);
}

/**
 * The parse step of one command alone: its command line (global flags included) → the typed
 * input its run() would get, or the UsageError main() would report. Nothing runs.
 */
export function parseCommand<F extends Flags, A extends readonly ArgumentSpec[]>(definition: CommandDefinition<F, A>, argv: string[]): Promise<RunInput<F, A>> {
  return parseWith(definition, argv, commands.host);
}

/**
 * Renders every `--help` page through main() into a buffer, as a piped stdout would get it
 * (src/help/help-cache.ts; written to dist/ by scripts/build.mjs).
 */
export async function renderHelpCache(): Promise<HelpCache> {
  const pages: Record<string, string> = {};
  for (const path of helpPaths(await wholeTree())) {
    const io = bufferedIO({ tty: false });
    const code = await main([...path, '--help'], { io, env: {}, signal: new AbortController().signal });
    if (code !== ExitCode.Ok || io.stderrText() !== '') throw new Error(`cardctl ${path.join(' ')} --help: exit ${code}, stderr ${io.stderrText()}`);
    pages[path.join(' ')] = io.stdoutText();
  }
  return { version: VERSION, width: HELP_CACHE_WIDTH, pages };
}

/** man/cardctl.1 (src/help/man-page.ts; written to man/ by scripts/build.mjs). */
export async function renderManPage(): Promise<string> {
  const { renderManPage: render } = await import('./help/man-page.js');
  const tree = await wholeTree();
  return render({ program: buildProgram(tree), tree, examples: PROGRAM_EXAMPLES });
}
