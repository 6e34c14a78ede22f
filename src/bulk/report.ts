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
 * The first line of a shard's report (`--shard K/N --report FILE`): the run it belongs to, so that
 * `cards report merge` can refuse the reports of different runs, and --resume a report of another
 * run. A run is one verb over one input split into N shards: `input` is the SHA-256 of the file
 * (none for stdin or a pipe, which cannot be read ahead). `source` (the file as named on that
 * runner) is shown, not compared. Reports written before this line existed have none: they are
 * resumed and merged as before, unchecked.
 */
export interface BulkRunHeader {
  verb: string;
  /** "K/N". */
  shard: string;
  input?: string;
  source: string;
}

/** The header's line: `{"run":{…}}`, a line no row can be (a row has `row`). */
export function runHeaderLine(run: BulkRunHeader): string {
  return `${JSON.stringify({ run })}\n`;
}

/** A report's first line read as a run header, when it is one. */
export function asRunHeader(value: unknown): BulkRunHeader | undefined {
  const run = value && typeof value === 'object' && !('row' in value) ? (value as { run?: unknown }).run : undefined;
  if (!run || typeof run !== 'object') return undefined;
  const { verb, shard, input, source } = run as Record<string, unknown>;
  if (typeof verb !== 'string' || typeof shard !== 'string' || typeof source !== 'string' || (input !== undefined && typeof input !== 'string')) return undefined;
  return { verb, shard, source, ...(input === undefined ? {} : { input }) };
}

/** Whether two shards' headers name one run: the same verb, shard count and input (when both know it). */
export function sameRun(a: BulkRunHeader, b: BulkRunHeader): boolean {
  const count = (shard: string) => shard.slice(shard.indexOf('/') + 1);
  return a.verb === b.verb && count(a.shard) === count(b.shard) && (a.input === undefined || b.input === undefined || a.input === b.input);
}

/** "deactivate, shard 2/4 of ids.txt (sha256:1a2b3c4d…)", for messages. */
export function describeRun(run: BulkRunHeader): string {
  return `${run.verb}, shard ${run.shard} of ${run.source}${run.input ? ` (${run.input.slice(0, 15)}…)` : ''}`;
}

/**
 * The rows an earlier run's report records as done, already done or skipped (--resume), and the
 * run its header names, if it has one. Read like an NDJSON input (strict UTF-8, bounded lines);
 * a torn last line (a killed run) is ignored.
 */
export async function readBulkReport(path: string): Promise<{ done: Map<number, BulkReportEntry>; run?: BulkRunHeader }> {
  const done = new Map<number, BulkReportEntry>();
  let run: BulkRunHeader | undefined;
  const { existsSync, createReadStream } = await import('node:fs');
  if (!existsSync(path)) return { done };
  const { readNdjsonRows } = await import('../import/readers.js');
  const input = createReadStream(path);
  try {
    for await (const line of readNdjsonRows(input)) {
      if (line.line === 1) run = asRunHeader(line.value);
      const entry = line.value as Partial<BulkReportEntry> | undefined;
      if (!entry || typeof entry !== 'object' || typeof entry.row !== 'number') continue;
      if (entry.outcome === 'done' || entry.outcome === 'already' || entry.outcome === 'skipped') done.set(entry.row, entry as BulkReportEntry);
    }
  } finally {
    input.destroy();
  }
  return { done, ...(run ? { run } : {}) };
}
