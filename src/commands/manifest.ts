// The command manifest: every command's path, summary, help, arguments, flags, aliases and MCP use,
// as data. scripts/build.mjs writes it (manifest.generated.ts) from the definitions, so help,
// completion and dispatch read the whole tree without loading a command module; a command's
// module is loaded only when it runs (src/app/run-cli.ts). test/unit/manifest.test.ts fails when
// the generated copy no longer matches the definitions.
import type { ArgumentSpec, McpUse } from '../app/command.js';
import type { Flags } from '../core/flags.js';
import { MANIFEST_JSON } from './manifest.generated.js';

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

/**
 * The manifest of a command tree: JSON keeps a definition's data and drops its functions (run,
 * parse, flag validators, MCP bounds), which help and dispatch never call.
 */
export function manifestJson(tree: readonly OutlineNode[]): string {
  return JSON.stringify(tree);
}

/** The source of manifest.generated.ts for a command tree. */
export function manifestModule(tree: readonly OutlineNode[]): string {
  return `// Written by scripts/build.mjs from the command definitions (src/commands/manifest.ts); do not edit.
export const MANIFEST_JSON = ${JSON.stringify(manifestJson(tree))};
`;
}
