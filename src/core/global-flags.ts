// The flags every command takes, and the one parse step that checks them. GlobalOptions, the type
// the context reads them as, is inferred from these declarations.
import { OUTPUT_FORMATS } from './output-format.js';
import { defineFlags, type FlagValues } from './flags.js';
import { UsageError } from './errors.js';
import { decideCanPrompt, decideColor } from './io.js';

export const GLOBAL_FLAGS = defineFlags({
  profile: { type: 'string', short: 'p', value: 'name', complete: 'profile', description: 'stored profile to use', env: 'CARDCTL_PROFILE' },
  baseUrl: { type: 'string', value: 'url', description: 'API base URL, overrides the profile', env: 'CARDCTL_BASE_URL', prompt: 'API base URL' },
  output: { type: 'string', short: 'o', value: 'format', description: 'output format', env: 'CARDCTL_OUTPUT', choices: OUTPUT_FORMATS },
  json: { type: 'boolean', description: 'same as -o json' },
  fields: { type: 'string', value: 'list', description: 'columns or properties to show, comma-separated, dot paths allowed' },
  quiet: { type: 'boolean', short: 'q', description: 'print only identifiers, one per line' },
  color: { type: 'negated', description: 'never use colour (also NO_COLOR)' },
  verbose: { type: 'boolean', short: 'v', description: 'log each HTTP request to stderr (also CARDCTL_DEBUG=1)' },
  debug: { type: 'boolean', description: 'also log headers and bodies (secrets redacted) and stack traces' },
  timeout: { type: 'string', value: 'seconds', description: 'per-request timeout in seconds (default 30)' },
  retries: { type: 'string', value: 'n', description: 'retries for safe requests after network errors, 429 and 500/502/503/504 (default 2)' },
  retry: { type: 'negated', description: 'never retry' },
  insecure: { type: 'boolean', description: 'allow plain http:// to a non-loopback host' },
  yes: { type: 'boolean', short: 'y', description: 'answer yes to confirmations' },
  confirmProduction: { type: 'boolean', description: 'with --yes: also confirm destructive steps on a production profile' },
  dryRun: { type: 'boolean', description: 'validate and print the request a mutating command would send; send nothing' },
  input: { type: 'negated', description: 'never prompt (also when CI is set)' },
  jq: { type: 'string', value: 'expression', description: 'filter the JSON output with a jq expression (strings print raw)' },
  template: { type: 'string', value: 'template', description: "print each record with a template, e.g. '{{.id}}\\t{{.status}}' (cardctl help output)" },
  pager: { type: 'negated', description: 'never page table output (also CARDCTL_PAGER=cat)' },
  showSecrets: { type: 'boolean', description: 'show secret-named fields (webhook secrets, tokens, keys) in the output; never for MCP tools' },
});

/**
 * The global options as commands and the context read them. Every key is optional: a context
 * built outside the command line (tests, the demo) gives only what it sets.
 */
export type GlobalOptions = Partial<FlagValues<typeof GLOBAL_FLAGS>> & {
  /** --wide, for the commands that declare it. */
  wide?: boolean;
};

/** What a usage decision may depend on of the terminal the command line was typed at (gh's `tty`). */
export interface TerminalFacts {
  stdoutIsTTY: boolean;
  /** Prompts are allowed: terminals on both ends, no --no-input, no CI. */
  canPrompt: boolean;
  /** Colour on stdout: a terminal, no --no-color or NO_COLOR (FORCE_COLOR forces it). */
  colour: boolean;
}

/** The global flags once checked: the values the context builds on, so it checks nothing itself. */
export interface CheckedGlobals {
  /** The profile -p or CARDCTL_PROFILE names (never blank), and which of the two named it. */
  profile: { name: string; from: '-p' | 'CARDCTL_PROFILE' } | undefined;
  timeoutMs: number;
  /** 0 with --no-retry. */
  retries: number;
}

/** What the global parse step gives every command's own parse step. */
export interface GlobalInput {
  globals: CheckedGlobals;
  terminal: TerminalFacts;
}

/** What the global parse step reads besides the flags: the environment and the terminal. */
export interface GlobalFacts {
  env: Record<string, string | undefined>;
  stdoutIsTTY: boolean;
  /** Asked only when the rest allows prompting (reading stdin's kind is left undone otherwise). */
  stdinIsTTY: boolean | (() => boolean);
  /** false when the streams themselves cannot prompt (buffers, `cardctl mcp`). */
  streamsCanPrompt?: boolean;
  /** The stored profile names, for the hint of a blank profile name. */
  profileNames?: () => string[];
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRIES = 2;

/**
 * The one global parse step, before the command's own: the global flags (and the variables that
 * stand for them) → CheckedGlobals, or the UsageError the run ends with before anything is sent.
 */
export function parseGlobals(opts: GlobalOptions, facts: GlobalFacts): GlobalInput {
  const { env } = facts;
  if (opts.jq !== undefined && opts.template !== undefined) throw new UsageError('--jq and --template cannot be used together');
  const canPrompt = (facts.streamsCanPrompt ?? true) && decideCanPrompt({ env, stdinIsTTY: facts.stdinIsTTY, stdoutIsTTY: facts.stdoutIsTTY, inputFlag: opts.input });
  return {
    globals: {
      profile: explicitProfile(opts, facts),
      timeoutMs: parseTimeout(opts.timeout),
      retries: opts.retry === false ? 0 : parseRetries(opts.retries),
    },
    terminal: { stdoutIsTTY: facts.stdoutIsTTY, canPrompt, colour: decideColor({ env, stdoutIsTTY: facts.stdoutIsTTY, colorFlag: opts.color }) },
  };
}

function explicitProfile(opts: GlobalOptions, { env, profileNames }: GlobalFacts): CheckedGlobals['profile'] {
  const fromFlag = opts.profile !== undefined;
  const name = opts.profile ?? env.CARDCTL_PROFILE;
  if (name === undefined) return undefined;
  if (name.trim() === '') {
    const names = profileNames?.() ?? [];
    throw new UsageError(fromFlag ? '-p/--profile needs a profile name' : 'CARDCTL_PROFILE is set but empty', {
      hint: `${fromFlag ? 'give -p NAME' : 'unset it or give it a profile name'}${names.length ? `; stored profiles: ${names.join(', ')}` : ''}`,
    });
  }
  return { name, from: fromFlag ? '-p' : 'CARDCTL_PROFILE' };
}

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new UsageError(`invalid --timeout "${value}": give seconds between 0 and 3600, e.g. --timeout 10`);
  }
  return Math.round(seconds * 1000);
}

function parseRetries(value: string | undefined): number {
  if (value === undefined) return DEFAULT_RETRIES;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 10) throw new UsageError(`invalid --retries "${value}": give a whole number from 0 to 10`);
  return n;
}
