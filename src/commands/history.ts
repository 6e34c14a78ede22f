import { parseTimeBound } from '../core/datetime.js';
import type { Column } from '../output/renderer.js';
import type { JournalEntry } from '../audit/journal.js';
import { listCommand } from './list-command.js';

/** What became of a call: its status, or that no answer was recorded, or what a look-up found. */
function outcomeOf(entry: JournalEntry): string {
  if (entry.phase === 'intent') return 'sent, no answer';
  if (entry.phase === 'found') return entry.message;
  return entry.status === null ? 'no answer' : String(entry.status);
}

const columns: Column<JournalEntry>[] = [
  { header: 'TIME', path: 'time' },
  { header: 'PROFILE', path: 'profile' },
  { header: 'ENV', path: 'env', wide: true },
  { header: 'OPERATOR', path: 'operator', wide: true },
  { header: 'METHOD', path: 'method' },
  { header: 'PATH', path: 'path' },
  { header: 'STATUS', path: 'status', format: (_v, entry) => outcomeOf(entry), csv: (_v, entry) => outcomeOf(entry) },
  { header: 'IDS', path: 'ids' },
  { header: 'REASON', path: 'reason' },
  { header: 'REFERENCE', path: 'reference', wide: true },
  { header: 'MS', path: 'durationMs', wide: true },
  { header: 'COMMAND', path: 'command', wide: true },
];

/** The same call's intent and outcome lines: its method, path, reference and the ids it names. */
const callKey = (entry: JournalEntry) => `${entry.method} ${entry.path} ${entry.reference ?? ''} ${entry.command}`;

/**
 * The journal as history shows it: an intent line is left out once the outcome of the same call
 * follows (the answer came); one left stands for a call sent whose answer was never recorded.
 */
export function answeredIntentsDropped(entries: readonly JournalEntry[]): JournalEntry[] {
  const pending = new Map<string, number[]>();
  const dropped = new Set<number>();
  entries.forEach((entry, at) => {
    const key = callKey(entry);
    if (entry.phase === 'intent') pending.set(key, [...(pending.get(key) ?? []), at]);
    else if (entry.phase === undefined) {
      const waiting = pending.get(key);
      if (waiting?.length) dropped.add(waiting.shift()!);
    }
  });
  return entries.filter((_entry, at) => !dropped.has(at));
}

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
full PAN. --dry-run calls are not recorded. A line is written before each call is sent (its
intent) and one with its answer; a look-up after a lost answer or a conflict adds what it found
(the card's id, "already there"). This reads it back, oldest first: an intent whose answer came is
left out, one that stands says "sent, no answer".`,
  flags: {
    since: { type: 'string', value: 'time', description: 'only entries at or after this time (ISO date-time, or a duration like 24h, 7d)' },
    card: { type: 'string', value: 'card-id', description: 'only entries that affected this card' },
  },
  wide: 'more columns',
  idPath: 'time',
  examples: ['cardctl history --since 24h', 'cardctl history --card 6650c0ffee -o json'],
  query: (opts, now) => ({ since: opts.since ? parseSince(opts.since, now) : undefined, card: opts.card }),
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
    return answeredIntentsDropped(entries);
  },
});

/** `24h`, `30m`, `7d`, or an ISO date/date-time: the parser of every date flag (core/datetime.ts). */
export function parseSince(value: string, now: Date): Date {
  return parseTimeBound('--since', value, now);
}
