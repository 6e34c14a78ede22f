// A tool call → the cardctl command line it runs: the command's path, its flags as `--name=value`
// (so a value that starts with a dash stays a value), `--`, then its positional arguments. The
// global flags every tool run gets are added by the caller (call.ts). Arguments the schema does not
// name, or of the wrong type, are usage errors here; values are checked by the command's own
// validators, as on the command line.
import type { ToolFlagValues } from '../contract/command.js';
import { UsageError } from '../core/errors.js';
import { REASON_PROPERTY } from './inputs.js';
import type { Tool } from './tools.js';

export interface ToolCommandLine {
  argv: string[];
  /** The flags as the call gave them (what the command's bound checks). */
  flags: ToolFlagValues;
  /** The reason of a write tool. */
  reason?: string;
}

export function toolCommandLine(tool: Tool, input: Record<string, unknown>): ToolCommandLine {
  const known = new Set(Object.keys(tool.inputSchema.properties));
  const unknown = Object.keys(input).filter((key) => !known.has(key));
  if (unknown.length) {
    throw new UsageError(`${tool.name} has no input ${unknown.map((key) => `"${key}"`).join(', ')}`, { hint: `its inputs: ${[...known].join(', ') || 'none'}` });
  }
  const missing = (tool.inputSchema.required ?? []).filter((key) => input[key] === undefined);
  if (missing.length) throw new UsageError(`${tool.name} needs ${missing.map((key) => `"${key}"`).join(', ')}`);

  const argv = [...tool.path];
  const flags: Record<string, string | boolean | readonly string[] | undefined> = {};
  for (const { key, long, spec } of tool.flags) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    switch (spec.type) {
      case 'string':
        argv.push(`${long}=${text(tool, key, value)}`);
        flags[key] = text(tool, key, value);
        break;
      case 'list': {
        const values = list(tool, key, value);
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
    positional.push(...(arg.variadic ? list(tool, arg.property, value) : [text(tool, arg.property, value)]));
  }
  const reason = tool.use === 'write' ? text(tool, REASON_PROPERTY, input[REASON_PROPERTY]).trim() : undefined;
  if (tool.use === 'write' && !reason) throw new UsageError(`${tool.name} needs a "reason": why the change is made, kept in the audit journal`);
  return { argv: positional.length ? [...argv, '--', ...positional] : argv, flags, ...(reason ? { reason } : {}) };
}

function text(tool: Tool, key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new UsageError(`${tool.name}: "${key}" must be a string`);
}

function list(tool: Tool, key: string, value: unknown): string[] {
  if (!Array.isArray(value)) throw new UsageError(`${tool.name}: "${key}" must be an array of strings`);
  return value.map((item) => text(tool, key, item));
}

function switched(tool: Tool, key: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new UsageError(`${tool.name}: "${key}" must be true or false`);
  return value;
}
