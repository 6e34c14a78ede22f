// The whole command tree, in the order `cardctl --help` lists it: every top-level command of
// routes.ts (the one list of them), loaded. Each entry is a definition (flags, help, run); run()
// bodies import their heavy modules lazily.
import type { AnyCommand, GroupDefinition } from '../contract/command.js';
import { COMMAND_LOADERS } from './routes.js';

export const commandTree: Array<AnyCommand | GroupDefinition> = await Promise.all(Object.values(COMMAND_LOADERS).map((load) => load()));
