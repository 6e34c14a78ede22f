// A benchmark's command line, read the same way by every bench: `--name value` options and bare
// `--flag`s (`args.includes('--json')`).
//
//   import { args, option } from './lib/args.mjs';
//   const ROUNDS = Number(option('rounds', 15));

/** The words after `node bench/<name>.mjs`. */
export const args = process.argv.slice(2);

/** The word after `--name`, or `fallback` when `--name` is not given. */
export function option(name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
}
