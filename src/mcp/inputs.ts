// A command's tool input, derived from its declarations: each positional argument and each flag a
// property of one JSON Schema object (string, integer for a flag whose value is `n`, number for an
// `amount`, boolean, array of strings; choices an enum; a required argument required). Flags that
// are secret, that take a card number, or that are declared `mcp: false` are no inputs: they never
// cross to an assistant. A read tool also takes `fields`; a tool whose command declares row filters
// (McpRule.rowFilters) takes those its flags lack.
import type { AnyCommand, ArgumentSpec, McpRule } from '../contract/command.js';
import { longFlag, REASON_MAX_LENGTH, type FlagSpec, type Flags } from '../core/flags.js';

export interface JsonSchema {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: string[];
  additionalProperties: false;
}

export type PropertySchema =
  | { type: 'string'; description: string; enum?: string[]; maxLength?: number }
  | { type: 'integer' | 'number'; description: string }
  | { type: 'boolean'; description: string }
  | { type: 'array'; description: string; items: { type: 'string'; enum?: string[] }; minItems?: number };

/** One positional argument as a tool input: its property name, and how it is given. */
export interface ArgumentInput {
  property: string;
  required: boolean;
  variadic: boolean;
  /** It names a file (`<scenario-file>`, as the completion scripts read it): confined to the server's directory. */
  path: boolean;
}

/** One flag as a tool input. */
export interface FlagInput {
  key: string;
  /** The flag as typed: `--card-status`. */
  long: string;
  spec: FlagSpec;
  /** Its value names a file or a directory (`complete: 'file' | 'directory'`): confined to the server's directory. */
  path: boolean;
}

/** The projection every read tool takes (the CLI's --fields). */
export const FIELDS_PROPERTY = 'fields';

/** What a path input's description adds: where the file must be. */
const PATH_NOTE = "a path inside the server's working directory";

/** The free text every write tool asks for, kept in the audit journal (bounded like --reason). */
export const REASON_PROPERTY = 'reason';

/** `<card-id>` → cardId, `<report...>` → report. */
export function argumentInput(arg: ArgumentSpec): ArgumentInput {
  const name = arg.syntax.replace(/[<>[\].]/g, '');
  return {
    property: camelCase(name),
    required: arg.syntax.startsWith('<'),
    variadic: arg.syntax.includes('...'),
    path: /file$/i.test(name),
  };
}

/** Whether a flag may be a tool input: never a secret, a card number, or one declared `mcp: false`. */
export function isToolFlag(spec: FlagSpec): boolean {
  if (spec.mcp === false) return false;
  if ('secret' in spec && spec.secret) return false;
  return !(spec.type === 'string' && spec.pan);
}

export function flagInputs(definition: AnyCommand): FlagInput[] {
  const flags: Flags = definition.flags ?? {};
  return Object.entries(flags)
    .filter(([, spec]) => isToolFlag(spec))
    .map(([key, spec]) => ({ key, long: longFlag(key, spec), spec, path: takesPath(spec) }));
}

function takesPath(spec: FlagSpec): boolean {
  return (spec.type === 'string' || spec.type === 'list') && (spec.complete === 'file' || spec.complete === 'directory');
}

function camelCase(kebab: string): string {
  return kebab.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * A flag's help or a command's message, for a model: the flags it names (`--count`) become the
 * tool's property names (`count`), which is what the model can give.
 */
export function forModel(text: string, flags: readonly FlagInput[], others: 'in words' | 'as they are' = 'in words'): string {
  return text
    // Answers are always JSON: what the CLI's help says of -o json is simply what they are.
    .replace(/-o json:?\s*/g, '')
    .replace(/, streamed as it arrives/g, '')
    .replace(/--(no-)?([a-z0-9][a-z0-9-]*)/g, (word, no: string | undefined, name: string) => {
      const flag = flags.find((f) => f.long === `--${name}`);
      // A flag that is no input of the tool (a global one, --dry-run) is named in words in help;
      // a message may be for the person (start the server with --allow-production-writes).
      if (!flag) return others === 'in words' ? name.replace(/-/g, ' ') : word;
      return no ? `${flag.key} false` : flag.key;
    });
}

function flagProperty(input: FlagInput, flags: readonly FlagInput[]): PropertySchema {
  const { spec } = input;
  const description = forModel(input.path ? `${spec.description} (${PATH_NOTE})` : spec.description, flags);
  switch (spec.type) {
    case 'string':
      // `n` is how every flag that takes a whole number names its value, `amount` an amount in major units.
      if (spec.value === 'n' && !spec.choices) return { type: 'integer', description };
      if (spec.value === 'amount' && !spec.choices) return { type: 'number', description };
      return {
        type: 'string',
        description,
        ...(spec.choices ? { enum: [...spec.choices] } : {}),
        ...(spec.maxLength !== undefined ? { maxLength: spec.maxLength } : {}),
      };
    case 'list':
      return { type: 'array', description, items: { type: 'string', ...listChoices(spec) } };
    case 'negated':
      return { type: 'boolean', description: `${description} (true unless given false)` };
    case 'boolean':
      return { type: 'boolean', description };
  }
}

/** A list flag's choices, which some declare (`--channel pos|atm|web`) beyond what ListFlag types. */
function listChoices(spec: FlagSpec): { enum?: string[] } {
  const choices: unknown = 'choices' in spec ? spec.choices : undefined;
  return Array.isArray(choices) && choices.every((c) => typeof c === 'string') ? { enum: choices } : {};
}

/** The input schema of a command's tool; a write tool's also asks for the reason. */
export function inputSchema(definition: AnyCommand, write: boolean): JsonSchema {
  const properties: Record<string, PropertySchema> = {};
  const required: string[] = [];
  const flags = flagInputs(definition);
  for (const arg of definition.args ?? []) {
    const input = argumentInput(arg);
    const description = forModel(input.path ? `${arg.description} (${PATH_NOTE})` : arg.description, flags);
    properties[input.property] = input.variadic
      ? { type: 'array', description, items: { type: 'string' }, ...(input.required ? { minItems: 1 } : {}) }
      : { type: 'string', description };
    if (input.required) required.push(input.property);
  }
  for (const flag of flags) properties[flag.key] = flagProperty(flag, flags);
  for (const [key, filter] of Object.entries(rowFilters(definition))) properties[key] = { type: 'string', description: filter.description };
  if (mcpRule(definition)?.use === 'read' || definition.mcp === 'read') {
    properties[FIELDS_PROPERTY] ??= {
      type: 'array',
      description: 'only these properties (dot paths: card.status); else embedded card, institution, program as ids',
      items: { type: 'string' },
    };
  }
  if (write) {
    properties[REASON_PROPERTY] = { type: 'string', description: 'why this change is made: kept in the audit journal with the call', maxLength: REASON_MAX_LENGTH };
    required.push(REASON_PROPERTY);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function mcpRule(definition: AnyCommand): McpRule | undefined {
  return typeof definition.mcp === 'object' ? definition.mcp : undefined;
}

/** The row filters the tool applies itself: those of the command's declaration its flags do not already give. */
export function rowFilters(definition: AnyCommand): Record<string, { path: string; description: string }> {
  const declared = mcpRule(definition)?.rowFilters ?? {};
  const flags: Flags = definition.flags ?? {};
  return Object.fromEntries(Object.entries(declared).filter(([key]) => !(key in flags)));
}
