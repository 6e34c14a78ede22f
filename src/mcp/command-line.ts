// A tool call → the cardctl command line it runs: the command's path, its flags as `--name=value`
// (so a value that starts with a dash stays a value), `--`, then its positional arguments. The
// global flags every tool run gets are added by the caller (call.ts). Arguments the schema does not
// name, or of the wrong type, are usage errors here, and so is a path outside the server's working
// directory (paths.ts); values are checked by the command's own validators, as on the command line.
import type { ToolFlagValues } from '../contract/command.js';
import { UsageError } from '../core/errors.js';
import { FIELDS_PROPERTY, REASON_PROPERTY, rowFilters } from './inputs.js';
import { confinedPath } from './paths.js';
import type { Tool } from './tools.js';

export interface ToolCommandLine {
  argv: string[];
  /** The flags as the call gave them (what the command's bound checks). */
  flags: ToolFlagValues;
  /** The reason of a write tool. */
  reason?: string;
  /** The `fields` of a read tool: the CLI's --fields, and no compact default. */
  fields?: string[];
  /** The row filters the tool applies itself (McpRule.rowFilters): dot path → the value rows must have. */
  rowFilters?: Array<{ path: string; value: string }>;
}

/** `cwd`: the server's working directory, which every path input must stay in. */
export function toolCommandLine(tool: Tool, input: Record<string, unknown>, cwd: string = process.cwd()): ToolCommandLine {
  const known = new Set(Object.keys(tool.inputSchema.properties));
  const unknown = Object.keys(input).filter((key) => !known.has(key));
  if (unknown.length) {
    throw new UsageError(`${tool.name} has no input ${unknown.map((key) => `"${key}"`).join(', ')}`, { hint: `its inputs: ${[...known].join(', ') || 'none'}` });
  }
  const missing = (tool.inputSchema.required ?? []).filter((key) => input[key] === undefined);
  if (missing.length) throw new UsageError(`${tool.name} needs ${missing.map((key) => `"${key}"`).join(', ')}`);

  const argv = [...tool.path];
  const flags: Record<string, string | boolean | readonly string[] | undefined> = {};
  for (const { key, long, spec, path } of tool.flags) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    switch (spec.type) {
      case 'string': {
        const given = text(tool, key, value);
        const checked = path ? confinedPath(`${tool.name}: "${key}"`, given, cwd) : given;
        argv.push(`${long}=${checked}`);
        flags[key] = checked;
        break;
      }
      case 'list': {
        const values = list(tool, key, value).map((item) => (path ? confinedPath(`${tool.name}: "${key}"`, item, cwd) : item));
        for (const item of values) argv.push(`${long}=${item}`);
        flags[key] = values;
        break;
      }
      case 'boolean': {
        const on = switched(tool, key, value);
        if (on) argv.push(long);
        else if (spec.negation) argv.push(`--no-${long.slice(2)}`);
        flags[key] = on;
        break;
      }
      case 'negated': {
        const on = switched(tool, key, value);
        if (!on) argv.push(`--no-${long.slice(2)}`);
        flags[key] = on;
        break;
      }
    }
  }
  const positional: string[] = [];
  for (const arg of tool.args) {
    const value = input[arg.property];
    if (value === undefined || value === null) continue;
    const values = arg.variadic ? list(tool, arg.property, value) : [text(tool, arg.property, value)];
    positional.push(...(arg.path ? values.map((item) => confinedPath(`${tool.name}: "${arg.property}"`, item, cwd)) : values));
  }
  const filters = Object.entries(rowFilters(tool.definition))
    .filter(([key]) => input[key] !== undefined && input[key] !== null)
    .map(([key, filter]) => ({ path: filter.path, value: text(tool, key, input[key]) }));
  // `fields` is the global --fields, unless the command has a flag of that name (then it is that flag).
  const projected = !tool.flags.some((flag) => flag.key === FIELDS_PROPERTY) && input[FIELDS_PROPERTY] !== undefined && input[FIELDS_PROPERTY] !== null;
  const fields = projected ? list(tool, FIELDS_PROPERTY, input[FIELDS_PROPERTY]) : undefined;
  // The rows are filtered after the projection: it keeps what the filters read.
  if (fields?.length) argv.push(`--fields=${[...new Set([...fields, ...filters.map((filter) => filter.path)])].join(',')}`);
  const reason = tool.use === 'write' ? text(tool, REASON_PROPERTY, input[REASON_PROPERTY]).trim() : undefined;
  if (tool.use === 'write' && !reason) throw new UsageError(`${tool.name} needs a "reason": why the change is made, kept in the audit journal`);
  return {
    argv: positional.length ? [...argv, '--', ...positional] : argv,
    flags,
    ...(reason ? { reason } : {}),
    ...(fields?.length ? { fields } : {}),
    ...(filters.length ? { rowFilters: filters } : {}),
  };
}

function text(tool: Tool, key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  const type = tool.inputSchema.properties[key]?.type;
  throw new UsageError(`${tool.name}: "${key}" must be a ${type === 'integer' ? 'whole number' : type === 'number' ? 'number' : 'string'}`);
}

function list(tool: Tool, key: string, value: unknown): string[] {
  if (!Array.isArray(value)) throw new UsageError(`${tool.name}: "${key}" must be an array of strings`);
  return value.map((item) => text(tool, key, item));
}

function switched(tool: Tool, key: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new UsageError(`${tool.name}: "${key}" must be true or false`);
  return value;
}
