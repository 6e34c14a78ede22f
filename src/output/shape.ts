// A command's OutputShape (src/core/output-format.ts) from what already describes its output:
// its columns (src/output/columns/) and the JSON Schemas of its records (src/api/schemas.ts, or a
// plain list of a summary's keys). With it, --fields is checked before the first request; the
// renderer's check of the records themselves is then not needed.
import { UsageError } from '../core/errors.js';
import type { TSchema } from '@sinclair/typebox';
import type { OutputShape } from '../core/output-format.js';
import { escapeControls } from './format.js';

/** A JSON Schema as far as its property paths go (TypeBox schemas are plain JSON Schema objects). */
interface SchemaNode {
  type?: unknown;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  patternProperties?: Record<string, SchemaNode>;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
  /** Every other keyword (title, format, ...): a TSchema is then a SchemaNode as it stands. */
  [keyword: string]: unknown;
}

/** What a shape reads of a column (src/output/renderer.ts): what --fields may name. */
interface NamedColumn {
  header: string;
  path: string;
}

/** One part of what a command prints: columns, a record's schema, or a summary's keys. */
export type ShapePart = readonly NamedColumn[] | TSchema | { readonly keys: readonly string[] } | 'any';

/** The shape of everything `parts` describe (a command that prints one of several records gives each). */
export function outputShape(...parts: ShapePart[]): OutputShape {
  const paths = new Set<string>();
  const headers = new Set<string>();
  const openPaths = new Set<string>();
  for (const part of parts) {
    if (part === 'any') openPaths.add('');
    else if (isColumns(part)) {
      for (const column of part) {
        addPath(paths, column.path);
        headers.add(column.header);
      }
    } else if (isSummaryKeys(part)) {
      // A summary the command builds: its keys are checked, what is nested in them is not described.
      for (const key of part.keys) {
        addPath(paths, key);
        openPaths.add(key);
      }
    }
    else schemaPaths(part, '', paths, openPaths);
  }
  return { paths: [...paths], headers: [...headers], openPaths: [...openPaths] };
}

/** A command's columns (Array.isArray does not narrow a readonly array, this does). */
function isColumns(part: Exclude<ShapePart, 'any'>): part is readonly NamedColumn[] {
  return Array.isArray(part);
}

/** A summary's list of keys, not a record's schema (a schema's `keys` would not be a list). */
function isSummaryKeys(part: TSchema | { readonly keys: readonly string[] }): part is { readonly keys: readonly string[] } {
  return 'keys' in part && Array.isArray(part.keys);
}

/** A path and each of its parents (`--fields customer` takes the whole object). */
function addPath(paths: Set<string>, path: string): void {
  const keys = path.split('.');
  for (let i = 1; i <= keys.length; i++) paths.add(keys.slice(0, i).join('.'));
}

function schemaPaths(node: SchemaNode, prefix: string, paths: Set<string>, open: Set<string>): void {
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) schemaPaths(branch, prefix, paths, open);
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    paths.add(path);
    schemaPaths(child, path, paths, open);
  }
  // A map (patternProperties, additionalProperties) or a value of any type: whatever is under it.
  const isMap = node.patternProperties !== undefined || (node.additionalProperties !== undefined && node.additionalProperties !== false);
  const isAnything = node.type === undefined && !node.properties && !node.anyOf && !node.oneOf && !node.allOf;
  if (isMap || isAnything) open.add(prefix);
}

/** The --fields names `shape` does not know: neither a path of its records nor a column header. */
export function unknownFields(shape: OutputShape, fields: readonly string[]): string[] {
  const headers = new Set(shape.headers.map((h) => h.toLowerCase()));
  const paths = new Set(shape.paths);
  const underOpen = (field: string) => shape.openPaths.some((open) => open === '' || field === open || field.startsWith(`${open}.`));
  return fields.filter((field) => !paths.has(field) && !headers.has(field.toLowerCase()) && !underOpen(field));
}

/** The usage error for unknown --fields names (exit 2), naming the fields there are. */
export function unknownFieldsError(unknown: readonly string[], known: readonly string[]): UsageError {
  return new UsageError(`unknown field${unknown.length > 1 ? 's' : ''} in --fields: ${unknown.map((field) => `"${field}"`).join(', ')}`, {
    code: 'USAGE_FIELDS',
    hint: `known fields: ${[...new Set(known)].filter(Boolean).map(escapeControls).join(', ')} (dot paths reach into nested objects)`,
  });
}

/** Throws the usage error when a --fields name is not in `shape` (checked before anything is sent). */
export function checkFieldsAgainst(shape: OutputShape, fields: readonly string[]): void {
  const unknown = unknownFields(shape, fields);
  // The top-level names: the nested ones are reached with dot paths, as the hint says.
  if (unknown.length > 0) throw unknownFieldsError(unknown, shape.paths.filter((path) => !path.includes('.')));
}
