// The one rule for a file an assistant names (a tool input whose flag completes as a file or a
// directory, or an argument named `…-file`): it is inside the server's working directory, where the
// person started `cardctl mcp`. Checked on the real path, so neither `..` nor a symbolic link can
// lead out, and refused before the command runs: no error can then show a line of a file elsewhere.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError } from '../core/errors.js';

/** The real path of `value` when it is inside `cwd`; a UsageError naming `what` otherwise. */
export function confinedPath(what: string, value: string, cwd: string): string {
  const refuse = (why: string) => new UsageError(`${what} ${why}: an assistant may only name files inside the directory cardctl mcp was started in (${cwd})`, {
    hint: 'give a path relative to that directory, e.g. "cards.csv"',
  });
  if (value.trim() === '' || value === '-') throw refuse('must name a file (stdin is not available)');
  if (value.split(/[\\/]/).includes('..')) throw refuse('may not contain ".."');
  const root = realpathSync(cwd);
  const real = realPath(resolve(root, value));
  const inside = relative(root, real);
  if (inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside))) return real;
  throw refuse('is outside the working directory');
}

/** The real path of a file that may not exist yet: its nearest existing ancestor's, and the rest. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : resolve(realPath(parent), basename(path));
  }
}
