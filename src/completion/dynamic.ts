// `cardctl __complete <what>`: values the completion scripts ask for while the user types.
// Runs on every TAB, so it reads the config file and nothing else: no command tree, no network.
import { ConfigStore } from '../config/store.js';
import type { Env } from '../core/context.js';
import type { IOStreams } from '../core/io.js';

/** Prints one value per line; exit 0 even when there is nothing (or the config is unreadable). */
export function runCompletionQuery(args: string[], io: IOStreams, env: Env): number {
  if (args[0] === 'profiles') {
    let names: string[] = [];
    try {
      names = new ConfigStore(env).profileNames();
    } catch {
      // A broken config file is reported by real commands; completion just offers nothing.
    }
    for (const name of names) io.out(`${name}\n`);
    return 0;
  }
  io.err(`error: unknown completion query '${args[0] ?? ''}' (expected: profiles)\n`);
  return 2;
}
