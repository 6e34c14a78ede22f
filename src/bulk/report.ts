// The report of a run over many rows (`import`, and the bulk card verbs): NDJSON, one entry per
// row settled, written in batches by the import's report writer (src/bulk/import-report.ts says how
// much a killed run can miss, and why redoing those rows is safe).
//
// A report belongs to one verb and one input, and says so on its first line, always:
//   {"run":{"verb":"renew","input":"sha256:<64 hex>","shard":"1/2","source":"renew.csv"}}
// `input` is the SHA-256 of the input's bytes (stdin and pipes are spooled to a private temporary
// file first, so they are hashed like files; `--where` listings: of the ids, one a line);
// `shard` is there only with --shard; `source` (the input as named on that runner) is shown,
// never compared. A bulk run that read its input to the end says so on a last line,
// {"end":{"rows":N}} (N: every row of the input, in its shard or not), so that a merge can tell a
// finished shard from one that stopped. Every other line is a row's entry: `row` is the row's
// number in the input (1 = the first data row), the same in every shard; import's entries have
// `line` (src/bulk/import-report.ts).
import { isObject } from '../core/is-object.js';
import { parseShardText } from './shard.js';

export type BulkOutcome = 'done' | 'already' | 'skipped' | 'failed';
export const BULK_OUTCOMES: readonly BulkOutcome[] = ['done', 'already', 'skipped', 'failed'];

export interface BulkReportEntry {
  row: number;
  id?: string;
  outcome: BulkOutcome;
  /** Failed rows: the API's error code (or INVALID for a row not sent). */
  code?: string;
  message?: string;
  /** What else identifies the row's result (the referenceCode of a created card). */
  [detail: string]: unknown;
}

/** The run a report belongs to: its first line. */
export interface RunHeader {
  verb: string;
  /** "sha256:<64 hex>" of the input's bytes. */
  input: string;
  /** "K/N", canonical (src/bulk/shard.ts); absent when the run was not sharded. */
  shard?: string;
  source: string;
}

/** The last line of a bulk run that read its whole input: how many rows it has. */
export interface RunEnd {
  rows: number;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The header's line: `{"run":{…}}`, a line no row can be (a row has `row` or `line`). */
export function runHeaderLine(run: RunHeader): string {
  const { verb, input, shard, source } = run;
  return `${JSON.stringify({ run: { verb, input, ...(shard === undefined ? {} : { shard }), source } })}\n`;
}

/** A line read as a run header, when it is one: every field present and well formed, no others. */
export function parseRunHeader(value: unknown): RunHeader | undefined {
  if (!isObject(value) || Object.keys(value).length !== 1 || !isObject(value.run)) return undefined;
  const { verb, input, shard, source, ...rest } = value.run;
  if (Object.keys(rest).length || typeof verb !== 'string' || !/^[a-z][a-z -]*$/.test(verb) || typeof source !== 'string') return undefined;
  if (typeof input !== 'string' || !DIGEST.test(input)) return undefined;
  if (shard !== undefined && (typeof shard !== 'string' || !parseShardText(shard))) return undefined;
  return { verb, input, ...(shard === undefined ? {} : { shard: shard as string }), source };
}

/** A line read as a run's end line, when it is one. */
export function parseRunEnd(value: unknown): RunEnd | undefined {
  if (!isObject(value) || Object.keys(value).length !== 1 || !isObject(value.end)) return undefined;
  const { rows } = value.end;
  return Number.isInteger(rows) && (rows as number) >= 0 && Object.keys(value.end).length === 1 ? { rows: rows as number } : undefined;
}

/** A bulk report's row entry, when the value is one. */
export function isBulkEntry(value: unknown): value is BulkReportEntry {
  return isObject(value) && Number.isInteger(value.row) && (value.row as number) >= 1
    && BULK_OUTCOMES.includes(value.outcome as BulkOutcome) && (value.id === undefined || typeof value.id === 'string');
}

/** "deactivate, shard 2/4 of ids.txt (sha256:1a2b3c4d…)", for messages. */
export function describeRun(run: RunHeader): string {
  return `${run.verb}${run.shard ? `, shard ${run.shard}` : ''} of ${run.source} (${run.input.slice(0, 15)}…)`;
}

/** A report that cannot be read as a report of a run: the message names the file and the line. */
export class RunReportError extends Error {}

/**
 * Reads a report line by line: its header, then each entry (`isEntry`) in order, and end lines.
 * Throws RunReportError for a report whose first line names no run, and for any line that is not
 * a report line, except a line torn by a killed run (a prefix of an entry's JSON, `tornPrefix`),
 * which is counted and skipped. An empty or absent file has no header: `run` is undefined.
 * `on.run` sees the header before any other line is read (a caller refusing another run's
 * report says so first); `on.end` each end line.
 */
export async function readRunReport<E>(
  path: string,
  entryOf: { isEntry: (value: unknown) => value is E; tornPrefix: string; what: string },
  onEntry: (entry: E) => void,
  on: { run?: (run: RunHeader) => void; end?: (end: RunEnd) => void } = {},
): Promise<{ run?: RunHeader; torn: number }> {
  const { existsSync, createReadStream, statSync } = await import('node:fs');
  if (!existsSync(path)) return { torn: 0 };
  const { readLines, ImportFileError } = await import('./readers.js');
  const input = createReadStream(path);
  let run: RunHeader | undefined;
  let torn = 0;
  try {
    for await (const { line, text } of readLines(input, {}, 'the report line')) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        if (run && (text.startsWith(entryOf.tornPrefix) || entryOf.tornPrefix.startsWith(text))) {
          torn++;
          continue;
        }
        throw new RunReportError(`${path}: line ${line} is not JSON, so not a line of a report`);
      }
      if (line === 1 || !run) {
        run = parseRunHeader(value);
        if (!run) throw new RunReportError(`${path} is not the report of a run: its first line does not name one ({"run":{"verb":…,"input":"sha256:…"}})`);
        on.run?.(run);
        continue;
      }
      if (entryOf.isEntry(value)) onEntry(value);
      else {
        const end = parseRunEnd(value);
        if (!end) throw new RunReportError(`${path}: line ${line} is not a line of ${entryOf.what}`);
        on.end?.(end);
      }
    }
  } catch (error) {
    if (error instanceof ImportFileError) throw new RunReportError(`${path}: ${error.message}${error.line ? ` (line ${error.line})` : ''}`);
    throw error;
  } finally {
    input.destroy();
  }
  // Blank lines only: nothing a report's header could be written after.
  if (!run && statSync(path).size > 0) throw new RunReportError(`${path} is not the report of a run: it has only blank lines`);
  return { ...(run ? { run } : {}), torn };
}

/** How a bulk report's lines are told apart from other lines. */
export const BULK_ENTRY = { isEntry: isBulkEntry, tornPrefix: '{"row":', what: 'a bulk report (row, outcome done|already|skipped|failed)' };

/**
 * The rows an earlier run's report records as done, already done or skipped (--resume), and the
 * run its header names. Strict (readRunReport): a file that is not such a report throws.
 */
export async function readBulkReport(path: string, onRun?: (run: RunHeader) => void): Promise<{ done: Map<number, BulkReportEntry>; run?: RunHeader }> {
  const done = new Map<number, BulkReportEntry>();
  const { run } = await readRunReport(path, BULK_ENTRY, (entry) => {
    if (entry.outcome !== 'failed') done.set(entry.row, entry);
  }, { run: onRun });
  return { done, ...(run ? { run } : {}) };
}

/**
 * Why `--resume` may not continue the report `path` with this run, or undefined when it may: a
 * report names one verb, one input and one shard, and this run must be that one.
 */
export function resumeRefusal(path: string, earlier: RunHeader, current: RunHeader): string | undefined {
  const differs = [
    earlier.verb !== current.verb && `its verb is ${earlier.verb}, not ${current.verb}`,
    earlier.input !== current.input && `its input is another (${earlier.input.slice(0, 15)}…, not ${current.input.slice(0, 15)}…: another file, or this one edited)`,
    earlier.shard !== current.shard && `its shard is ${earlier.shard ?? 'none'}, not ${current.shard ?? 'none'}`,
  ].filter(Boolean);
  return differs.length ? `--resume ${path} is the report of another run (${describeRun(earlier)}): ${differs.join('; ')}` : undefined;
}
