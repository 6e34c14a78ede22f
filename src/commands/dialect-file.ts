// A deployment dialect file, JSON or YAML (`profile set-dialect FILE|-`, `sandbox serve --dialect FILE`).
import type { DialectOverrides } from '../api/dialect.js';
import type { Context } from '../contract/context.js';
import { UsageError } from '../core/errors.js';

/** A dialect file holds a dozen settings: anything larger is not one. */
const MAX_DIALECT_FILE_BYTES = 64 * 1024;

/** The overrides a dialect file holds (`-`: stdin), or a UsageError naming the file and the setting. */
export async function readDialectFile(ctx: Pick<Context, 'io' | 'signal'>, path: string): Promise<DialectOverrides> {
  if (path !== '-') return dialectFromFile(path);
  const [{ readAll }, { parseDialectFile }] = await Promise.all([import('../core/io.js'), import('../api/dialect.js')]);
  return parseDialectFile(await readAll(ctx.io.stdin, ctx.signal), 'stdin');
}

/** The overrides the dialect file at `path` holds (a parse step's read: no stdin). */
export async function dialectFromFile(path: string): Promise<DialectOverrides> {
  const { readTextFile } = await import('../core/text.js');
  let text: string;
  try {
    text = await readTextFile(path, MAX_DIALECT_FILE_BYTES);
  } catch (error) {
    throw new UsageError(`cannot read dialect file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const { parseDialectFile } = await import('../api/dialect.js');
  return parseDialectFile(text, path);
}
