// `import --from-file`: the file bound to its report, checked, confirmed in production, and its rows sent.
import type { Context } from '../contract/context.js';
import { CliError, InterruptedError, PartialFailureError, UsageError } from '../core/errors.js';
import { resumeCommand, runReport, type RowRunSettings } from './bulk-command.js';
import type { ImportFormat, SourceRow } from '../bulk/readers.js';
import type { ReportEntry } from '../bulk/import-report.js';
import type { ImportRunResult, ImportStats, SendResult } from '../bulk/import-runner.js';
import { requireApiKey, type ImportOptions } from './import-common.js';
import { escapeControls, terminalLine } from '../output/format.js';

/** What `--from-file -` takes (the hint when stdin gives nothing). */
const IMPORT_STDIN_ROWS = 'CSV or NDJSON rows in, one card a row, e.g. cat cards.ndjson | cardctl import --from-file - --format ndjson';

/** The file's format: --format, else its extension (stdin needs --format). */
export async function importFormat(opts: Pick<ImportOptions, 'fromFile' | 'format'>): Promise<ImportFormat> {
  const { formatFromPath } = await import('../bulk/readers.js');
  const fromStdin = opts.fromFile === '-';
  const format = opts.format ?? (fromStdin ? undefined : formatFromPath(opts.fromFile!));
  if (!format) {
    throw new UsageError(fromStdin
      ? '--from-file - needs --format csv|ndjson|json'
      : `cannot tell the format of ${opts.fromFile} from its extension`, { hint: 'name it .csv, .ndjson or .json, or pass --format' });
  }
  return format;
}

export async function importFile(ctx: Context, opts: ImportOptions, run: { settings: RowRunSettings; institutionId?: string; format: ImportFormat }): Promise<void> {
  const { format } = run;
  const fromStdin = opts.fromFile === '-';
  const { streamedFile, takeInput } = await import('../bulk/input.js');
  const path = fromStdin ? undefined : opts.fromFile!;
  const { path: reportPath, resume } = await runReport(opts, path);
  const { bound, stdin, streamed } = await takeInput({
    path, stdin: ctx.io.stdin, streamed: path === undefined || await streamedFile(path), emptyStdin: { flag: '--from-file', rows: IMPORT_STDIN_ROWS },
  }, reportPath);
  try {
    await importBound(ctx, opts, run, { format, streamed, reportPath, resume, bound, stdin });
  } finally {
    bound?.remove();
  }
}

async function importBound(
  ctx: Context, opts: ImportOptions, run: { settings: RowRunSettings; institutionId?: string },
  input: { format: ImportFormat; streamed: boolean; reportPath?: string; resume: boolean; bound?: import('../bulk/input.js').BoundInput; stdin?: import('node:stream').Readable },
): Promise<void> {
  const { format, streamed, reportPath, resume, bound } = input;
  const fromStdin = opts.fromFile === '-';
  const { readImportRows, ImportFileError } = await import('../bulk/readers.js');
  const { createReadStream } = await import('node:fs');
  /** The rows' bytes: the bound file when there is one, else the file or stdin (read once). */
  const openInput = () => bound ? createReadStream(bound.path) : input.stdin ?? createReadStream(opts.fromFile!);
  const { openReport, readReport: readReportFile } = await import('../bulk/import-report.js');
  const { resumeRefusal, runHeaderLine, RunReportError } = await import('../bulk/report.js');
  const header = reportPath ? { verb: 'import', input: bound!.digest, source: fromStdin ? 'stdin' : opts.fromFile! } : undefined;
  const readReport = async (path: string) => {
    try {
      return await readReportFile(path, (earlier) => {
        const refusal = resumeRefusal(path, earlier, header!);
        if (refusal) throw new UsageError(refusal, { hint: 'resume the import of the same file; start a new one with another --report' });
      });
    } catch (error) {
      if (error instanceof RunReportError) throw new UsageError(`--resume ${error.message}`, { hint: 'resume with the report of this import, or start a new one with another --report' });
      throw error;
    }
  };
  const { IMPORT_FIELD_PATHS } = await import('../bulk/row.js');
  const validateAll = async (done?: ReadonlyMap<string, unknown>, onProblem?: (p: import('../bulk/validate-file.js').RowProblem) => void) => {
    const { validateImportFile } = await import('../bulk/validate-file.js');
    const source = openInput();
    try {
      return await validateImportFile(readImportRows(source, format, { columns: IMPORT_FIELD_PATHS, encoding: opts.encoding }) as AsyncIterable<SourceRow>, { defaults: { institutionId: run.institutionId }, allowWeakPin: opts.allowWeakPin, now: ctx.clock.now(), done, onProblem });
    } catch (error) {
      if (error instanceof ImportFileError) throw new UsageError(`${opts.fromFile}: ${error.message}${error.line ? ` (line ${error.line})` : ''}`, { hint: error.hint });
      throw error;
    } finally {
      if (source !== input.stdin) source.destroy();
    }
  };
  if (ctx.globals.dryRun) {
    // Each invalid row is printed as it is found; the verdict keeps only the first ones.
    const printProblem = (p: import('../bulk/validate-file.js').RowProblem) => ctx.io.err(`${terminalLine(`invalid: line ${p.line}${p.realId ? ` (${p.realId})` : ''}: ${p.error}`)}\n`);
    return dryRunFile(ctx, opts, await validateAll(resume ? (await readReport(reportPath!)).done : undefined, printProblem));
  }
  requireApiKey(ctx);
  const { isProduction, confirmDestructive } = await import('../contract/guard.js');
  if (isProduction(ctx)) {
    if (!ctx.globals.yes && ctx.io.canPrompt && streamed) {
      throw new UsageError(`an import from ${fromStdin ? 'stdin' : 'a pipe'} into production cannot be counted and confirmed on a terminal`, { hint: 'import from a file, or pass --yes --confirm-production' });
    }
    const count = !ctx.globals.yes && ctx.io.canPrompt
      ? String((await validateAll(resume ? (await readReport(reportPath!)).done : undefined)).valid)
      : undefined;
    await confirmDestructive(ctx, {
      description: count === undefined ? `import the cards of ${opts.fromFile}` : `import ${count} card${count === '1' ? '' : 's'} from ${opts.fromFile}`,
      typedConfirmation: count ?? '',
      typedLabel: 'the number of cards to import',
    });
  }

  const { runImport, outcomeLabel } = await import('../bulk/import-runner.js');
  const { createRowProgress, expectedRows } = await import('../bulk/progress.js');
  const { importCard, cardIdOf, findImportedCard } = await import('../api/import.js');

  const resumeState = resume ? await readReport(reportPath!) : undefined;
  if (resumeState) ctx.log.info(`resuming: ${resumeState.done.size} rows already imported according to ${reportPath}`);
  const client = (await ctx.client()).withReason(opts.reason);
  const rows = openInput();
  const quiet = Boolean(ctx.globals.quiet);
  const total = await expectedRows(streamed ? undefined : bound?.path ?? opts.fromFile, format, quiet);
  const progress = await createRowProgress({ label: 'importing', stream: ctx.io.stderr, terminal: ctx.io.stderrIsTTY, quiet, total });
  const report = reportPath ? openReport(reportPath, resume, runHeaderLine(header!)) : undefined;
  const started = Date.now();
  let result: ImportRunResult;
  try {
    result = await runImport({
      ...run.settings,
      rows: readImportRows(rows, format, { columns: IMPORT_FIELD_PATHS, encoding: opts.encoding }) as AsyncIterable<SourceRow>,
      defaults: { institutionId: run.institutionId },
      allowWeakPin: opts.allowWeakPin,
      now: ctx.clock.now(),
      done: resumeState?.done,
      report,
      async send(body, signal) {
        const response = await importCard(client, body, signal);
        return { cardId: cardIdOf(response.data), card: response.data };
      },
      async lookup(realId, signal): Promise<SendResult | undefined> {
        const card = await findImportedCard(client, realId, signal);
        return card ? { cardId: cardIdOf(card), card } : undefined;
      },
      onSettled: (_entry, stats) => progress.update(stats.rows, { ok: stats.imported + stats.exists + stats.skipped, invalid: stats.invalid, failed: stats.failed }),
    });
  } finally {
    progress.stop();
    report?.close();
    if (rows !== input.stdin) rows.destroy();
  }

  const seconds = (Date.now() - started) / 1000;
  printProblems(ctx, result.problems, result.stats, outcomeLabel);
  const summary = summaryOf(result.stats, seconds, reportPath);
  if (!quiet) ctx.io.err(`${summaryLine(result.stats, seconds)}\n`);
  if (ctx.settings().output === 'json' || ctx.settings().output === 'ndjson') await ctx.output().record(summary);

  if (result.interrupted) {
    // Reported as it is (the entry point keeps an InterruptedError's words): how to go on, exactly.
    const left = total === undefined ? '' : `${Math.max(0, total - result.stats.rows).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows left; `;
    throw new InterruptedError(`import interrupted: ${left}requests in flight were finished${reportPath ? ' and the report written' : ''}`, {
      hint: reportPath ? `finish with: ${resumeCommand(ctx.argv, reportPath)}` : 'pass --report FILE next time so that --resume can continue an interrupted import',
      details: summary,
    });
  }
  if (result.fatal) throw result.fatal;
  if (result.readerError) {
    const error = result.readerError;
    if (error instanceof ImportFileError) {
      const where = error.line ? ` (line ${error.line})` : '';
      if (result.stats.rows === 0) throw new UsageError(`${opts.fromFile}: ${error.message}${where}`, { hint: error.hint });
      throw new PartialFailureError(`${opts.fromFile}: stopped reading after ${result.stats.rows} rows: ${error.message}${where}`, { details: summary, hint: error.hint });
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code && !(error instanceof CliError)) {
      const message = `cannot read ${opts.fromFile === '-' ? 'stdin' : opts.fromFile}: ${code}`;
      if (result.stats.rows === 0) throw new UsageError(message, { cause: error });
      throw new PartialFailureError(`${message} after ${result.stats.rows} rows`, { details: summary, cause: error });
    }
    throw error;
  }
  const bad = result.stats.invalid + result.stats.failed;
  if (bad > 0) {
    throw new PartialFailureError(`${bad} of ${result.stats.rows} rows were not imported (${result.stats.invalid} invalid, ${result.stats.failed} failed)`, {
      hint: reportPath ? `see ${reportPath} for every row; --resume ${reportPath} retries them, a fixed file is a new run with a new --report (rows imported come back as already there)` : 'pass --report FILE to get every row\'s outcome',
      details: summary,
    });
  }
}

/** --dry-run of a file: every invalid row on stderr, the counts on stdout; exit 8 when any row is invalid. */
async function dryRunFile(ctx: Context, opts: ImportOptions, verdict: import('../bulk/validate-file.js').FileVerdict): Promise<void> {
  const json = ctx.settings().output === 'json' || ctx.settings().output === 'ndjson';
  const { problems, ...counts } = verdict;
  await ctx.output().record(json ? { dryRun: true, ...counts, errors: problems } : { dryRun: true, ...counts });
  const skipped = verdict.skipped ? `, ${verdict.skipped} already imported` : '';
  const summary = `dry run of ${opts.fromFile}: ${verdict.rows} rows, ${verdict.valid} valid, ${verdict.invalid} invalid${skipped}; nothing was sent`;
  if (verdict.invalid > 0) throw new PartialFailureError(summary, { hint: 'fix the rows above (line numbers count the CSV header as line 1) and run again', details: counts });
  if (!ctx.globals.quiet) ctx.io.err(`${escapeControls(summary)}\n`);
}

export function summaryOf(stats: ImportStats, seconds: number, report?: string) {
  return {
    imported: stats.imported,
    exists: stats.exists,
    skipped: stats.skipped,
    invalid: stats.invalid,
    failed: stats.failed,
    rows: stats.rows,
    seconds: Math.round(seconds * 1000) / 1000,
    cardsPerSecond: seconds > 0 ? Math.round((stats.imported + stats.exists) / seconds) : 0,
    ...(report ? { report } : {}),
  };
}

function summaryLine(stats: ImportStats, seconds: number): string {
  const parts = [`imported ${stats.imported}`, `already there ${stats.exists}`, `invalid ${stats.invalid}`, `failed ${stats.failed}`];
  if (stats.skipped) parts.push(`skipped ${stats.skipped} (imported by an earlier run)`);
  const rate = seconds > 0 ? ` (${Math.round((stats.imported + stats.exists) / seconds)} cards/s)` : '';
  return `${parts.join(', ')} — ${stats.rows} rows in ${seconds.toFixed(1)} s${rate}`;
}

function printProblems(ctx: Context, problems: ReportEntry[], stats: ImportStats, label: (o: ReportEntry['outcome']) => string): void {
  if (ctx.globals.quiet) return;
  const shown = problems.slice(0, 10);
  for (const p of shown) {
    ctx.io.err(`${terminalLine(`${label(p.outcome)}: line ${p.line}${p.realId ? ` (${p.realId})` : ''}: ${p.error ?? ''}`)}\n`);
  }
  const more = stats.invalid + stats.failed - shown.length;
  if (more > 0) ctx.io.err(`… and ${more} more invalid or failed rows (see the report)\n`);
}
