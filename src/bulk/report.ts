// The report of a bulk card run: NDJSON, one entry per row settled, written in batches by the
// import's report writer (src/import/report.ts says how much a killed run can miss, and why
// redoing those rows is safe).
// `row` is the row's number in the input (1 = the first data row), the same in every shard.
import type { ReportWriter } from '../import/report.js';

export type BulkOutcome = 'done' | 'already' | 'skipped' | 'failed';

export interface BulkReportEntry {
  row: number;
  id?: string;
  outcome: BulkOutcome;
  /** Failed rows: the API's error code (or INVALID for a row that was never sent). */
  code?: string;
  message?: string;
  /** What else identifies the row's result (the referenceCode of a created card). */
  [detail: string]: unknown;
}

export type BulkReportWriter = ReportWriter<BulkReportEntry>;

/**
 * The rows an earlier run's report records as done, already done or skipped (--resume). Read
 * like an NDJSON input (strict UTF-8, bounded lines); a torn last line (a killed run) is ignored.
 */
export async function readBulkReport(path: string): Promise<Map<number, BulkReportEntry>> {
  const done = new Map<number, BulkReportEntry>();
  const { existsSync, createReadStream } = await import('node:fs');
  if (!existsSync(path)) return done;
  const { readNdjsonRows } = await import('../import/readers.js');
  const input = createReadStream(path);
  try {
    for await (const line of readNdjsonRows(input)) {
      const entry = line.value as Partial<BulkReportEntry> | undefined;
      if (!entry || typeof entry !== 'object' || typeof entry.row !== 'number') continue;
      if (entry.outcome === 'done' || entry.outcome === 'already' || entry.outcome === 'skipped') done.set(entry.row, entry as BulkReportEntry);
    }
  } finally {
    input.destroy();
  }
  return done;
}
