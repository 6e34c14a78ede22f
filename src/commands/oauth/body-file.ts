// `--from-file FILE|-`: a JSON object whose fields flags may override (shared by oauth and users).
import type { Context } from '../../contract/context.js';
import { UsageError } from '../../core/errors.js';

export async function readBodyFile(ctx: Pick<Context, 'io'>, path: string | undefined): Promise<Record<string, unknown>> {
  if (path === undefined) return {};
  if (path !== '-') return bodyFromFile(path);
  const { readAll } = await import('../../core/io.js');
  return bodyObject(await readAll(ctx.io.stdin), path);
}

/** The body in the file at `path` (a parse step's read: no stdin); `keys`: the fields it may hold. */
export async function bodyFromFile(path: string, keys?: ReadonlySet<string>): Promise<Record<string, unknown>> {
  const { readNamedFile } = await import('../../core/text.js');
  const text = await readNamedFile(path, '--from-file');
  const body = bodyObject(text, path);
  if (keys) checkBodyKeys(body, keys);
  return body;
}

/** A --from-file body holds only the request's fields. */
export function checkBodyKeys(body: Record<string, unknown>, keys: ReadonlySet<string>): void {
  for (const key of Object.keys(body)) if (!keys.has(key)) throw new UsageError(`--from-file: unknown field "${key}"`);
}

function bodyObject(text: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new UsageError(`--from-file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`--from-file ${path} must hold one JSON object (the request body)`);
  }
  return value as Record<string, unknown>;
}

/** Text from a file body field, or a usage error naming the field. */
export function bodyString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new UsageError(`--from-file: "${key}" must be text`);
  return value;
}

export function bodyStrings(body: Record<string, unknown>, key: string): string[] | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new UsageError(`--from-file: "${key}" must be an array of text`);
  return value as string[];
}

export function bodyBoolean(body: Record<string, unknown>, key: string): boolean | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new UsageError(`--from-file: "${key}" must be true or false`);
  return value;
}
