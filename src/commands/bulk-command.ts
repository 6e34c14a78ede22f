// The bulk form of a card verb (`cards deactivate --from-file ids.txt`): its flags, declared
// once here and spread into each verb, and the run around the bulk runner (src/bulk/runner.ts):
// where the rows come from, --dry-run, the production confirmation, progress, the report, the
// summary and the exit code (8 when any row failed).
import type { Readable } from 'node:stream';
import type { BulkAction, BulkRunResult } from '../bulk/runner.js';
import { formatShard, MAX_SHARDS, parseShardText, type Shard } from '../bulk/shard.js';
import type { Context } from '../contract/context.js';
import { defineFlags, type FlagValues } from '../core/flags.js';
import { CliError, InterruptedError, PartialFailureError, UsageError } from '../core/errors.js';
import { validatePositiveInt } from '../core/validate.js';
import type { SourceRow } from '../bulk/readers.js';
import { BULK_FORMATS } from '../bulk/formats.js';
import { escapeControls, terminalLine } from '../output/format.js';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, concurrencyHelp } from '../bulk/defaults.js';

export const BULK_FLAGS = defineFlags({
  fromFile: { type: 'string', value: 'file', complete: 'file', description: 'act on many cards: ids one a line, or .csv, .ndjson or a .json array; - for stdin' },
  format: { type: 'string', value: 'format', choices: BULK_FORMATS, description: 'format of --from-file (default: its extension, .txt being ids; stdin and pipes are recognised)' },
  concurrency: { type: 'string', value: 'n', description: concurrencyHelp(DEFAULT_CONCURRENCY) },
  report: { type: 'string', value: 'file', complete: 'file', description: 'bulk: NDJSON report: its run (verb, input SHA-256, shard), then a line per row (row, id, outcome done|already|skipped|failed, code, message)' },
  resume: {
    type: 'string', value: 'report', valueOptional: true, complete: 'file',
    description: 'bulk: continue the run of this report (given alone: of the --report file), which must be of this verb, input and shard: rows it records as done are skipped, new lines appended; a report not there yet is started',
  },
  shard: { type: 'string', value: 'k/n', description: 'bulk: only rows k, k+n, k+2n, … (split one file across n runners, one report each)' },
});

export type BulkOptions = FlagValues<typeof BULK_FLAGS>;

/** The bulk flags given, by name: a single-card call names them in its usage error. */
export function bulkFlagsGiven(opts: Partial<BulkOptions>): string[] {
  return (['format', 'concurrency', 'report', 'resume', 'shard'] as const).filter((k) => opts[k] !== undefined).map((k) => `--${k}`);
}

/** What every run over many rows (`import` too) hands the row loop from its flags and context. */
export interface RowRunSettings {
  concurrency: number;
  /** Attempts per row: --no-retry: 1; --retries N: N + 1; otherwise the runner's default (5). */
  maxAttempts?: number;
  /** Ctrl-C. */
  signal: AbortSignal;
}

/** --concurrency, or `defaultConcurrency`: the verb's own when it is not given (src/bulk/defaults.ts). */
export function parseConcurrency(value: string | undefined, defaultConcurrency = DEFAULT_CONCURRENCY): number {
  return value === undefined ? defaultConcurrency : validatePositiveInt('--concurrency', value, MAX_CONCURRENCY);
}

/** The bulk flags that need no file or context, checked (a parse step's part of a bulk run). */
export function checkBulkFlags(opts: Partial<Pick<BulkOptions, 'concurrency' | 'shard'>>, defaultConcurrency = DEFAULT_CONCURRENCY): { concurrency: number; shard?: Shard } {
  return { concurrency: parseConcurrency(opts.concurrency, defaultConcurrency), shard: parseShard(opts.shard) };
}

export function rowRunSettings(ctx: Context, opts: Pick<BulkOptions, 'concurrency'>, defaultConcurrency = DEFAULT_CONCURRENCY): RowRunSettings {
  return {
    concurrency: parseConcurrency(opts.concurrency, defaultConcurrency),
    maxAttempts: ctx.globals.retry === false ? 1 : ctx.globals.retries !== undefined ? ctx.settings().retries + 1 : undefined,
    signal: ctx.signal,
  };
}

/**
 * The report a run writes, and whether it continues an earlier run's: `--resume REPORT`, or
 * `--resume` with `--report FILE` (the two spellings mean the same). Checked before anything is
 * read or sent: a path that is not a file, the input file itself (`input`: its path), and a
 * report that exists without --resume, are refused.
 */
export async function runReport(opts: Pick<BulkOptions, 'report' | 'resume'>, input?: string): Promise<{ path?: string; resume: boolean }> {
  const { report, resume } = opts;
  if (resume === true && report === undefined) throw new UsageError('--resume needs --report FILE, or the report as its value: --resume REPORT');
  if (typeof resume === 'string' && report !== undefined && report !== resume) {
    throw new UsageError('--resume REPORT continues that report: give --resume alone, or the same file to both');
  }
  const path = typeof resume === 'string' ? resume : report;
  if (path === undefined) return { resume: false };
  const flag = resume === undefined ? '--report' : '--resume';
  const { existsSync, statSync } = await import('node:fs');
  if (existsSync(path) && !statSync(path).isFile()) {
    throw new UsageError(`${flag} ${path} is not a regular file`, { hint: 'the report is appended to as rows settle and read back by --resume: give the path of a file' });
  }
  if (input !== undefined && existsSync(path) && existsSync(input)) {
    const [a, b] = [statSync(path), statSync(input)];
    if (a.dev === b.dev && a.ino === b.ino) throw new UsageError(`${flag} ${path} is the input file itself`, { hint: 'the report is a file of its own: give another path' });
  }
  if (resume === undefined && existsSync(path) && statSync(path).size > 0) {
    throw new UsageError(`the report ${path} already exists`, { hint: `pass --resume ${path} to continue that run (rows it records as done are skipped), or choose another --report` });
  }
  return { path, resume: resume !== undefined };
}

export interface BulkCommand<T> {
  /** The verb as the operator says it: "deactivate". */
  verb: string;
  /** For the progress bar: "deactivating". */
  label: string;
  action: BulkAction<T>;
  /** Cards resolved beforehand (--where), instead of --from-file. */
  rows?: { source: string; values: Array<{ id: string }> };
  /** Ask y/N (or want --yes) on a sandbox too, as the single verb does. */
  askOnSandbox?: boolean;
  /** What to pipe into `--from-file -`, with an example, for the hint when stdin gives nothing: "the card ids in, e.g. …". */
  stdinRows: string;
  /** The flag that names the input file, when not --from-file. */
  inputFlag?: string;
  /** A row's column names, when a CSV file may only have these. */
  columns?: readonly string[];
  /** Rows in flight without --concurrency, when not DEFAULT_CONCURRENCY. */
  defaultConcurrency?: number;
}

/** `--shard K/N` (src/bulk/shard.ts has the one rule). */
export function parseShard(value: string | undefined): Shard | undefined {
  if (value === undefined) return undefined;
  const shard = parseShardText(value);
  if (!shard) throw new UsageError(`invalid --shard "${value}": expected K/N, whole numbers with 1 ≤ K ≤ N ≤ ${MAX_SHARDS}, e.g. --shard 1/4`);
  return shard;
}

export async function runBulkCommand<T>(ctx: Context, opts: BulkOptions, command: BulkCommand<T>): Promise<void> {
  const settings = rowRunSettings(ctx, opts, command.defaultConcurrency);
  const shard = parseShard(opts.shard);
  const { createReadStream } = await import('node:fs');
  const { bulkFormatFromPath, readBulkRows, sniffFormat, streamedFile, takeInput, textDigest } = await import('../bulk/input.js');
  const { ImportFileError } = await import('../bulk/readers.js');
  const fromStdin = opts.fromFile === '-';
  const path = command.rows ? undefined : opts.fromFile;
  let streamed = fromStdin || (path !== undefined && await streamedFile(path));
  const { path: reportPath, resume } = await runReport(opts, path && !fromStdin ? path : undefined);
  const source = command.rows?.source ?? (fromStdin ? 'stdin' : path!);

  let bound: import('../bulk/input.js').BoundInput | undefined;
  let stdin: Readable | undefined;
  let digest: string | undefined;
  if (command.rows) {
    // Ids a `--where` listing gave: the report is bound to them, one a line.
    if (reportPath) digest = await textDigest(command.rows.values.map(({ id }) => `${id}\n`).join(''));
  } else {
    const emptyStdin = { flag: command.inputFlag ?? '--from-file', rows: command.stdinRows };
    ({ bound, stdin, streamed } = await takeInput({ path: fromStdin ? undefined : path, stdin: ctx.io.stdin, streamed, emptyStdin }, reportPath));
    digest = bound?.digest;
  }
  const format = opts.format ?? (fromStdin || !path ? undefined : bulkFormatFromPath(path));
  const fileError = (error: unknown): unknown => error instanceof ImportFileError
    ? new UsageError(`${source}: ${error.message}${error.line ? ` (line ${error.line})` : ''}`, { hint: error.hint })
    : error;
  const openRows = async (opened: Readable[]): Promise<AsyncIterable<SourceRow>> => {
    if (command.rows) {
      const values = command.rows.values;
      return (async function* () { for (const [i, value] of values.entries()) yield { line: i + 1, value }; })();
    }
    let input: Readable = bound ? createReadStream(bound.path) : stdin ?? createReadStream(path!);
    if (input !== stdin) opened.push(input);
    let rowsFormat = format;
    if (!rowsFormat) ({ format: rowsFormat, input } = await sniffFormat(input));
    return readBulkRows(input, rowsFormat, { columns: command.columns });
  };
  const rowsFile = bound?.path ?? (streamed || !path ? undefined : path);
  try {
    await runBound(ctx, command, { settings, shard, streamed, fromStdin, source, reportPath, resume, digest, rowsFile, format, fileError, openRows });
  } finally {
    bound?.remove();
  }
}

interface BoundRun {
  settings: RowRunSettings;
  shard?: Shard;
  /** The rows can be read once only (stdin or a pipe without a report). */
  streamed: boolean;
  fromStdin: boolean;
  /** The input as named in messages: a path, "stdin" or "--where …". */
  source: string;
  reportPath?: string;
  resume: boolean;
  /** The SHA-256 of the input, when there is a report to name it in. */
  digest?: string;
  /** The regular file the rows are read from (counted for the progress), when there is one. */
  rowsFile?: string;
  /** The rows' format, unless it is sniffed from their first bytes. */
  format?: import('../bulk/formats.js').BulkFormat;
  fileError(error: unknown): unknown;
  /** The rows, read afresh each time (a regular file may be read twice: counted, then run); streams opened go into `opened`. */
  openRows(opened: Readable[]): Promise<AsyncIterable<SourceRow>>;
}

async function runBound<T>(ctx: Context, command: BulkCommand<T>, prepared: BoundRun): Promise<void> {
  const { settings, shard, streamed, fromStdin, source, reportPath, resume, fileError } = prepared;
  const opened: Readable[] = [];
  const openRows = () => prepared.openRows(opened);
  const { readBulkReport, resumeRefusal, runHeaderLine, RunReportError } = await import('../bulk/report.js');
  // The report names its run on its first line (src/bulk/report.ts says what a run is).
  const run = reportPath ? { verb: command.verb, input: prepared.digest!, ...(shard ? { shard: formatShard(shard) } : {}), source } : undefined;
  let earlier: Awaited<ReturnType<typeof readBulkReport>> | undefined;
  if (resume) {
    try {
      earlier = await readBulkReport(reportPath!, (named) => {
        const refusal = resumeRefusal(reportPath!, named, run!);
        if (refusal) throw new UsageError(refusal, { hint: 'resume a run with the same verb, input and --shard; start a new one with another --report' });
      });
    } catch (error) {
      if (error instanceof RunReportError) throw new UsageError(`--resume ${error.message}`, { hint: 'resume with the report this run wrote, or start a new one with another --report' });
      throw error;
    }
  }
  const done = earlier?.done;
  if (done) ctx.log.info(`resuming: ${done.size} rows already done according to ${reportPath}`);
  const { planBulk, runBulk } = await import('../bulk/runner.js');

  /** Every row checked, nothing sent: the count of rows a run would send, and the invalid ones. */
  const plan = async (onRow?: (row: { row: number; change?: string; error?: string; skipped?: boolean }) => void) => {
    const counts = { rows: 0, valid: 0, invalid: 0, skipped: 0 };
    try {
      for await (const row of planBulk({ rows: await openRows(), action: command.action, shard, done })) {
        counts.rows++;
        if (row.skipped) counts.skipped++;
        else if (row.error !== undefined) counts.invalid++;
        else counts.valid++;
        onRow?.(row);
      }
    } catch (error) {
      throw fileError(error);
    } finally {
      for (const input of opened.splice(0)) input.destroy();
    }
    return counts;
  };

  if (ctx.globals.dryRun) {
    const counts = await plan((row) => {
      if (row.error !== undefined) ctx.io.err(`${terminalLine(`invalid: row ${row.row}: ${row.error}`)}\n`);
      else if (row.change) ctx.io.out(`${terminalLine(`would ${row.change}`)}\n`);
    });
    const summary = `dry run of ${source}: ${counts.rows} rows, ${counts.valid} to ${command.verb}, ${counts.invalid} invalid${counts.skipped ? `, ${counts.skipped} done earlier` : ''}; nothing was sent`;
    if (counts.invalid > 0) throw new PartialFailureError(summary, { hint: 'fix the rows above and run again', details: counts });
    if (!ctx.globals.quiet) ctx.io.err(`${escapeControls(summary)}\n`);
    return;
  }

  const { isProduction, confirmDestructive } = await import('../contract/guard.js');
  if (isProduction(ctx) || command.askOnSandbox) {
    // Production: the operator types the number of cards (counted as a real run would send them).
    const canCount = isProduction(ctx) && !ctx.globals.yes && ctx.io.canPrompt;
    if (canCount && streamed) {
      throw new UsageError(`a bulk ${command.verb} from ${fromStdin ? 'stdin' : 'a pipe'} on production cannot be counted and confirmed on a terminal`, { hint: 'give a file, or pass --yes --confirm-production' });
    }
    const count = canCount ? String((await plan()).valid) : undefined;
    await confirmDestructive(ctx, {
      description: count === undefined ? `${command.verb} the cards of ${source}` : `${command.verb} ${count} card${count === '1' ? '' : 's'} from ${source}`,
      typedConfirmation: count ?? '',
      typedLabel: `the number of cards to ${command.verb}`,
    });
  }

  const { createRowProgress, expectedRows } = await import('../bulk/progress.js');
  const { openReport } = await import('../bulk/import-report.js');
  const quiet = Boolean(ctx.globals.quiet);
  let total = command.rows?.values.length ?? await expectedRows(prepared.rowsFile, prepared.format, quiet);
  if (shard && total) total = Math.ceil(Math.max(0, total - shard.index + 1) / shard.count);
  const progress = await createRowProgress({ label: command.label, stream: ctx.io.stderr, terminal: ctx.io.stderrIsTTY, quiet, total });
  const report = reportPath ? openReport<import('../bulk/report.js').BulkReportEntry | { end: { rows: number } }>(reportPath, resume, runHeaderLine(run!)) : undefined;
  const started = Date.now();
  // An audit entry per card: the entries of one turn of the event loop written together.
  const releaseJournal = (await import('../audit/record.js')).holdJournal();
  let result: BulkRunResult;
  try {
    result = await runBulk({
      ...settings,
      rows: await openRows(),
      action: command.action,
      shard,
      done,
      report,
      onSettled: (_entry, stats) => progress.update(stats.rows, { ok: stats.done + stats.already + stats.skipped, failed: stats.failed }),
    });
    // The input read to the end: the report says how many rows it has (a merge counts on it).
    if (!result.interrupted && !result.fatal && result.readerError === undefined) report?.write({ end: { rows: result.inputRows } });
  } finally {
    releaseJournal();
    progress.stop();
    report?.close();
    for (const input of opened.splice(0)) input.destroy();
  }

  const seconds = (Date.now() - started) / 1000;
  const { stats } = result;
  const summary: import('../bulk/runner.js').BulkSummary = { ...stats, seconds: Math.round(seconds * 1000) / 1000, ...(reportPath ? { report: reportPath } : {}) };
  if (!quiet) {
    for (const p of result.problems.slice(0, 10)) ctx.io.err(`${terminalLine(`failed: row ${p.row}${p.id ? ` (${p.id})` : ''}: ${p.code}: ${p.message}`)}\n`);
    if (stats.failed > 10) ctx.io.err(`… and ${stats.failed - 10} more failed rows (see the report)\n`);
    ctx.io.err(`${command.verb}: done ${stats.done}, already ${stats.already}, skipped ${stats.skipped}, failed ${stats.failed} — ${stats.rows} rows in ${seconds.toFixed(1)} s\n`);
  }
  if (ctx.settings().output === 'json' || ctx.settings().output === 'ndjson') await ctx.output().record(summary);
  const resumeHint = reportPath ? `run again with --resume ${reportPath} to finish` : 'pass --report FILE next time so that --resume can continue';
  if (result.interrupted) {
    const left = total === undefined ? '' : `${Math.max(0, total - stats.rows).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows left; `;
    throw new InterruptedError(`bulk ${command.verb} interrupted: ${left}requests in flight were finished${reportPath ? ' and the report written' : ''}`, {
      hint: reportPath ? `finish with: ${resumeCommand(ctx.argv, reportPath)}` : resumeHint,
      details: summary,
    });
  }
  if (result.fatal) throw result.fatal;
  if (result.readerError) {
    const error = fileError(result.readerError);
    if (stats.rows === 0 && error instanceof CliError) throw error;
    throw new PartialFailureError(`${source}: stopped reading after ${stats.rows} rows: ${(error as Error).message}`, { details: summary, hint: resumeHint });
  }
  if (stats.failed > 0) {
    throw new PartialFailureError(`${stats.failed} of ${stats.rows} rows failed`, {
      hint: reportPath ? `see ${reportPath} for every row; --resume ${reportPath} retries them, a fixed file is a new run with a new --report (rows done come back as already)` : 'pass --report FILE to get every row\'s outcome',
      details: summary,
    });
  }
}


/**
 * The command line that finishes an interrupted run: the one given, with `--report FILE` made
 * `--resume FILE` (a line that has --resume already is the same line again), quoted for a shell.
 */
export function resumeCommand(argv: readonly string[], reportPath: string): string {
  let words = [...argv];
  if (!words.some((word) => word === '--resume' || word.startsWith('--resume='))) {
    const at = words.findIndex((word) => word === '--report' || word.startsWith('--report='));
    if (at >= 0) words.splice(at, words[at] === '--report' ? 2 : 1);
    words = [...words, '--resume', reportPath];
  }
  return ['cardctl', ...words].map(shellWord).join(' ');
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
