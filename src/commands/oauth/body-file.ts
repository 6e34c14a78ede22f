// `--from-file FILE|-`: a JSON object whose fields flags may override (shared by oauth and users).
import type { Context } from '../../app/context.js';
import { UsageError } from '../../core/errors.js';

export async function readBodyFile(ctx: Context, path: string | undefined): Promise<Record<string, unknown>> {
  if (path === undefined) return {};
  let text: string;
  if (path === '-') {
    const { readAll } = await import('../../core/io.js');
    text = await readAll(ctx.io.stdin);
  } else {
    const { readTextFile } = await import('../../core/text.js');
    try {
      text = await readTextFile(path);
    } catch (error) {
      throw new UsageError(`cannot read --from-file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
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
