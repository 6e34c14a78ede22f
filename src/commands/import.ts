import { defineCommand } from '../core/command.js';
import { bodyFields, defineFlags, type FlagValues } from '../core/flags.js';
import { CARD_FLAGS, CARDHOLDER_FLAGS, placeFlags, REASON_MAX_LENGTH } from './card-flags.js';
import type { Context } from '../core/context.js';
import {
  AuthError,
  CliError,
  InterruptedError,
  PartialFailureError,
  UsageError,
} from '../core/errors.js';
import { BULK_FLAGS, rowRunSettings, runReport, type RowRunSettings } from './bulk-command.js';
import type { TextEncoding } from '../core/text.js';
import type { ImportFormat, SourceRow } from '../import/readers.js';
import type { ReportEntry } from '../import/report.js';
import type { ImportRunResult, ImportStats, SendResult } from '../import/runner.js';

/** Every flag of `import`, in help order. Those with a path are one card's fields, written there in the Import Card body. */
export const IMPORT_FLAGS = defineFlags({
  fromFile: { type: 'string', value: 'file', complete: 'file', description: 'file of cards to import (.csv, .ndjson, .json), or - for stdin' },
  format: { type: 'string', value: 'format', choices: ['csv', 'ndjson', 'json'], description: 'file format (default: from the extension; required for - and pipes)' },
  encoding: { type: 'string', value: 'encoding', choices: ['utf-8', 'latin1', 'utf-16le'], description: 'text encoding of the file (default utf-8; invalid UTF-8 is an error)' },
  concurrency: BULK_FLAGS.concurrency,
  report: { type: 'string', value: 'file', complete: 'file', description: 'NDJSON report: line, realId, outcome, cardId or error' },
  resume: BULK_FLAGS.resume,
  realId: { type: 'string', value: 'id', description: 'one card: its identifier in your system', path: 'realId', prompt: 'Real id (your identifier for the card)' },
  active: { type: 'boolean', description: 'one card: the card is active (the default)', negation: 'one card: the card is not active' },
  ...placeFlags(CARD_FLAGS, { startDate: { path: 'startDate', description: 'one card: start date YYYY-MM-DD', prompt: 'Start date (YYYY-MM-DD)' } }),
  endDate: { type: 'string', value: 'date', description: 'one card: end date YYYY-MM-DD', path: 'endDate', prompt: 'End date (YYYY-MM-DD)' },
  ...placeFlags(CARDHOLDER_FLAGS, {
    firstName: { path: 'firstName', description: 'one card: first name' },
    middleName: { path: 'middleName', description: 'one card: middle name (default empty)' },
    lastName: { path: 'lastName', description: 'one card: last name' },
    email: { path: 'email', description: 'one card: email' },
    phone: { path: 'phone', description: 'one card: phone', prompt: 'Phone' },
    birthDate: { path: 'birthDate', description: 'one card: birth date YYYY-MM-DD', prompt: 'Birth date (YYYY-MM-DD)' },
    addressLine1: { path: 'address1', description: 'one card: address line 1', prompt: 'Address line 1' },
    addressLine2: { path: 'address2', description: 'one card: address line 2 (default empty)' },
    city: { path: 'city', description: 'one card: city', prompt: 'City' },
    state: { path: 'state', description: 'one card: state', prompt: 'State' },
    postalCode: { path: 'zip', description: 'one card: postal code', prompt: 'Postal code' },
    country: { path: 'country', description: 'one card: country', prompt: 'Country' },
  }),
  institutionId: { type: 'string', value: 'id', description: "institution of the card(s); fills rows without one (default: the profile's institutionId)", path: 'institutionId', prompt: 'Institution id' },
  expiration: { type: 'string', value: 'yyyymm', description: 'one card: expiry YYYYMM', path: 'card.expiration', prompt: 'Card expiry (YYYYMM)' },
  serviceCode: { type: 'string', value: 'code', description: 'one card: service code', path: 'card.serviceCode', prompt: 'Service code' },
  cardProduct: { type: 'string', value: 'name', description: 'one card: card product', path: 'card.cardProduct', prompt: 'Card product' },
  ...placeFlags(CARD_FLAGS, { embossingName: { path: 'card.embossingName', description: 'one card: embossing name', prompt: 'Embossing name' } }),
  bin: { type: 'string', value: 'bin', description: 'one card: BIN (6 to 8 digits)', path: 'card.bin', prompt: 'BIN' },
  ...placeFlags(CARD_FLAGS, { status: { path: 'card.cardState', description: 'one card: card status', prompt: 'Card state' } }),
  pinStdin: { type: 'boolean', secret: true, description: 'one card: read the default PIN (4 to 12 digits) from stdin' },
  allowWeakPin: { type: 'boolean', description: 'accept trivially weak default PINs such as 1111 (one card, or every row of a file)' },
  returnSecure: { type: 'boolean', description: 'one card: return secure data' },
  reason: { type: 'string', value: 'text', maxLength: REASON_MAX_LENGTH, description: 'why (kept in the audit journal)' },
});

type ImportOptions = FlagValues<typeof IMPORT_FLAGS>;

/** One card's fields, each with the body path it fills and its question. */
const CARD_FIELDS = bodyFields(IMPORT_FLAGS);
/** What `--from-file -` takes (the hint when stdin gives nothing). */
const IMPORT_STDIN_ROWS = 'CSV or NDJSON rows in, one card a row, e.g. cat cards.ndjson | cardctl import --from-file - --format ndjson';
/** Fields an import body may leave empty: not asked for, sent as "". */
const OPTIONAL_FIELDS = new Set(['middleName', 'addressLine2']);

export default defineCommand({
  name: 'import',
  summary: 'import existing cards (one from flags, or many from a file)',
  description: `Import cards that already exist elsewhere (POST /util/cards/import, authenticated with the \
profile's API key or CARDCTL_API_KEY).

One card: give its fields as flags; the default PIN of the import format is read from stdin with \
--pin-stdin, or asked for (hidden) on a terminal — never taken from argv.

Bulk: --from-file FILE (.csv with a header row, .ndjson, or a .json array; - for stdin with \
--format; a pipe such as <(…) works too). CSV headers are the body's field names, nested ones \
dotted (card.expiration, card.bin, …); booleans are true/false. The file is streamed, never \
loaded whole; it must be UTF-8 (a BOM is fine) unless --encoding names another, and one record \
(CSV record, NDJSON line, JSON element) is at most 65,536 characters. Each row is validated \
first with the same rules as \`cards create\` (names, dates of birth, the name on the card, \
a default PIN that is not trivially weak unless --allow-weak-pin, an expiry month that has not \
passed, endDate not before startDate): a bad row is reported with its line number (the CSV \
header is line 1) and skipped, not sent. Rows are sent with --concurrency requests in flight and every row is recorded \
in --report (NDJSON: line, realId, outcome imported|exists|invalid|failed|skipped, cardId or \
error).

Institution: the API requires institutionId and it must be the API key's institution, which the \
client cannot know by itself. So every card needs one: a row's own institutionId, else \
--institution-id (which fills rows that leave it out or empty), else an institutionId stored in \
the profile. A single card without any of these is a usage error naming --institution-id.

Exactly once: --resume REPORT (or --resume with --report REPORT) reads the report and skips \
rows already imported, appending to it; a report not there yet is started, so the same command \
serves the first run and every rerun. The report's first line names its run (import, and the \
SHA-256 of the file; stdin is copied to a private temporary file to be hashed): a report of \
another verb or another file (or this one edited), one with lines that are not a report's, and \
the file itself are refused, exit 2. A row whose request \
timed out or lost its connection is looked up by realId (when the profile also has a bearer \
token) before it is sent again, and a 409 CONFLICT answer means the realId is already there \
("exists"; with a bearer token, only when the card found is the row's cardholder: names, \
email and phone; otherwise the row fails), so a retry never creates a duplicate. Ctrl-C stops sending, waits for requests in \
flight, writes the report and exits 130; run again with --resume to finish. Progress goes to \
stderr: a bar on a terminal, otherwise a line per 5% of the rows (rate and ETA).

Exit codes: 0 every row imported or already there; 8 some rows invalid or failed; 130 \
interrupted.

Dry run: --dry-run reads and checks the whole file as a real run would and sends nothing: every \
invalid row is printed with its line number, then the count of valid and invalid rows. It exits \
0 when every row is valid and 8 (like a real run with invalid rows) when any is not, so CI can \
check a file before it is imported. One card with --dry-run prints the request instead.

Production: against a production profile the operator types the number of cards about to be \
imported (counted after validation, before anything is sent); without a terminal --yes \
--confirm-production is needed. --reason is kept in the audit journal (\`cardctl history\`).`,
  flags: IMPORT_FLAGS,
  examples: [
    'cardctl import --from-file cards.csv --report import-report.ndjson',
    'cardctl import --from-file cards.csv --resume import-report.ndjson',
    'cat cards.ndjson | cardctl import --from-file - --format ndjson --concurrency 16',
    'printf 4821 | cardctl import --pin-stdin --real-id LEGACY-1 --institution-id INST --first-name Ada --last-name Obi --email ada@example.com --phone +2348012345678 --birth-date 1990-01-31 --address-line1 "1 Marina" --city Lagos --state Lagos --postal-code 100001 --country NG --start-date 2024-01-01 --end-date 2028-12-31 --expiration 202812 --service-code 101 --card-product classic --embossing-name "ADA OBI" --bin 506099 --status active',
  ],
  async run(ctx, { opts }) {
    const settings = rowRunSettings(ctx, opts);
    const institutionId = opts.institutionId?.trim() || profileInstitutionId(ctx);
    if (opts.fromFile !== undefined) {
      const stray = CARD_FIELDS.filter((f) => f.key !== 'institutionId' && opts[f.key as keyof ImportOptions] !== undefined).map((f) => f.flag);
      if (opts.pinStdin) stray.push('--pin-stdin');
      if (opts.active !== undefined) stray.push(opts.active ? '--active' : '--no-active');
      if (opts.returnSecure) stray.push('--return-secure');
      if (stray.length) throw new UsageError(`${stray.join(', ')} describe one card and cannot be combined with --from-file`);
      return importFile(ctx, opts, { settings, institutionId });
    }
    if (opts.resume !== undefined || opts.report || opts.format || opts.encoding) {
      throw new UsageError('--resume, --report, --format and --encoding need --from-file');
    }
    return importOne(ctx, opts, { ...settings, concurrency: 1 }, institutionId);
  },
});

function profileInstitutionId(ctx: Context): string | undefined {
  const value = (ctx.settings().profile as Record<string, unknown>).institutionId;
  return typeof value === 'string' && value ? value : undefined;
}

function requireApiKey(ctx: Context): void {
  if (!ctx.settings().apiKey) {
    throw new AuthError('no API key for this profile: import authenticates with the x-api-key header', {
      hint: 'run `cardctl login --api-key-stdin`, or set CARDCTL_API_KEY',
    });
  }
}

async function importFile(ctx: Context, opts: ImportOptions, run: { settings: RowRunSettings; institutionId?: string }): Promise<void> {
  const { formatFromPath } = await import('../import/readers.js');
  const fromStdin = opts.fromFile === '-';
  const format = opts.format ?? (fromStdin ? undefined : formatFromPath(opts.fromFile!));
  if (!format) {
    throw new UsageError(fromStdin
      ? '--from-file - needs --format csv|ndjson|json'
      : `cannot tell the format of ${opts.fromFile} from its extension`, { hint: 'name it .csv, .ndjson or .json, or pass --format' });
  }
  const { existsSync, statSync, createReadStream } = await import('node:fs');
  // A regular file is read twice when it must be counted first (production) and measured for the
  // progress bar; a FIFO (`<(…)`), a character device or stdin is streamed once.
  let streamed = fromStdin;
  if (!fromStdin) {
    if (!existsSync(opts.fromFile!)) throw new UsageError(`no such file: ${opts.fromFile}`);
    const stat = statSync(opts.fromFile!);
    if (stat.isDirectory()) throw new UsageError(`${opts.fromFile} is a directory`, { hint: '--from-file takes a file, a pipe such as <(…), or - for stdin' });
    streamed = !stat.isFile();
  }
  const { path: reportPath, resume } = await runReport(opts, fromStdin ? undefined : opts.fromFile);
  // With a report, the input is bound to it (src/bulk/report.ts): hashed for the header, stdin and pipes spooled first.
  const { bindFile, noRowsOnStdin, peek, spoolInput } = await import('../bulk/input.js');
  let bound: import('../bulk/input.js').BoundInput | undefined;
  let stdin: import('node:stream').Readable | undefined;
  if (reportPath) {
    bound = streamed ? await spoolInput(fromStdin ? ctx.io.stdin : createReadStream(opts.fromFile!)) : await bindFile(opts.fromFile!);
    if (fromStdin && bound.bytes === 0) {
      bound.remove();
      throw noRowsOnStdin('--from-file', IMPORT_STDIN_ROWS);
    }
    streamed = false;
  } else if (fromStdin) {
    const peeked = await peek(ctx.io.stdin);
    if (peeked.head === undefined) throw noRowsOnStdin('--from-file', IMPORT_STDIN_ROWS);
    stdin = peeked.input;
  }
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
  const { readImportRows, ImportFileError } = await import('../import/readers.js');
  const { createReadStream } = await import('node:fs');
  /** The rows' bytes: the bound file when there is one, else the file or stdin (read once). */
  const openInput = () => bound ? createReadStream(bound.path) : input.stdin ?? createReadStream(opts.fromFile!);
  const { openReport, readReport: readReportFile } = await import('../import/report.js');
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
  const { IMPORT_FIELD_PATHS } = await import('../import/row.js');
  const validateAll = async (done?: ReadonlyMap<string, unknown>, onProblem?: (p: import('../import/validate-file.js').RowProblem) => void) => {
    const { validateImportFile } = await import('../import/validate-file.js');
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
    const printProblem = (p: import('../import/validate-file.js').RowProblem) => ctx.io.err(`invalid: line ${p.line}${p.realId ? ` (${p.realId})` : ''}: ${p.error}\n`);
    return dryRunFile(ctx, opts, await validateAll(resume ? (await readReport(reportPath!)).done : undefined, printProblem));
  }
  requireApiKey(ctx);
  const { isProduction, confirmDestructive } = await import('../core/guard.js');
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

  const { runImport, outcomeLabel } = await import('../import/runner.js');
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
    // The entry point reports any error after Ctrl-C as a bare "interrupted"; say how to go on here.
    if (!quiet) ctx.io.err(reportPath ? `interrupted: the report is complete up to here; finish with --resume ${reportPath}\n` : 'interrupted: pass --report FILE next time so that --resume can continue\n');
    throw new InterruptedError('import interrupted: requests in flight were finished and the report written', {
      hint: reportPath ? `run again with --resume ${reportPath} to import the remaining rows` : 'pass --report FILE next time so that --resume can continue an interrupted import',
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
async function dryRunFile(ctx: Context, opts: ImportOptions, verdict: import('../import/validate-file.js').FileVerdict): Promise<void> {
  const json = ctx.settings().output === 'json' || ctx.settings().output === 'ndjson';
  const { problems, ...counts } = verdict;
  await ctx.output().record(json ? { dryRun: true, ...counts, errors: problems } : { dryRun: true, ...counts });
  const skipped = verdict.skipped ? `, ${verdict.skipped} already imported` : '';
  const summary = `dry run of ${opts.fromFile}: ${verdict.rows} rows, ${verdict.valid} valid, ${verdict.invalid} invalid${skipped}; nothing was sent`;
  if (verdict.invalid > 0) throw new PartialFailureError(summary, { hint: 'fix the rows above (line numbers count the CSV header as line 1) and run again', details: counts });
  if (!ctx.globals.quiet) ctx.io.err(`${summary}\n`);
}

function summaryOf(stats: ImportStats, seconds: number, report?: string) {
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
    ctx.io.err(`${label(p.outcome)}: line ${p.line}${p.realId ? ` (${p.realId})` : ''}: ${p.error ?? ''}\n`);
  }
  const more = stats.invalid + stats.failed - shown.length;
  if (more > 0) ctx.io.err(`… and ${more} more invalid or failed rows (see the report)\n`);
}

async function importOne(ctx: Context, opts: ImportOptions, settings: RowRunSettings, institutionId?: string): Promise<void> {
  const [{ setPath }, { IMPORT_FIELD_PATHS, validateImportRow }] = await Promise.all([import('../output/format.js'), import('../import/row.js')]);
  const value: Record<string, unknown> = {};
  const missing: string[] = [];
  // Asked for (and named when missing) in the body's own order: the card's identity, its
  // holder, its validity, then the card itself.
  const inBodyOrder = [...CARD_FIELDS].sort((a, b) => IMPORT_FIELD_PATHS.indexOf(a.path) - IMPORT_FIELD_PATHS.indexOf(b.path));
  for (const f of inBodyOrder) {
    let given = opts[f.key as keyof ImportOptions] as string | undefined;
    if (f.key === 'institutionId') given = institutionId;
    if (given === undefined && OPTIONAL_FIELDS.has(f.key)) given = '';
    if (given === undefined) {
      if (ctx.io.canPrompt) given = await ctx.prompter.input(f.prompt ?? f.flag);
      else {
        missing.push(f.flag);
        continue;
      }
    }
    setPath(value, f.path, given);
  }
  if (missing.length) {
    throw new UsageError(`missing ${missing.join(', ')} (one card's fields; or import a file with --from-file)`, {
      hint: 'run `cardctl import --help` for every field',
    });
  }
  value.active = opts.active ?? true;
  value.returnSecure = Boolean(opts.returnSecure);
  // The fields are checked before the PIN is asked for, with the validators file rows use.
  const fieldsOnly = validateImportRow(value, { withoutPin: true, now: ctx.clock.now() });
  if (!fieldsOnly.ok) throw new UsageError(`invalid card: ${fieldsOnly.errors.map(flagNameOf).join('; ')}`);
  setPath(value, 'card.defaultPIN', await readDefaultPin(ctx, Boolean(opts.pinStdin), Boolean(opts.allowWeakPin)));
  const verdict = validateImportRow(value, { allowWeakPin: opts.allowWeakPin, now: ctx.clock.now() });
  if (!verdict.ok) throw new UsageError(`invalid card: ${verdict.errors.map(flagNameOf).join('; ')}`);
  if (ctx.globals.dryRun) {
    // The client prints the request (default PIN redacted) and stops the command.
    const { importCard } = await import('../api/import.js');
    await importCard((await ctx.client()).withReason(opts.reason), verdict.body, ctx.signal);
    return;
  }
  requireApiKey(ctx);
  const { confirmDestructive, isProduction } = await import('../core/guard.js');
  if (isProduction(ctx)) {
    await confirmDestructive(ctx, { description: `import card ${verdict.body.realId}`, typedConfirmation: '1', typedLabel: 'the number of cards to import (1)' });
  }

  const { runImport } = await import('../import/runner.js');
  const { importCard, cardIdOf, findImportedCard } = await import('../api/import.js');
  const client = (await ctx.client()).withReason(opts.reason);
  let settled: { entry: ReportEntry; result?: SendResult; error?: unknown } | undefined;
  await runImport({
    ...settings,
    rows: (async function* () { yield { line: 1, value: verdict.body } as SourceRow; })(),
    async send(body, signal) {
      const response = await importCard(client, body, signal);
      return { cardId: cardIdOf(response.data), card: response.data };
    },
    async lookup(realId, signal) {
      const card = await findImportedCard(client, realId, signal);
      return card ? { cardId: cardIdOf(card), card } : undefined;
    },
    onSettled: (entry, _stats, result, error) => (settled = { entry, result, error }),
  });
  if (!settled) throw new InterruptedError();
  const { entry, result, error } = settled;
  if (entry.outcome === 'failed') throw error instanceof CliError ? error : new PartialFailureError(entry.error ?? 'import failed');
  const out = ctx.output();
  if (entry.outcome === 'exists') out.success(`card ${entry.realId} was already imported${entry.cardId ? ` (card ${entry.cardId})` : ''}`);
  else out.success(`imported card ${entry.realId}${entry.cardId ? ` as ${entry.cardId}` : ''}`);
  const card = result?.card;
  if (card && typeof card === 'object') await out.record(card, { idPath: 'id' });
  else await out.record({ realId: entry.realId, outcome: entry.outcome, cardId: entry.cardId ?? null }, { idPath: 'cardId' });
}

/** "card.bin: …" → "--bin: …" for one card given as flags. */
function flagNameOf(message: string): string {
  const field = message.split(':', 1)[0]!;
  const flag = CARD_FIELDS.find((f) => f.path === field)?.flag;
  return flag ? `${flag}${message.slice(field.length)}` : message;
}

/** The default PIN, read and checked exactly as `cards create` reads a new PIN. */
async function readDefaultPin(ctx: Context, fromStdin: boolean, allowWeak: boolean): Promise<string> {
  if (!fromStdin && !ctx.io.canPrompt) {
    throw new UsageError('the card\'s default PIN is needed: pipe it with --pin-stdin (PINs are never taken from argv)');
  }
  const { createPinInput } = await import('../pin/input.js');
  return createPinInput(ctx, { stdin: fromStdin, allowWeak }).fresh('default PIN');
}
