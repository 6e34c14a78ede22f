// A command's tool input, derived from its declarations: each positional argument and each flag a
// property of one JSON Schema object (string, boolean, array of strings; choices an enum; a
// required argument required). Flags that are secret, that take a card number, or that are
// declared `mcp: false` are no inputs: they never cross to an assistant.
import type { AnyCommand, ArgumentSpec } from '../contract/command.js';
import { longFlag, REASON_MAX_LENGTH, type FlagSpec, type Flags } from '../core/flags.js';

export interface JsonSchema {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: string[];
  additionalProperties: false;
}

export type PropertySchema =
  | { type: 'string'; description: string; enum?: string[]; maxLength?: number }
  | { type: 'boolean'; description: string }
  | { type: 'array'; description: string; items: { type: 'string'; enum?: string[] }; minItems?: number };

/** One positional argument as a tool input: its property name, and how it is given. */
export interface ArgumentInput {
  property: string;
  required: boolean;
  variadic: boolean;
}

/** One flag as a tool input. */
export interface FlagInput {
  key: string;
  /** The flag as typed: `--card-status`. */
  long: string;
  spec: FlagSpec;
}

/** The free text every write tool asks for, kept in the audit journal (bounded like --reason). */
export const REASON_PROPERTY = 'reason';

/** `<card-id>` → cardId, `<report...>` → report. */
export function argumentInput(arg: ArgumentSpec): ArgumentInput {
  const name = arg.syntax.replace(/[<>[\].]/g, '');
  return {
    property: name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase()),
    required: arg.syntax.startsWith('<'),
    variadic: arg.syntax.includes('...'),
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
    .map(([key, spec]) => ({ key, long: longFlag(key, spec), spec }));
}

function flagProperty(spec: FlagSpec, long: string): PropertySchema {
  const description = `${long}: ${spec.description}`;
  switch (spec.type) {
    case 'string':
      return {
        type: 'string',
        description,
        ...(spec.choices ? { enum: [...spec.choices] } : {}),
        ...(spec.maxLength !== undefined ? { maxLength: spec.maxLength } : {}),
      };
    case 'list':
      return { type: 'array', description, items: { type: 'string', ...listChoices(spec) } };
    case 'negated':
      return { type: 'boolean', description: `${spec.description} (false gives ${long.replace(/^--/, '--no-')})` };
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
  for (const arg of definition.args ?? []) {
    const input = argumentInput(arg);
    properties[input.property] = input.variadic
      ? { type: 'array', description: arg.description, items: { type: 'string' }, ...(input.required ? { minItems: 1 } : {}) }
      : { type: 'string', description: arg.description };
    if (input.required) required.push(input.property);
  }
  for (const { key, long, spec } of flagInputs(definition)) properties[key] = flagProperty(spec, long);
  if (write) {
    properties[REASON_PROPERTY] = { type: 'string', description: 'why this change is made: kept in the audit journal with the call', maxLength: REASON_MAX_LENGTH };
    required.push(REASON_PROPERTY);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}
