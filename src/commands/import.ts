import { defineCommand } from '../contract/command.js';
import type { Context } from '../contract/context.js';
import { UsageError } from '../core/errors.js';
import type { TerminalFacts } from '../core/global-flags.js';
import { parseConcurrency, rowRunSettings } from './bulk-command.js';
import { importFile, importFormat } from './import-file.js';
import type { ImportFormat } from '../bulk/readers.js';
import { CARD_FIELDS, IMPORT_FLAGS, type ImportOptions } from './import-common.js';
import { checkGivenFields, importOne, missingFields, missingFieldsError } from './import-one.js';

export default defineCommand({
  name: 'import',
  mcp: 'write',
  // One card: the card imported, or its outcome; a file: the run's summary, or a dry run's counts.
  output: async () => {
    const [{ outputShape }, { summaryKeys }, { Card }] = await Promise.all([import('../output/shape.js'), import('./output-shapes.js'), import('../api/schemas.js')]);
    return outputShape(
      Card,
      { keys: ['realId', 'outcome', 'cardId'] },
      summaryKeys<ReturnType<typeof import('./import-file.js').summaryOf>>({ imported: true, exists: true, skipped: true, invalid: true, failed: true, rows: true, seconds: true, cardsPerSecond: true, report: true }),
      summaryKeys<import('../bulk/validate-file.js').FileVerdict & { dryRun: true; errors: unknown }>({ dryRun: true, rows: true, valid: true, invalid: true, skipped: true, problems: true, errors: true }),
    );
  },
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
  parse: ({ opts, now, terminal }) => parseImport(opts, now, terminal),
  async run(ctx, { opts, format }) {
    const settings = rowRunSettings(ctx, opts);
    const institutionId = opts.institutionId?.trim() || profileInstitutionId(ctx);
    if (format) return importFile(ctx, opts, { settings, institutionId, format });
    return importOne(ctx, opts, { ...settings, concurrency: 1 }, institutionId);
  },
});

/** `import`'s flags checked: one card's, or a file's (and its format); what a row holds is checked as it is read. */
async function parseImport(opts: ImportOptions, now: Date, terminal: TerminalFacts): Promise<{ opts: ImportOptions; format?: ImportFormat }> {
  parseConcurrency(opts.concurrency);
  if (opts.fromFile === undefined) {
    if (opts.resume !== undefined || opts.report || opts.format || opts.encoding) {
      throw new UsageError('--resume, --report, --format and --encoding need --from-file');
    }
    await checkGivenFields(opts, now);
    // What is not given is asked for on a terminal: the institution id may still come from the profile.
    if (!terminal.canPrompt) {
      const missing = (await missingFields(opts)).filter((f) => f.key !== 'institutionId');
      if (missing.length) throw missingFieldsError(missing.map((f) => f.flag));
      if (!opts.pinStdin) throw new UsageError('the card\'s default PIN is needed: pipe it with --pin-stdin (PINs are never taken from argv)');
    }
    return { opts };
  }
  const stray = CARD_FIELDS.filter((f) => f.key !== 'institutionId' && opts[f.key as keyof ImportOptions] !== undefined).map((f) => f.flag);
  if (opts.pinStdin) stray.push('--pin-stdin');
  if (opts.active !== undefined) stray.push(opts.active ? '--active' : '--no-active');
  if (opts.returnSecure) stray.push('--return-secure');
  if (stray.length) throw new UsageError(`${stray.join(', ')} describe one card and cannot be combined with --from-file`);
  return { opts, format: await importFormat(opts) };
}

function profileInstitutionId(ctx: Context): string | undefined {
  const value = (ctx.settings().profile as Record<string, unknown>).institutionId;
  return typeof value === 'string' && value ? value : undefined;
}
