// Feeds the audit journal from the API client's onExchange hook: one line per logical mutating
// request. A journal that cannot be written warns once and never fails the command.
import type { Exchange } from '../api/client.js';
import { fsReason } from '../core/errors.js';
import { REDACTED, maskPan } from '../core/redact.js';
import type { Env } from '../core/settings.js';
import { affectedIds, operatorName, type Journal } from './journal.js';
import { SECRET_PROFILE_KEYS, type Profile } from '../config/store.js';

/** Flags whose value is removed from the recorded command line (argv should never hold these). */
const SECRET_FLAGS = /^--?(token|api-key|secret|password|pin|new-pin|old-pin|client-secret)$/i;
const PAN_FLAGS = /^--(pan|card-number)$/i;

/** `cardctl …` as typed, with secret flag values removed and PANs masked. */
export function commandLine(argv: readonly string[]): string {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = flag !== arg;
    if (SECRET_FLAGS.test(flag) || PAN_FLAGS.test(flag)) {
      const value = inline ? arg.slice(eq + 1) : argv[i + 1];
      const shown = value === undefined ? '' : SECRET_FLAGS.test(flag) ? REDACTED : maskPan(value);
      if (inline) out.push(`${flag}=${shown}`);
      else {
        out.push(flag);
        if (value !== undefined && !value.startsWith('-')) { out.push(shown); i++; }
      }
      continue;
    }
    out.push(/[\s"'\\$`]/.test(arg) ? JSON.stringify(arg) : arg);
  }
  return ['cardctl', ...out].join(' ');
}

/** Every secret a run knows, to be removed from whatever free text the journal records. */
export function knownSecrets(settings: { token?: string; apiKey?: string; profile: Profile }, stored: Profile | undefined, env: Env): Array<string | undefined> {
  // The stored profile as it is now: a client-credentials renewal may have replaced the token.
  return [settings.token, settings.apiKey, env.CARDCTL_TOKEN, env.CARDCTL_API_KEY, ...SECRET_PROFILE_KEYS.flatMap((key) => [settings.profile[key], stored?.[key]])];
}

/** Where journal lines go (a Journal; tests may give any other). */
export type JournalSink = Pick<Journal, 'append' | 'dir'>;

/** What every journal line of one run shares: where it talked to, as whom, with which command line. */
export interface RunFacts {
  profile: string;
  /** The profile's `env` (sandbox, production, …). */
  env: string;
  baseUrl: string;
  /** The command line as typed; recorded with secrets removed (commandLine). */
  argv: readonly string[];
  now(): Date;
  /** Secrets to remove from every line, read when the line is written. */
  secrets(): ReadonlyArray<string | undefined>;
}

/**
 * The API client's onExchange hook: one journal line per mutating call, from the facts of the
 * run and of the call (its reason included). The sink is opened on the first line; a journal that
 * cannot be written warns once and never fails the command.
 */
export function journalRecorder(openSink: () => JournalSink, run: RunFacts, warn: (line: string) => void): (exchange: Exchange) => void {
  let warned = false;
  let sink: JournalSink | undefined;
  const command = commandLine(run.argv);
  return (exchange) => {
    try {
      sink ??= openSink();
      const reason = exchange.reason?.trim();
      sink.append({
        time: run.now().toISOString(),
        profile: run.profile,
        env: run.env,
        baseUrl: run.baseUrl,
        operator: operatorName(),
        command,
        method: exchange.method,
        path: exchange.path,
        status: exchange.status,
        message: exchange.message,
        ids: affectedIds(exchange.path, exchange.data),
        durationMs: exchange.durationMs,
        ...(reason ? { reason } : {}),
      }, run.secrets());
    } catch (error) {
      if (warned) return;
      warned = true;
      const dir = sink?.dir ?? 'the data directory';
      const why = fsReason(error);
      warn(`could not write the audit journal in ${dir} (${why}); the command itself went ahead. Set CARDCTL_DATA_DIR (or CARDCTL_JOURNAL_DIR) to a directory you can write`);
    }
  };
}
