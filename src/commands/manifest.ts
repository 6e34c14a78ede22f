// The command manifest: every command's path, summary, help, arguments, flags, aliases and MCP use,
// as data, and for each leaf the import() of its own module. scripts/build.mjs writes both
// (manifest.generated.ts) from the definitions, so help, completion and dispatch read the whole
// tree without loading a command module, and a command's module (a chunk of its own) is loaded
// only when it runs (src/app/run-cli.ts). test/unit/manifest.test.ts fails when the generated
// copy no longer matches the definitions.
import type { AnyCommand, ArgumentSpec, McpUse } from '../contract/command.js';
import type { Flags } from '../core/flags.js';
import { LEAF_MODULES, MANIFEST_JSON } from './manifest.generated.js';

/** A leaf as help and dispatch see it: its definition without the code (run, parse, validators, MCP bounds). */
export interface CommandOutline {
  name: string;
  summary: string;
  description?: string;
  aliases?: string[];
  examples?: string[];
  args?: readonly ArgumentSpec[];
  flags?: Flags;
  mcp?: McpUse | { use: McpUse };
}

export interface GroupOutline {
  name: string;
  summary: string;
  description?: string;
  aliases?: string[];
  examples?: string[];
  commands: OutlineNode[];
}

export type OutlineNode = CommandOutline | GroupOutline;

export function isGroupOutline(node: OutlineNode): node is GroupOutline {
  return 'commands' in node;
}

/** Every top-level command, in the order `cardctl --help` lists them, as data. */
export const COMMAND_MANIFEST: readonly OutlineNode[] = JSON.parse(MANIFEST_JSON);

/** Each leaf's definition by its path of canonical names (`cards list`), from its own module (a chunk of its own). */
export const LEAF_LOADERS: Readonly<Record<string, () => Promise<AnyCommand>>> = LEAF_MODULES;
