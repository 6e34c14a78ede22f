// The help cache: every command's `--help` page, rendered when the bundle is built
// (scripts/build.mjs writes dist/help-cache.json), so bin/cardctl.js can answer
// `cardctl … --help` without loading the bundle (BENCHMARKS.md: `--help` within 1.2× of a bare
// `node -e 0`; loading and compiling the command tree alone costs more than that on Node 20,
// which has no compile cache for ES modules). The pages are printed by main() itself into a
// buffer, so they are the bytes the full path prints; test/unit/help-cache.test.ts keeps the
// committed build honest. Only plain, non-TTY-width pages are cached: bin uses them when stdout
// is not a terminal or is exactly HELP_CACHE_WIDTH columns wide, and takes the full path otherwise.
import type { AnyCommand, GroupDefinition } from '../core/command.js';
import { isGroup } from '../core/command.js';

/** commander wraps help to 80 columns when stdout is not a terminal. */
export const HELP_CACHE_WIDTH = 80;
export const HELP_CACHE_FILE = 'help-cache.json';

export interface HelpCache {
  /** The cardctl version the pages were rendered by. */
  version: string;
  width: number;
  /** Command path joined by spaces ('' for the root, 'cards list', and each alias spelling) → page. */
  pages: Record<string, string>;
}

/** Every command path that answers `--help`: the root, each group and leaf, under each of its names. */
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
