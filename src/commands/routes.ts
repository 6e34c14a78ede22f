// Every top-level command, in the order `cardctl --help` lists it, each loaded on its own: the one
// list of them (commands/index.ts loads them all, for what needs the definitions themselves: the
// build's command manifest, `cardctl mcp`, the man page). A command line is dispatched from the
// manifest (commands/manifest.ts), which loads only the one leaf that runs.
// test/unit/cli.test.ts checks that each loader gives the definition its key names.
import type { AnyCommand, GroupDefinition } from '../contract/command.js';

type Node = AnyCommand | GroupDefinition;
const definition = (mod: { default: Node }): Node => mod.default;

export const COMMAND_LOADERS: Readonly<Record<string, () => Promise<Node>>> = {
  cards: () => import('./cards/index.js').then(definition),
  tx: () => import('./tx/index.js').then(definition),
  simulate: () => import('./simulate/index.js').then(definition),
  webhook: () => import('./webhook/index.js').then(definition),
  import: () => import('./import.js').then(definition),
  oauth: () => import('./oauth/index.js').then(definition),
  users: () => import('./users/index.js').then(definition),
  login: () => import('./login.js').then(definition),
  logout: () => import('./logout.js').then(definition),
  auth: () => import('./auth/index.js').then(definition),
  profile: () => import('./profile/index.js').then(definition),
  doctor: () => import('./doctor.js').then(definition),
  history: () => import('./history.js').then(definition),
  alias: () => import('./alias/index.js').then(definition),
  sandbox: () => import('./sandbox/index.js').then(definition),
  demo: () => import('./demo.js').then(definition),
  api: () => import('./api.js').then(definition),
  mcp: () => import('./mcp.js').then(definition),
  completion: () => import('./completion.js').then(definition),
};
