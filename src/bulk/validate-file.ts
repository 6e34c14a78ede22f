// `import --dry-run`, and the row count a production import must confirm: the whole file is read
// and every row checked exactly as a real run would, with nothing sent.
import type { SourceRow } from './readers.js';
import { realIdOf, validateImportRow, type RowDefaults } from './row.js';

export interface RowProblem {
  line: number;
  realId?: string;
  error: string;
}

export interface FileVerdict {
  rows: number;
  /** Rows a real run would send. */
  valid: number;
  invalid: number;
  /** Valid rows an earlier run already imported (--resume). */
  skipped: number;
  /** The first MAX_PROBLEMS_KEPT invalid rows (every one goes to `onProblem`). */
  problems: RowProblem[];
}

/** Invalid rows kept in the verdict; more are counted and passed to `onProblem` only, so memory stays flat. */
export const MAX_PROBLEMS_KEPT = 1_000;

export async function validateImportFile(
  rows: AsyncIterable<SourceRow>,
  options: { defaults?: RowDefaults; allowWeakPin?: boolean; now?: Date; done?: ReadonlyMap<string, unknown>; onProblem?: (problem: RowProblem) => void } = {},
): Promise<FileVerdict> {
  const verdict: FileVerdict = { rows: 0, valid: 0, invalid: 0, skipped: 0, problems: [] };
  const seen = new Set<string>();
  const invalid = (line: number, realId: string | undefined, error: string) => {
    verdict.invalid++;
    const problem = { line, ...(realId ? { realId } : {}), error };
    if (verdict.problems.length < MAX_PROBLEMS_KEPT) verdict.problems.push(problem);
    options.onProblem?.(problem);
  };
  for await (const row of rows) {
    verdict.rows++;
    if (row.error !== undefined) {
      invalid(row.line, realIdOf(row.value), row.error);
      continue;
    }
    const checked = validateImportRow(row.value, { text: row.text, defaults: options.defaults, allowWeakPin: options.allowWeakPin, now: options.now });
    if (!checked.ok) {
      invalid(row.line, realIdOf(row.value), checked.errors.join('; '));
      continue;
    }
    const realId = checked.body.realId;
    if (options.done?.has(realId)) {
      verdict.skipped++;
      continue;
    }
    if (seen.has(realId)) {
      invalid(row.line, realId, `realId: "${realId}" appears earlier in this file`);
      continue;
    }
    seen.add(realId);
    verdict.valid++;
  }
  return verdict;
}
