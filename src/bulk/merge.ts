// `cards report merge`: the reports of one run's shards (`--shard K/N`, one report each) joined
// into one, a line per row in row order. Within a report a row may have several lines (a failed
// row done on a --resume, a done row "skipped" by it): its last line that is not "skipped" is
// its outcome. Shards never share a row, so a row in two reports means reports that do not
// belong together (the same shard twice, shards of different counts, or different runs). A
// shard's report names its run on its first line (src/bulk/report.ts): reports of different runs
// are refused even when they share no row. Reports without that line (written before it existed)
// are told apart by their rows only; two runs of one verb over the same file split the same way
// are one run as far as a report can tell.
import { asRunHeader, describeRun, sameRun, type BulkOutcome, type BulkReportEntry, type BulkRunHeader } from './report.js';

const OUTCOMES: readonly BulkOutcome[] = ['done', 'already', 'skipped', 'failed'];

export class ReportMergeError extends Error {}

export interface MergedReports {
  /** One entry per row, by row number. */
  entries: BulkReportEntry[];
  /** `missing`: rows up to the last one that no report has; `torn`: lines that are not JSON, ignored. */
  counts: Record<BulkOutcome, number> & { rows: number; reports: number; missing: number; torn: number };
}

/** Reads every report whole (the rows must be sorted) and joins them. */
export async function mergeBulkReports(paths: readonly string[]): Promise<MergedReports> {
  const { createReadStream } = await import('node:fs');
  const { readNdjsonRows } = await import('../import/readers.js');
  const rows = new Map<number, { entry: BulkReportEntry; path: string }>();
  let firstRun: { run: BulkRunHeader; path: string } | undefined;
  let torn = 0;
  for (const path of paths) {
    const own = new Map<number, BulkReportEntry>();
    const input = createReadStream(path);
    try {
      for await (const line of readNdjsonRows(input)) {
        const run = line.line === 1 ? asRunHeader(line.value) : undefined;
        if (run) {
          if (firstRun && !sameRun(firstRun.run, run)) {
            throw new ReportMergeError(`${path} is a report of another run than ${firstRun.path}: ${describeRun(run)}, not ${describeRun(firstRun.run)}`);
          }
          firstRun ??= { run, path };
          continue;
        }
        // A line torn by a killed run (a --resume appends after it), as --resume reads it.
        if (line.error !== undefined) {
          torn++;
          continue;
        }
        const entry = line.value as Partial<BulkReportEntry> | null;
        if (!entry || typeof entry !== 'object' || !Number.isInteger(entry.row) || (entry.row as number) < 1 || !OUTCOMES.includes(entry.outcome as BulkOutcome)) {
          throw new ReportMergeError(`${path}: line ${line.line} is not a row of a bulk report (row, outcome done|already|skipped|failed)`);
        }
        const earlier = own.get(entry.row!);
        if (!earlier || entry.outcome !== 'skipped' || earlier.outcome === 'skipped') own.set(entry.row!, entry as BulkReportEntry);
      }
    } finally {
      input.destroy();
    }
    // In row order, so a refusal names the first row the reports share, whatever order they were written in.
    for (const [row, entry] of [...own].sort(([a], [b]) => a - b)) {
      const other = rows.get(row);
      if (other) {
        throw new ReportMergeError(`row ${row} is in both ${other.path} and ${path}: the shards of one run never share a row (the same shard twice, shards of different counts, or reports of different runs?)`);
      }
      rows.set(row, { entry, path });
    }
  }
  const entries = [...rows.keys()].sort((a, b) => a - b).map((row) => rows.get(row)!.entry);
  const counts = { done: 0, already: 0, skipped: 0, failed: 0, rows: entries.length, reports: paths.length, missing: 0, torn };
  for (const entry of entries) counts[entry.outcome]++;
  // A shard not given, or not finished.
  counts.missing = entries.length ? entries[entries.length - 1]!.row - entries.length : 0;
  return { entries, counts };
}
