// A deployment dialect file, JSON or YAML (`profile set-dialect FILE|-`, `sandbox serve --dialect FILE`).
import type { DialectOverrides } from '../api/dialect.js';
import type { Context } from '../contract/context.js';

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
  const { readNamedFile } = await import('../core/text.js');
  const text = await readNamedFile(path, 'dialect file', MAX_DIALECT_FILE_BYTES);
  const { parseDialectFile } = await import('../api/dialect.js');
  return parseDialectFile(text, path);
}
