// The tools of `cardctl mcp`, derived from the command tree: a leaf is a tool when its `mcp`
// declaration says so (src/contract/command.ts McpUse), named after its path (`cards pin reset` →
// `cards_pin_reset`), described for a model (what it does, when to use it, what it returns: not the
// CLI's help, which is about terminals and pipes), with an input schema from its arguments and
// flags (inputs.ts). Which of them a server offers depends on the profile and the server's flags (scope).
import { isGroup, type AnyCommand, type GroupDefinition, type McpUse, type ToolFlagValues } from '../contract/command.js';
import { argumentInput, flagInputs, inputSchema, type ArgumentInput, type FlagInput, type JsonSchema } from './inputs.js';

export type ToolUse = Exclude<McpUse, 'never'>;

export interface Tool {
  /** The command path joined by `_`, hyphens too: `cards_customer_update`, `simulate_authorization`. */
  name: string;
  /** The words of the command line: ['cards', 'customer', 'update']. */
  path: string[];
  /** The top-level group: what --allow-write names. */
  group: string;
  use: ToolUse;
  description: string;
  inputSchema: JsonSchema;
  args: ArgumentInput[];
  flags: FlagInput[];
  /** The command's bounds on an assistant's call (McpRule), if any: may add flags the run keeps them with. */
  bound?(flags: ToolFlagValues): ToolFlagValues | void;
  definition: AnyCommand;
}

/** What the server may offer: simulations on a sandbox, writes of the groups --allow-write names. */
export interface ToolScope {
  sandbox: boolean;
  writeGroups: ReadonlySet<string>;
}

type Node = AnyCommand | GroupDefinition;

/** A leaf's declaration: undefined when it has none (test/unit/mcp-tools.test.ts fails on that). */
export function useOf(definition: AnyCommand): McpUse | undefined {
  const declared = definition.mcp;
  return typeof declared === 'object' ? declared.use : declared;
}

/** Every leaf with its path, in the order `cardctl --help` lists them. */
export function leaves(tree: readonly Node[], path: string[] = []): Array<{ path: string[]; definition: AnyCommand }> {
  return tree.flatMap((node) => (isGroup(node) ? leaves(node.commands, [...path, node.name]) : [{ path: [...path, node.name], definition: node }]));
}

export function toolName(path: readonly string[]): string {
  return path.join('_').replace(/-/g, '_');
}

/** Every command that can be a tool, whatever the scope. */
export function commandTools(tree: readonly Node[]): Tool[] {
  const tools: Tool[] = [];
  for (const { path, definition } of leaves(tree)) {
    const use = useOf(definition);
    if (use === undefined || use === 'never') continue;
    const rule = typeof definition.mcp === 'object' ? definition.mcp : undefined;
    tools.push({
      name: toolName(path),
      path,
      group: path[0]!,
      use,
      description: describe(definition, use),
      inputSchema: inputSchema(definition, use === 'write'),
      args: (definition.args ?? []).map(argumentInput),
      flags: flagInputs(definition),
      ...(rule?.bound ? { bound: rule.bound } : {}),
      definition,
    });
  }
  return tools;
}

/** The tools a server offers in this scope. */
export function toolsInScope(tools: readonly Tool[], scope: ToolScope): Tool[] {
  return tools.filter((tool) => tool.use === 'read'
    || (tool.use === 'simulate' && scope.sandbox)
    || (tool.use === 'write' && scope.writeGroups.has(tool.group)));
}

/** The groups --allow-write may name: the top-level groups that hold a write command. */
export function writeGroupNames(tools: readonly Tool[]): string[] {
  return [...new Set(tools.filter((tool) => tool.use === 'write').map((tool) => tool.group))];
}

const USE_NOTE: Record<ToolUse, string> = {
  read: 'Reads only.',
  simulate: 'Sandbox only (never a real deployment); at most 60 s.',
  write: 'Changes the deployment; recorded in the audit journal with the reason given.',
};

/** What it does (the summary), when to use it (the declaration's `about`), what kind of tool, what it returns. */
function describe(definition: AnyCommand, use: ToolUse): string {
  const about = typeof definition.mcp === 'object' && definition.mcp.about ? ` ${definition.mcp.about}` : '';
  const paged = Boolean(definition.flags && 'page' in definition.flags);
  const returns = paged
    ? 'Returns a JSON array: one page (page, limit; all for every page).'
    : 'Returns JSON.';
  return `${capitalize(definition.summary)}.${about} ${USE_NOTE[use]} ${returns}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
