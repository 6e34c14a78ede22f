// `cardctl __complete <what>`: values the completion scripts ask for while the user types.
// Runs on every TAB, so it reads the config file and nothing else: no command tree, no network.
import { ConfigStore } from '../config/store.js';
import type { Env } from '../config/settings.js';
import type { IOStreams } from '../core/io.js';

/** Prints one value per line; exit 0 even when there is nothing (or the config is unreadable). */
export function runCompletionQuery(args: string[], io: IOStreams, env: Env): number {
  const what = args[0];
  if (what !== 'profiles' && what !== 'aliases') {
    io.err(`error: unknown completion query '${what ?? ''}' (expected: profiles, aliases)\n`);
    return 2;
  }
  let names: string[] = [];
  try {
    const store = new ConfigStore(env);
    names = what === 'profiles' ? store.profileNames() : Object.keys(store.read().aliases ?? {}).sort();
  } catch {
    // A broken config file is reported by real commands; completion just offers nothing.
  }
  for (const name of names) io.out(`${name}\n`);
  return 0;
}
