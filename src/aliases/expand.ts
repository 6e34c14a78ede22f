// Aliases (`cardctl alias set co 'cards list --search $1'`): expanded in main() before commander
// parses, so an alias behaves exactly like the command line it stands for.
import { UsageError } from '../core/errors.js';
import { splitCommand } from '../output/pager.js';

/** Names an alias may not take: every top-level command, its aliases, and `help`. */
export function builtinNames(tree: ReadonlyArray<{ name: string; aliases?: readonly string[] }>): Set<string> {
  // `help` and `version` are answered by the entry itself, not by a command of the tree.
  const names = new Set(['help', 'version']);
  for (const node of tree) {
    names.add(node.name);
    for (const alias of node.aliases ?? []) names.add(alias);
  }
  return names;
}

export const ALIAS_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/**
 * Replaces an alias in argv[0] with its expansion: `$1`, `$2`… take the arguments given after
 * the alias, and the arguments no `$N` took are appended. Built-in commands are never expanded.
 * Returns argv unchanged when argv[0] is not an alias.
 */
export function expandAlias(argv: readonly string[], aliases: Readonly<Record<string, string>> | undefined, builtins: ReadonlySet<string>): string[] {
  const [first, ...rest] = argv;
  if (!first || !aliases || builtins.has(first) || !Object.hasOwn(aliases, first)) return [...argv];
  const expansion = aliases[first]!;
  const used = new Set<number>();
  const words = splitCommand(expansion).map((word) => word.replace(/\$(\d+)/g, (_m, digits: string) => {
    const n = Number(digits);
    if (n < 1 || n > rest.length) {
      throw new UsageError(`alias "${first}" needs ${maxPlaceholder(expansion)} argument${maxPlaceholder(expansion) === 1 ? '' : 's'}, got ${rest.length}`, {
        hint: `it expands to: cardctl ${expansion}`,
      });
    }
    used.add(n);
    return rest[n - 1]!;
  }));
  return [...words, ...rest.filter((_arg, i) => !used.has(i + 1))];
}

function maxPlaceholder(expansion: string): number {
  return Math.max(0, ...[...expansion.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
}
