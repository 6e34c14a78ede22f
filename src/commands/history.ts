import { parseTimeBound } from '../core/datetime.js';
import type { Column } from '../output/renderer.js';
import type { JournalEntry } from '../audit/journal.js';
import { listCommand } from './list-command.js';

const columns: Column<JournalEntry>[] = [
  { header: 'TIME', path: 'time' },
  { header: 'PROFILE', path: 'profile' },
  { header: 'ENV', path: 'env' },
  { header: 'OPERATOR', path: 'operator', wide: true },
  { header: 'METHOD', path: 'method' },
  { header: 'PATH', path: 'path' },
  { header: 'STATUS', path: 'status' },
  { header: 'IDS', path: 'ids' },
  { header: 'MS', path: 'durationMs', wide: true },
  { header: 'REASON', path: 'reason', wide: true },
  { header: 'COMMAND', path: 'command', wide: true },
];

export default listCommand({
  name: 'history',
  mcp: 'read',
  summary: 'show the audit journal of mutating calls made from this machine',
  description: `Every mutating call (create, renew, PIN change/reset, activate, deactivate, customer and user
updates, OAuth applications, imports, simulations) is recorded as one JSON line in a journal in
the user data directory (journal/journal.ndjson under $CARDCTL_DATA_DIR, or $CARDCTL_JOURNAL_DIR;
mode 0600), rotated at 5 MB keeping the last 5 files. A line holds the time, profile, environment,
base URL, operator, command line (secrets removed, PANs masked), method, path, HTTP status, the
API's message, affected ids, duration and --reason; never a PIN, PIN block, token, API key or
full PAN. --dry-run calls are not recorded. This reads it back, oldest first.`,
  flags: {
    since: { type: 'string', value: 'time', description: 'only entries at or after this time (ISO date-time, or a duration like 24h, 7d)' },
    card: { type: 'string', value: 'card-id', description: 'only entries that affected this card' },
  },
  wide: 'more columns',
  idPath: 'time',
  examples: ['cardctl history --since 24h', 'cardctl history --card 6650c0ffee -o json'],
  query: (opts, ctx) => ({ since: opts.since ? parseSince(opts.since, ctx.clock.now()) : undefined, card: opts.card }),
  emptyMessage: () => 'no journal entries match',
  columns: async () => columns,
  async read(ctx, { since, card }) {
    const [{ Journal }, { redactValue }] = await Promise.all([import('../audit/journal.js'), import('../core/redact.js')]);
    const entries: JournalEntry[] = [];
    const journal = new Journal(ctx.env);
    for (const raw of journal.read()) {
      // Written redacted already; masked again in case the file was edited or written by an old version.
      const entry = redactValue(raw) as JournalEntry;
      if (since && Date.parse(entry.time) < since.getTime()) continue;
      if (card && !entry.ids?.includes(card)) continue;
      entries.push(entry);
    }
    if (journal.skippedLines > 0) ctx.log.warn(`skipped ${journal.skippedLines} unreadable journal line${journal.skippedLines === 1 ? '' : 's'} (cut short by a full disk or a crash)`);
    return entries;
  },
});

/** `24h`, `30m`, `7d`, or an ISO date/date-time: the parser of every date flag (core/datetime.ts). */
export function parseSince(value: string, now: Date): Date {
  return parseTimeBound('--since', value, now);
}
