// Every command path that answers `--help`, for tests that look at every help page.
import { type AnyCommand, type GroupDefinition, isGroup } from '../../src/contract/command.js';

/** The root ([]), each group and leaf, under each of its names. */
export function helpPaths(tree: ReadonlyArray<AnyCommand | GroupDefinition>, prefix: string[] = []): string[][] {
  const paths: string[][] = prefix.length ? [] : [[]];
  for (const node of tree) {
    for (const name of [node.name, ...(node.aliases ?? [])]) {
      const path = [...prefix, name];
      paths.push(path);
      if (isGroup(node)) paths.push(...helpPaths(node.commands, path));
    }
  }
  return paths;
}
