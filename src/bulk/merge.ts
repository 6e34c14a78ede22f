// `cards report merge`: the reports of one run's shards (`--shard K/N`, one report each) joined
// into one, a line per row in row order. Within a report a row may have several lines (a failed
// row done on a --resume, a done row "skipped" by it): its last line that is not "skipped" is
// its outcome. Every report names its run on its first line (src/bulk/report.ts): the reports
// merged must be of one verb, one input and one split, each shard exactly once, every shard
// given; a row in two reports, or in the report of a shard it is not in, is refused. Rows may
// still be missing: a shard that did not finish has no end line, and the rows it did not settle
// are named (the command exits 8, as for failed rows).
import { BULK_ENTRY, describeRun, readRunReport, type BulkOutcome, type BulkReportEntry, type RunHeader } from './report.js';
import { formatShard, inShard, parseShardText, type Shard } from './shard.js';

export class ReportMergeError extends Error {}

export interface MergedReports {
  /** One entry per row, by row number. */
  entries: BulkReportEntry[];
  /**
   * `missing`: rows of the input that no report has (up to the input's last row when a finished
   * shard says how many there are, else up to the last row reported); `torn`: lines torn by a
   * killed run, ignored.
   */
  counts: Record<BulkOutcome, number> & { rows: number; reports: number; missing: number; torn: number };
  /** The first missing rows (at most MISSING_NAMED), for the message. */
  missingRows: number[];
  /** The shards whose report has no end line: they stopped before the end of the input. */
  unfinished: string[];
}

const MISSING_NAMED = 5;

/** Reads every report whole and joins them. */
export async function mergeBulkReports(paths: readonly string[]): Promise<MergedReports> {
  const rows = new Map<number, { entry: BulkReportEntry; path: string }>();
  const shards = new Map<string, string>();
  let first: { run: RunHeader; shard: Shard; path: string } | undefined;
  let torn = 0;
  let inputRows: { rows: number; path: string } | undefined;
  const unfinished: string[] = [];
  for (const path of paths) {
    const own = new Map<number, BulkReportEntry>();
    let end: number | undefined;
    const read = await readRunReport(path, BULK_ENTRY, (entry) => {
      const earlier = own.get(entry.row);
      if (!earlier || entry.outcome !== 'skipped' || earlier.outcome === 'skipped') own.set(entry.row, entry);
    }, { end: ({ rows: count }) => (end = count) });
    if (!read.run) throw new ReportMergeError(`${path} is empty: not the report of a run`);
    const { run } = read;
    const shard = parseShardText(run.shard ?? '1/1')!;
    if (first && (run.verb !== first.run.verb || run.input !== first.run.input || shard.count !== first.shard.count)) {
      throw new ReportMergeError(`${path} is a report of another run than ${first.path}: ${describeRun(run)}, not ${describeRun(first.run)}`);
    }
    first ??= { run, shard, path };
    const twice = shards.get(formatShard(shard));
    if (twice) throw new ReportMergeError(`${twice} and ${path} are both the report of shard ${formatShard(shard)}: give each shard's report once`);
    shards.set(formatShard(shard), path);
    torn += read.torn;
    if (end === undefined) unfinished.push(formatShard(shard));
    else if (inputRows && inputRows.rows !== end) {
      throw new ReportMergeError(`${path} counts ${end} rows in the input and ${inputRows.path} ${inputRows.rows}: not the reports of one input`);
    } else inputRows ??= { rows: end, path };
    // In row order, so a refusal names the first row the reports share, whatever order they were written in.
    for (const [row, entry] of [...own].sort(([a], [b]) => a - b)) {
      if (!inShard(row, shard)) throw new ReportMergeError(`${path}: row ${row} is not a row of shard ${formatShard(shard)}`);
      const other = rows.get(row);
      if (other) throw new ReportMergeError(`row ${row} is in both ${other.path} and ${path}: the shards of one run never share a row`);
      rows.set(row, { entry, path });
    }
  }
  if (first) {
    const absent = Array.from({ length: first.shard.count }, (_, i) => `${i + 1}/${first!.shard.count}`).filter((k) => !shards.has(k));
    if (absent.length) {
      const { shard: _given, ...whole } = first.run;
      throw new ReportMergeError(`shard${absent.length === 1 ? '' : 's'} ${absent.join(', ')} of the run (${describeRun(whole)}) missing: give every shard's report (given: ${[...shards.keys()].join(', ')})`);
    }
  }
  const entries = [...rows.keys()].sort((a, b) => a - b).map((row) => rows.get(row)!.entry);
  const counts = { done: 0, already: 0, skipped: 0, failed: 0, rows: entries.length, reports: paths.length, missing: 0, torn };
  for (const entry of entries) counts[entry.outcome]++;
  const last = Math.max(inputRows?.rows ?? 0, entries.at(-1)?.row ?? 0);
  const missingRows: number[] = [];
  for (let row = 1; row <= last; row++) {
    if (rows.has(row)) continue;
    counts.missing++;
    if (missingRows.length < MISSING_NAMED) missingRows.push(row);
  }
  return { entries, counts, missingRows, unfinished };
}
