// The command manifest (src/commands/manifest.ts) holds to the definitions it is written from:
// the same data, a loader for every leaf that gives that very definition, and the same help on
// every path. Each fails when a definition changed and the build has not been run since.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/app/cli.js';
import { type AnyCommand, type GroupDefinition, isGroup } from '../../src/contract/command.js';
import { commandTree } from '../../src/commands/index.js';
import { COMMAND_MANIFEST, LEAF_LOADERS } from '../../src/commands/manifest.js';
import { helpPaths } from '../helpers/help-paths.js';

const STALE = 'src/commands/manifest.generated.ts is stale: run `npm run build` and commit it';

/** Every leaf of the tree, by its path of canonical names. */
function leaves(nodes: ReadonlyArray<AnyCommand | GroupDefinition>, prefix: string[] = []): Map<string, AnyCommand> {
  const found = new Map<string, AnyCommand>();
  for (const node of nodes) {
    const path = [...prefix, node.name];
    if (isGroup(node)) for (const [key, leaf] of leaves(node.commands, path)) found.set(key, leaf);
    else found.set(path.join(' '), node);
  }
  return found;
}

/** The command `path` names (by any of its names) in a commander program. */
function commandAt(program: Command, path: string[]): Command {
  let command = program;
  for (const word of path) command = command.commands.find((c) => c.name() === word || c.aliases().includes(word))!;
  return command;
}

describe('the command manifest', () => {
  it('is the definitions as data: every path, summary, help text, argument, flag, alias and MCP use', () => {
    expect(COMMAND_MANIFEST, STALE).toEqual(JSON.parse(JSON.stringify(commandTree)));
  });

  it('has a loader for every leaf, and no other, that gives that very definition', async () => {
    const tree = leaves(commandTree);
    expect(Object.keys(LEAF_LOADERS).sort(), STALE).toEqual([...tree.keys()].sort());
    for (const [path, leaf] of tree) expect(await LEAF_LOADERS[path]!(), path).toBe(leaf);
  });

  it('gives the same help as the definitions on every path, under every name', () => {
    const fromManifest = buildProgram(COMMAND_MANIFEST);
    const fromDefinitions = buildProgram(commandTree);
    const paths = helpPaths(commandTree);
    expect(paths.length).toBeGreaterThan(leaves(commandTree).size);
    for (const path of paths) {
      expect(commandAt(fromManifest, path).helpInformation(), path.join(' ')).toBe(commandAt(fromDefinitions, path).helpInformation());
    }
  });
});
