import { defineCommand } from '../../../contract/command.js';
import { defineFlags } from '../../../core/flags.js';
import { PartialFailureError, UsageError } from '../../../core/errors.js';

const FLAGS = defineFlags({
  out: { type: 'string', value: 'file', complete: 'file', description: 'write the merged report to this file instead of stdout' },
});

export default defineCommand({
  name: 'merge',
  mcp: 'never',
  summary: "join the reports of a bulk run's shards into one, by row",
  description: `Join the reports of the shards of one bulk run (\`--shard K/N --report FILE\`
on each runner) into one NDJSON report, a line per row in row order, on stdout
or in --out FILE. A row with several lines in its report (a failed row done by
a --resume, a done row skipped by it) keeps its last outcome that is not
"skipped". Every report starts with its run (the verb, K/N and the SHA-256 of
the input): the reports must be of one run, each shard once, and every shard
of the split given. The counts go to stderr.

Exit codes: 0 every row of the input is there and none failed; 8 some merged
rows failed, or rows are missing (a shard that did not finish: its rows are
named; run it again with --resume), the merged report written all the same;
2 files that are not bulk reports, reports that do not belong together (another
run, a shard twice, a row in two reports) or a shard not given, nothing written.`,
  args: [{ syntax: '<report...>', description: 'the reports of the shards (their --report files)' }],
  flags: FLAGS,
  examples: [
    'cardctl cards report merge renew-1.ndjson renew-2.ndjson --out renew.ndjson',
    "cardctl cards report merge renew-*.ndjson | jq -r 'select(.outcome == \"failed\") | .id'",
  ],
  // The reports are local files: read, checked and merged here, before anything is written.
  async parse({ args, opts }) {
    const paths = args[0];
    const { existsSync, statSync } = await import('node:fs');
    for (const path of paths) {
      if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`no such report: ${path}`);
    }
    const { resolve } = await import('node:path');
    if (opts.out !== undefined && paths.some((path) => resolve(path) === resolve(opts.out!))) {
      throw new UsageError(`--out ${opts.out} is one of the reports to merge`, { hint: 'write the merged report to another file' });
    }
    const [{ mergeBulkReports, ReportMergeError }, { RunReportError }] = await Promise.all([import('../../../bulk/merge.js'), import('../../../bulk/report.js')]);
    let merged: Awaited<ReturnType<typeof mergeBulkReports>>;
    try {
      merged = await mergeBulkReports(paths);
    } catch (error) {
      if (error instanceof ReportMergeError) throw new UsageError(error.message);
      if (error instanceof RunReportError) throw new UsageError(error.message, { hint: 'give the --report files of one bulk run\'s shards' });
      throw error;
    }
    return { merged, out: opts.out };
  },
  async run(ctx, { merged, out }) {
    const text = merged.entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
    if (out === undefined) ctx.io.out(text);
    else {
      // Whole or not at all: a full disk never leaves half a merged report that looks whole.
      const { writeFileAtomic } = await import('../../../core/write-file.js');
      writeFileAtomic(out, text, { mode: 0o600 });
    }
    const { counts, missingRows, unfinished } = merged;
    if (!ctx.globals.quiet) {
      const notes = [counts.missing ? `, ${counts.missing} missing` : '', counts.torn ? `, ${counts.torn} torn lines ignored` : ''].join('');
      ctx.io.err(`merged ${counts.reports} report${counts.reports === 1 ? '' : 's'}: done ${counts.done}, already ${counts.already}, skipped ${counts.skipped}, failed ${counts.failed} — ${counts.rows} rows${notes}\n`);
    }
    if (counts.missing > 0 || unfinished.length) {
      const rows = counts.missing ? `${counts.missing} row${counts.missing === 1 ? '' : 's'} missing (row${counts.missing === 1 ? '' : 's'} ${missingRows.join(', ')}${counts.missing > missingRows.length ? ', …' : ''})` : 'rows may be missing';
      const shards = unfinished.length ? `: shard${unfinished.length === 1 ? '' : 's'} ${unfinished.join(', ')} did not finish` : '';
      throw new PartialFailureError(`${rows}${shards}`, { details: { ...counts, missingRows, unfinished }, hint: 'run the unfinished shards again with --resume REPORT, then merge again' });
    }
    if (counts.failed > 0) {
      throw new PartialFailureError(`${counts.failed} of ${counts.rows} rows failed`, { details: counts, hint: 'run each shard again with --resume REPORT to retry them' });
    }
  },
});
