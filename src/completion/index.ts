// `cardctl completion <shell>`: the script for one shell, generated from the commander tree.
import type { Command } from 'commander';
import { bashCompletion } from './bash.js';
import { fishCompletion } from './fish.js';
import { completionSpec, SHELLS, type Shell } from './spec.js';
import { zshCompletion } from './zsh.js';

export { SHELLS, type Shell };

export function isShell(name: string): name is Shell {
  return (SHELLS as readonly string[]).includes(name);
}

/** The completion script for `shell`, from the root program (`buildProgram()`). */
export function generateCompletion(shell: Shell, program: Command): string {
  const spec = completionSpec(program);
  switch (shell) {
    case 'bash': return bashCompletion(spec);
    case 'zsh': return zshCompletion(spec);
    case 'fish': return fishCompletion(spec);
  }
}
