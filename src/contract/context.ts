// The context every command's run() receives: io, prompter, config, env, clock, and a lazily
// built API client. Commands never read process or console globals. The interface, and the error
// for a selected profile that is not stored; src/app/context.ts builds the context for a run, and
// tests build one with buffers (test/helpers/context.ts).
import type { ApiClient, Connection, HttpLogger } from '../api/client.js';
import type { Dialect } from '../api/dialect.js';
import type { TokenProvider } from '../api/token-source.js';
import type { ConfigStore } from '../config/store.js';
import { UsageError } from '../core/errors.js';
import type { IOStreams } from '../core/io.js';
import type { Prompter } from '../core/prompter.js';
import type { GlobalOptions } from '../core/global-flags.js';
import type { Renderer } from '../output/renderer.js';
import type { Style } from '../output/style.js';
import type { Clock, Env, Settings } from '../config/settings.js';

export type { Clock, Env, Settings } from '../config/settings.js';

/** Flags every command accepts (declared once on the root program). */
export type { GlobalOptions } from '../core/global-flags.js';

export interface Context {
  io: IOStreams;
  env: Env;
  clock: Clock;
  prompter: Prompter;
  config: ConfigStore;
  globals: GlobalOptions;
  style: Style;
  settings(): Settings;
  output(overrides?: { wide?: boolean }): Renderer;
  /** The API client for the selected profile, built on first use. */
  client(): Promise<ApiClient>;
  /** The deployment dialect of the selected profile (the default, with the profile's settings on top). */
  dialect(): Dialect;
  /** The bearer token of the selected profile (renewed first when it comes from client credentials). */
  accessToken: TokenProvider;
  /** How this run connects (timeout, retries, TLS, logging, Ctrl-C), for a client of another base URL. */
  connection(): Connection;
  log: Logger;
  /** Aborted on Ctrl-C; long-running commands pass it to requests and loops. */
  signal: AbortSignal;
  /** The command line as given (aliases expanded): what a hint to run it again starts from. */
  argv: readonly string[];
}

export interface Logger extends HttpLogger {
  warn(line: string): void;
  /** A note for people on stderr; silent with --quiet. `emphasis` styles it after its control characters are made visible. */
  info(line: string, emphasis?: 'dim' | 'bold'): void;
}

/**
 * A profile named with -p / CARDCTL_PROFILE, or made current, must exist: a typo is not an empty
 * profile. The error for the selected profile when it is not stored, else undefined. (Commands
 * that create profiles, such as login, do not ask.)
 */
export function missingProfile(ctx: Pick<Context, 'settings' | 'config' | 'globals'>): UsageError | undefined {
  const s = ctx.settings();
  const named = s.profileExplicit ? s.profileName : ctx.config.read().currentProfile;
  if (named === undefined || ctx.config.getProfile(named)) return undefined;
  return noSuchProfile(ctx.config, named, s.profileExplicit ? (ctx.globals.profile !== undefined ? '-p' : 'CARDCTL_PROFILE') : 'current');
}

/**
 * The error for a profile name that is not in the config file, listing the ones that are: a usage
 * error (exit 2, nothing sent), never the 4 of a card or transaction the API does not have.
 */
export function noSuchProfile(config: ConfigStore, name: string, from: '-p' | 'CARDCTL_PROFILE' | 'current'): UsageError {
  const names = config.profileNames();
  const where = from === 'current' ? `the current profile "${name}"` : from === '-p' ? `profile "${name}"` : `profile "${name}" (from CARDCTL_PROFILE)`;
  return new UsageError(`${where} does not exist`, {
    code: 'NO_SUCH_PROFILE',
    hint: names.length
      ? `stored profiles: ${names.join(', ')}${from === 'current' ? '; choose one with `cardctl profile use NAME`' : ''}`
      : 'no profiles yet: run `cardctl login`',
  });
}
