// The import engine, on the bulk row loop (src/bulk/loop.ts): validates each row, sends up to
// `concurrency` at a time, and settles every row exactly once
// in the report. A row whose request may have reached the service (timeout, reset, 502/504) is
// looked up by realId before it is sent again; a 409 CONFLICT means the realId is already there.
import { AuthError, ExitCode, RejectedError, type CliError } from '../core/errors.js';
import type { ImportCardBody } from '../api/schemas.js';
import type { ImportOutcome, ReportEntry } from './import-report.js';
import { UNUSABLE_CARD, unusableForRow, type FoundCard } from './found-card.js';
import { backoffMs, rowRun, type RowRunOptions } from './loop.js';
import { realIdOf, validateImportRow, type RowDefaults } from './row.js';

export interface SendResult {
  cardId?: string;
  card?: unknown;
}

export interface ImportRunOptions extends RowRunOptions<ReportEntry> {
  send(body: ImportCardBody, signal: AbortSignal): Promise<SendResult>;
  /** Looks a realId up in the service (needs a bearer token); undefined when there is no way to. */
  lookup?: (realId: string, signal: AbortSignal) => Promise<SendResult | undefined>;
  /** realIds already imported (from the report, with --resume). */
  done?: Map<string, string | undefined>;
  defaults?: RowDefaults;
  /** --allow-weak-pin */
  allowWeakPin?: boolean;
  /** Today, for dates of birth and expiry months. */
  now?: Date;
  onSettled?(entry: ReportEntry, stats: ImportStats, result?: SendResult, error?: unknown): void;
}

export interface ImportStats {
  imported: number;
  exists: number;
  invalid: number;
  failed: number;
  skipped: number;
  /** Rows settled (all outcomes). */
  rows: number;
}

export interface ImportRunResult {
  stats: ImportStats;
  interrupted: boolean;
  /** A failure that stopped the run (bad credentials): every row would have failed the same way. */
  fatal?: CliError;
  /** First invalid or failed rows, for the summary. */
  problems: ReportEntry[];
  /** The file could not be read further (malformed beyond one row); rows before it were handled. */
  readerError?: unknown;
}

const MAX_PROBLEMS_KEPT = 20;

export async function runImport(options: ImportRunOptions): Promise<ImportRunResult> {
  const stats: ImportStats = { imported: 0, exists: 0, invalid: 0, failed: 0, skipped: 0, rows: 0 };
  const problems: ReportEntry[] = [];
  const { requests, maxAttempts, sleep, loop } = rowRun(options);
  const seen = new Set<string>();
  let fatal: CliError | undefined;
  let lookup = options.lookup;

  const settle = (entry: ReportEntry, result?: SendResult, error?: unknown) => {
    stats.rows++;
    stats[entry.outcome === 'exists' ? 'exists' : entry.outcome]++;
    if ((entry.outcome === 'invalid' || entry.outcome === 'failed') && problems.length < MAX_PROBLEMS_KEPT) problems.push(entry);
    options.report?.write(entry);
    options.onSettled?.(entry, stats, result, error);
  };

  const tryLookup = async (realId: string): Promise<SendResult | undefined> => {
    if (!lookup) return undefined;
    try {
      return await lookup(realId, requests.signal);
    } catch (error) {
      // No bearer token, or it lacks permission: fall back on the service's 409 for repeats.
      if (error instanceof AuthError) lookup = undefined;
      return undefined;
    }
  };

  // A card found under the realId is "exists" only when it is this row's card, usable as the row asks.
  const settleFound = (line: number, body: ImportCardBody, found: SendResult) => {
    const differ = differencesFromImport(body, found.card);
    if (differ.length) {
      const error = `realId "${body.realId}" is already imported for another cardholder (its ${differ.join(', ')} differ${differ.length === 1 ? 's' : ''} from this row's): not imported`;
      return settle({ line, realId: body.realId, outcome: 'failed', error }, undefined, new RejectedError(error, { code: 'REAL_ID_TAKEN', status: 409 }));
    }
    const card = (found.card && typeof found.card === 'object' ? found.card : {}) as FoundCard;
    const unusable = unusableForRow(card, body.active ? 'active' : 'inactive', options.now ?? new Date());
    if (unusable) {
      const error = `realId "${body.realId}" is card ${found.cardId ?? card.id ?? '?'}, and ${unusable}: not imported again`;
      return settle({ line, realId: body.realId, outcome: 'failed', error }, undefined, new RejectedError(error, { code: UNUSABLE_CARD.code, hint: UNUSABLE_CARD.hint(found.cardId ?? card.id) }));
    }
    return settle({ line, realId: body.realId, outcome: 'exists', cardId: found.cardId }, found);
  };

  const importRow = async (line: number, body: ImportCardBody): Promise<void> => {
    const realId = body.realId;
    let uncertain = false; // a previous attempt may have reached the service
    for (let attempt = 1; ; attempt++) {
      if (uncertain) {
        const found = await tryLookup(realId);
        if (found) return settleFound(line, body, found);
      }
      try {
        const result = await options.send(body, requests.signal);
        return settle({ line, realId, outcome: 'imported', cardId: result.cardId }, result);
      } catch (caught) {
        const error = caught as CliError & { status?: number; code?: string };
        if (error.status === 409) {
          const found = await tryLookup(realId);
          return found ? settleFound(line, body, found) : settle({ line, realId, outcome: 'exists' });
        }
        if (error instanceof AuthError) {
          fatal ??= error;
          return settle({ line, realId, outcome: 'failed', error: error.message }, undefined, error);
        }
        const network = error.exitCode === ExitCode.Network && error.code !== 'ABORTED';
        const maybeProcessed = network || error.status === 502 || error.status === 504 || (error.status !== undefined && error.status >= 500);
        const retryable = maybeProcessed || error.status === 429 || error.status === 503;
        if (requests.signal.aborted) {
          return settle({ line, realId, outcome: 'failed', error: `interrupted: ${error.message}` }, undefined, error);
        }
        if (!retryable || attempt >= maxAttempts) {
          return settle({ line, realId, outcome: 'failed', error: error.message }, undefined, error);
        }
        if (maybeProcessed) uncertain = true;
        await sleep(backoffMs(attempt));
      }
    }
  };

  const { readerError } = await loop({
    stop: () => fatal !== undefined,
    start(row) {
      if (row.error !== undefined) {
        return settle({ line: row.line, realId: realIdOf(row.value), outcome: 'invalid', error: row.error });
      }
      const verdict = validateImportRow(row.value, { text: row.text, defaults: options.defaults, allowWeakPin: options.allowWeakPin, now: options.now });
      if (!verdict.ok) {
        return settle({ line: row.line, realId: realIdOf(row.value), outcome: 'invalid', error: verdict.errors.join('; ') });
      }
      const realId = verdict.body.realId;
      if (options.done?.has(realId)) {
        return settle({ line: row.line, realId, outcome: 'skipped', cardId: options.done.get(realId) });
      }
      if (seen.has(realId)) {
        return settle({ line: row.line, realId, outcome: 'invalid', error: `realId: "${realId}" appears earlier in this file` });
      }
      seen.add(realId);
      return importRow(row.line, verdict.body);
    },
  });
  return { stats, interrupted: options.signal.aborted, fatal, problems, readerError };
}

/** What makes a card the card of an import row: the cardholder's fields compared, as the API answers them. */
const IMPORT_IDENTITY = [['firstName', 'firstName'], ['lastName', 'lastName'], ['email', 'emailAddress'], ['phone', 'phoneNumber']] as const;

/** The cardholder fields in which a card found under a realId differs from the row (those the card shows). */
export function differencesFromImport(body: ImportCardBody, card: unknown): string[] {
  const customer = card && typeof card === 'object' ? (card as { customer?: Record<string, unknown> }).customer : undefined;
  if (!customer || typeof customer !== 'object') return [];
  const same = (a: unknown, b: unknown) => String(a).trim().toLowerCase() === String(b).trim().toLowerCase();
  return IMPORT_IDENTITY.filter(([row, shown]) => customer[shown] !== undefined && !same(body[row], customer[shown])).map(([row]) => row);
}

export function outcomeLabel(outcome: ImportOutcome): string {
  return outcome === 'exists' ? 'already there' : outcome;
}
