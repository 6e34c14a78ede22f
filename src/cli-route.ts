// The entry of a route bundle, dist/cli-<name>.cjs: scripts/build.mjs makes one per top-level
// command of commands/routes.ts, with that command's definitions in the same file. A command line
// that starts with the command's name runs here, so a one-request command loads one file of
// cardctl instead of ~50 chunks (BENCHMARKS.md, "Node's floor"). What needs every command (demo
// running other commands, completion scripts, alias names) runs in the whole CLI, dist/cli.js,
// loaded then; so does any other command line.
import type { MainDeps } from './cli.js';
import { runCli, type CommandSource, type TreeNode } from './run-cli.js';

type WholeCli = typeof import('./cli.js');

/** main() of the route bundle of `definition`; `whole` loads the whole CLI. */
export function routeMain(definition: TreeNode, whole: () => Promise<WholeCli>): (argv: string[], deps?: MainDeps) => Promise<number> {
  const source: CommandSource = {
    loaders: { [definition.name]: async () => definition },
    wholeTree: async () => (await whole()).commands.wholeTree(),
    host: {
      run: async (argv, deps) => (await whole()).main(argv, deps),
      builtinNames: async () => (await whole()).commands.host.builtinNames(),
      completionScript: async (shell) => (await whole()).commands.host.completionScript(shell),
    },
  };
  return async (argv, deps = {}) => (argv[0] === definition.name ? runCli(argv, deps, source) : (await whole()).main(argv, deps));
}
