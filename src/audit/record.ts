// Feeds the audit journal from the API client's onExchange hook: one line per logical mutating
// request. A journal that cannot be written warns once and never fails the command.
import type { Exchange } from '../api/client.js';
import type { Context } from '../core/context.js';
import { fsReason } from '../core/errors.js';
import { REDACTED, maskPan } from '../core/redact.js';
import { Journal, affectedIds, operatorName } from './journal.js';
import { SECRET_PROFILE_KEYS } from '../config/store.js';

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

/** Every secret the context knows, to be removed from whatever free text the journal records. */
function knownSecrets(ctx: Context): Array<string | undefined> {
  const s = ctx.settings();
  // The stored profile as it is now: a client-credentials renewal may have replaced the token.
  const stored = ctx.config.getProfile(s.profileName) ?? {};
  return [s.token, s.apiKey, ctx.env.CARDCTL_TOKEN, ctx.env.CARDCTL_API_KEY, ...SECRET_PROFILE_KEYS.flatMap((key) => [s.profile[key], stored[key]])];
}

/** The onExchange hook for a context: writes the journal line, warning once if it cannot. */
export function journalRecorder(ctx: Context, argv: readonly string[]): (exchange: Exchange) => void {
  let warned = false;
  let journal: Journal | undefined;
  return (exchange) => {
    try {
      const s = ctx.settings();
      journal ??= new Journal(ctx.env);
      const reason = ctx.audit.reason?.trim();
      journal.append({
        time: ctx.clock.now().toISOString(),
        profile: s.profileName,
        env: s.profile.env ?? 'unknown',
        baseUrl: s.baseUrl ?? '',
        operator: operatorName(),
        command: commandLine(argv),
        method: exchange.method,
        path: exchange.path,
        status: exchange.status,
        message: exchange.message,
        ids: affectedIds(exchange.path, exchange.data),
        durationMs: exchange.durationMs,
        ...(reason ? { reason } : {}),
      }, knownSecrets(ctx));
    } catch (error) {
      if (warned) return;
      warned = true;
      const dir = journal?.dir ?? 'the data directory';
      const why = fsReason(error);
      ctx.log.warn(`could not write the audit journal in ${dir} (${why}); the command itself went ahead. Set CARDCTL_DATA_DIR (or CARDCTL_JOURNAL_DIR) to a directory you can write`);
    }
  };
}
