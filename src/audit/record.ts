// Feeds the audit journal from the API client's onExchange hook: one line per logical mutating
// request. A journal that cannot be written warns once and never fails the command.
import { fsReason } from '../core/errors.js';
import { flagWords, takesValue, type FlagSpec, type Flags } from '../core/flags.js';
import { REDACTED, maskPan, redactBodyText } from '../core/redact.js';
import type { Env } from '../config/settings.js';
import { affectedIds, operatorName, type Journal } from './journal.js';
import { SECRET_ENV_VARS, SECRET_PROFILE_KEYS, type Profile } from '../config/store.js';
import type { ExchangeFacts } from '../core/exchange-facts.js';

/**
 * `cardctl …` as typed, read with the declarations of the flags it was parsed with (the command's
 * and the global ones): the value of any flag they do not declare withheld (src/core/flags.ts
 * says why no declared flag carries a secret), and every other word redacted as free text is
 * (redactBodyText: secret fields of a JSON `--data`, URL user info of `--base-url`, secret
 * `name=value` pairs and headers, card numbers). The value of the
 * flag named `elsewhere`, which the entry holds in a field of its own, is shown as `…`.
 */
export function commandLine(argv: readonly string[], flagSets: readonly Flags[], elsewhere?: string): string {
  const known = flagWords(flagSets);
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i).map(shownWord));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      out.push(shownWord(arg));
      continue;
    }
    const flag = flagOf(arg, known);
    const spec = flag.spec;
    if (spec && !takesValue(spec)) {
      out.push(shellWord(arg));
      continue;
    }
    // A declared flag takes the next word whatever it looks like (one whose value may be left out,
    // as commander reads it: unless that word is a flag); an unknown one is assumed to.
    let value = flag.inline;
    const takesNext = spec && !(spec.type === 'string' && spec.valueOptional) ? true : !argv[i + 1]?.startsWith('-');
    if (value === undefined && i + 1 < argv.length && takesNext) value = argv[++i];
    const shown = value === undefined ? undefined
      : !spec ? REDACTED
      : flag.name === elsewhere ? ELSEWHERE
      : spec.type === 'string' && spec.pan ? maskPan(value) : shownWord(value);
    if (shown === undefined) out.push(flag.name);
    else if (flag.inline === undefined) out.push(flag.name, shown);
    else out.push(`${flag.name}${flag.separator}${shown}`);
  }
  return ['cardctl', ...out].join(' ');
}

/** Shown for the value of a flag the entry holds in a field of its own (`--reason`). */
const ELSEWHERE = '…';

/** The flag an argument names, its declaration, and a value written into it: `--pan=5060…`, `-ojson`. */
function flagOf(arg: string, known: Map<string, FlagSpec>): { name: string; spec?: FlagSpec; inline?: string; separator: string } {
  const eq = arg.indexOf('=');
  if (arg.startsWith('--')) {
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    return { name, spec: known.get(name), inline: eq > 0 ? arg.slice(eq + 1) : undefined, separator: '=' };
  }
  // Short flags, as commander reads them: one (-p), one holding its value (-ojson), or
  // switches grouped (-yq).
  const first = known.get(arg.slice(0, 2));
  if (arg.length > 2 && first && takesValue(first)) return { name: arg.slice(0, 2), spec: first, inline: arg.slice(2), separator: '' };
  const letters = [...arg.slice(1)].map((letter) => known.get(`-${letter}`));
  const grouped = letters.length > 1 && letters.every((spec) => spec !== undefined && !takesValue(spec));
  return { name: arg, spec: grouped ? letters[0] : known.get(arg), separator: '' };
}

/** A word of the command line as the journal shows it: redacted, then quoted when it must be. */
function shownWord(word: string): string {
  return shellWord(redactBodyText(word));
}

function shellWord(word: string): string {
  return /[\s"'\\$`]/.test(word) ? JSON.stringify(word) : word;
}

/** Every secret a run knows, to be removed from whatever free text the journal records. */
export function knownSecrets(settings: { token?: string; apiKey?: string; profile: Profile }, stored: Profile | undefined, env: Env): Array<string | undefined> {
  // The stored profile as it is now: a client-credentials renewal may have replaced the token.
  const secrets = [settings.token, settings.apiKey, ...SECRET_ENV_VARS.map((name) => env[name])];
  // A loop, not flatMap: this runs for every journal line, an entry per card in a bulk run.
  for (const key of SECRET_PROFILE_KEYS) secrets.push(settings.profile[key], stored?.[key]);
  return secrets;
}

/** Where journal lines go (a Journal; tests may give any other). */
export type JournalSink = Pick<Journal, 'append' | 'flush' | 'dir'>;

/** Who a run is made for when not the person at the terminal, recorded with each journal line it causes. */
export interface RunOrigin {
  /** The channel: a tool call of an MCP client (`cardctl mcp`). */
  via: 'mcp';
  /** The client's name/version, as it introduced itself. */
  client: string;
  /** The reason the caller gave for the whole call: the journal's `reason` when the request has none of its own. */
  reason?: string;
}

/** What every journal line of one run shares: where it talked to, as whom, with which command line. */
export interface RunFacts {
  profile: string;
  /** The profile's `env` (sandbox, production, …). */
  env: string;
  baseUrl: string;
  /** The command line as typed; recorded as commandLine() shows it. */
  argv: readonly string[];
  /** The declarations of the flags argv was parsed with: what commandLine() shows of each value. */
  flags: readonly Flags[];
  /** Who the run is made for, when not the person at the terminal (`cardctl mcp`). */
  origin?: RunOrigin;
  now(): Date;
  /** Secrets to remove from every line, read when the line is written. */
  secrets(): ReadonlyArray<string | undefined>;
}

/**
 * The API client's onExchange hook: one journal line per mutating call, from the facts of the
 * run and of the call (its reason included). The sink is opened on the first line; a journal that
 * cannot be written warns once and never fails the command. While a bulk run holds the journal
 * (holdJournal), the lines of one turn of the event loop are written together at its end.
 */
export function journalRecorder(openSink: () => JournalSink, run: RunFacts, warn: (line: string) => void): (exchange: ExchangeFacts) => void {
  let warned = false;
  let sink: JournalSink | undefined;
  const command = commandLine(run.argv, run.flags);
  // An entry with a reason holds it once, in `reason`: a long one doubled every line.
  let commandWithoutReason: string | undefined;
  const failed = (error: unknown) => {
    if (warned) return;
    warned = true;
    const dir = sink?.dir ?? 'the data directory';
    const why = fsReason(error);
    warn(`could not write the audit journal in ${dir} (${why}); the command itself went ahead. Set CARDCTL_DATA_DIR (or CARDCTL_JOURNAL_DIR) to a directory you can write`);
  };
  const flush = () => {
    try {
      sink?.flush();
    } catch (error) {
      failed(error);
    }
  };
  return (exchange) => {
    try {
      sink ??= openSink();
      // A tool call's reason is the assistant's, given for the whole call.
      const reason = exchange.reason?.trim() || run.origin?.reason?.trim();
      const later = holds > 0;
      sink.append({
        time: run.now().toISOString(),
        profile: run.profile,
        env: run.env,
        baseUrl: run.baseUrl,
        operator: operatorName(),
        command: reason ? (commandWithoutReason ??= commandLine(run.argv, run.flags, '--reason')) : command,
        method: exchange.method,
        // A query string may carry a secret-named parameter (`?token=…`).
        path: redactBodyText(exchange.path),
        status: exchange.status,
        message: exchange.message,
        ids: [...new Set([...affectedIds(exchange.path, exchange.data), ...(exchange.ids ?? [])])],
        durationMs: exchange.durationMs,
        ...(exchange.phase === 'intent' || exchange.phase === 'found' ? { phase: exchange.phase } : {}),
        ...(exchange.reference ? { reference: exchange.reference } : {}),
        ...(reason ? { reason } : {}),
        ...(run.origin ? { via: run.origin.via, client: run.origin.client } : {}),
      }, run.secrets(), { later });
      if (later) flushSoon(flush);
    } catch (error) {
      failed(error);
    }
  };
}

/** Bulk runs holding the journal (holdJournal), and the recorders with lines waiting. */
let holds = 0;
const waiting = new Set<() => void>();
let flushScheduled = false;

function flushSoon(flush: () => void): void {
  waiting.add(flush);
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flushWaiting);
}

function flushWaiting(): void {
  flushScheduled = false;
  for (const flush of waiting) flush();
  waiting.clear();
}

/**
 * For a run that journals an entry per row: until the returned release is called, each
 * recorder writes the lines of one turn of the event loop in one write at its end (and at exit)
 * instead of one write each; release writes what is waiting. With 8 answers read from a socket
 * at once that is a write per 8 cards, and a SIGKILL can cost the journal the entries of the
 * last turn, as it can the last batch of the report (src/bulk/import-report.ts).
 */
export function holdJournal(): () => void {
  if (holds++ === 0) process.on('exit', flushWaiting);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    flushWaiting();
    if (--holds === 0) process.off('exit', flushWaiting);
  };
}
