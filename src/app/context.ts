// Builds the context a command's run() receives (its interface: src/contract/context.ts) from
// the streams, the environment and the global flags of one run.
import type { Dispatcher } from 'undici';
import type { ApiClient } from '../api/client.js';
import { DEFAULT_DIALECT, resolveDialect, type Dialect } from '../api/dialect.js';
import type { TokenProvider } from '../api/token-source.js';
import { ConfigStore, DEFAULT_PROFILE } from '../config/store.js';
import type { OutputFormat, OutputShape } from '../core/output-format.js';
import { escapeControls } from '../output/format.js';
import { Renderer, parseOutputFormat } from '../output/renderer.js';
import { createStyle, type Style } from '../output/style.js';
import { choosePager } from '../output/pager.js';
import { AuthError } from '../core/errors.js';
import type { IOStreams } from '../core/io.js';
import { NoPrompter, type Prompter } from '../core/prompter.js';
import { InquirerPrompter } from './prompter.js';
import { VERSION } from '../version.js';
import type { Flags } from '../core/flags.js';
import type { RunOrigin } from '../audit/record.js';
import { parseGlobals, type GlobalInput, type GlobalOptions } from '../core/global-flags.js';
import type { Clock, Env, Settings } from '../config/settings.js';
import { missingProfile, type Context, type Logger } from '../contract/context.js';

export interface ContextInit {
  io: IOStreams;
  env: Env;
  globals: GlobalOptions;
  prompter?: Prompter;
  clock?: Clock;
  /** undici dispatcher for tests (MockAgent). */
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  config?: ConfigStore;
  /** The command line as given (recorded in the audit journal, card numbers masked). */
  argv?: readonly string[];
  /** The declarations of the flags argv was parsed with, which say how each value is recorded. */
  flags?: readonly Flags[];
  /** Who the run is made for, when not the person at the terminal: recorded with each journal line. */
  origin?: RunOrigin;
  /** The global flags and terminal facts as the global parse step gave them (parseGlobals over `globals` when absent). */
  checked?: GlobalInput;
  /** What the command prints (CommandDefinition.output): --fields are checked against it, not the records. */
  outputShape?: OutputShape;
}

export function createContext(init: ContextInit): Context {
  const { env, globals } = init;
  const config = init.config ?? new ConfigStore(env);
  // A context made outside the command line (tests, the demo) runs the same global parse step.
  const { globals: checked, terminal } = init.checked ?? parseGlobals(globals, {
    env,
    stdoutIsTTY: init.io.stdoutIsTTY,
    stdinIsTTY: () => init.io.stdinIsTTY,
    streamsCanPrompt: init.io.canPrompt,
    profileNames: () => config.profileNames(),
  });
  const colorEnabled = terminal.colour;
  const canPrompt = terminal.canPrompt;
  // The streams' properties copied as they are, so those made on first use (systemIO) stay so.
  const io = Object.defineProperties({}, {
    ...Object.getOwnPropertyDescriptors(init.io),
    colorEnabled: { value: colorEnabled, enumerable: true },
    canPrompt: { value: canPrompt, enumerable: true },
  }) as IOStreams;
  const style = createStyle(colorEnabled);
  // stderr gets colour only when it is a terminal itself.
  const errStyle = createStyle(colorEnabled && init.io.stderrIsTTY);
  const prompter = init.prompter ?? (canPrompt ? new InquirerPrompter() : new NoPrompter());

  let settings: Settings | undefined;
  const resolveSettings = (): Settings => {
    if (settings) return settings;
    const explicit = checked.profile?.name;
    const profileName = explicit || config.currentProfileName() || DEFAULT_PROFILE;
    const profile = config.getProfile(profileName) ?? {};
    // --jq and --template work on the JSON value, so commands take their JSON path.
    const scripted = globals.jq !== undefined || globals.template !== undefined;
    const asked = globals.json ? 'json' : parseOutputFormat(globals.output ?? env.CARDCTL_OUTPUT ?? profile.output ?? 'table');
    const output = scripted ? 'json' : asked;
    settings = {
      profileName,
      profileExplicit: Boolean(explicit),
      profile,
      baseUrl: globals.baseUrl ?? env.CARDCTL_BASE_URL ?? profile.baseUrl,
      token: env.CARDCTL_TOKEN || profile.token,
      apiKey: env.CARDCTL_API_KEY || profile.apiKey,
      output,
      compactJq: globals.jq !== undefined && asked === 'ndjson',
      timeoutMs: checked.timeoutMs,
      retries: checked.retries,
      verbose: Boolean(globals.verbose || globals.debug || isTruthy(env.CARDCTL_DEBUG)),
      debug: Boolean(globals.debug),
      insecure: Boolean(globals.insecure),
    };
    return settings;
  };

  // Lines for people: control characters they carry (server text) are made visible, line by line.
  const shown = (text: string) => text.split('\n').map(escapeControls).join('\n');
  const log: Logger = {
    get verboseEnabled() { return resolveSettings().verbose; },
    get debugEnabled() { return resolveSettings().debug; },
    verbose: (line) => { if (resolveSettings().verbose) io.err(`${errStyle.dim(`* ${shown(line)}`)}\n`); },
    debug: (line) => { if (resolveSettings().debug) io.err(`${errStyle.dim(shown(line))}\n`); },
    warn: (line) => io.err(`${errStyle.warn('warning:')} ${shown(line)}\n`),
    // Notes for people ("page 1 of 3", "use it with …"): --quiet silences them, not warnings.
    info: (line, emphasis) => { if (!globals.quiet) io.err(`${emphasis ? errStyle[emphasis](shown(line)) : shown(line)}\n`); },
  };

  let clientPromise: Promise<ApiClient> | undefined;
  let dialect: Dialect | undefined;
  let tokenProvider: Promise<TokenProvider> | undefined;
  const ctx: Context = {
    io,
    env,
    clock: init.clock ?? { now: () => new Date() },
    prompter,
    config,
    globals,
    style,
    log,
    signal: init.signal ?? new AbortController().signal,
    argv: init.argv ?? [],
    settings: resolveSettings,
    dialect() {
      const s = resolveSettings();
      // A profile without dialect settings (nearly all) speaks the default as it is: no copy, no checks.
      dialect ??= s.profile.dialect ? resolveDialect(s.profile.dialect, `profile "${s.profileName}" dialect`) : DEFAULT_DIALECT;
      return dialect;
    },
    connection() {
      const s = resolveSettings();
      return {
        timeoutMs: s.timeoutMs,
        retries: s.retries,
        insecure: s.insecure,
        logger: log,
        signal: ctx.signal,
        env,
        userAgent: `cardctl/${VERSION} (node ${process.version}; ${process.platform})`,
      };
    },
    async accessToken(force) {
      const missing = missingProfile(ctx);
      if (missing) throw missing;
      tokenProvider ??= import('../api/token-source.js').then(({ createTokenSource }) => {
        const s = resolveSettings();
        return createTokenSource({
          envToken: env.CARDCTL_TOKEN,
          profileName: s.profileName,
          profile: s.profile,
          baseUrl: s.baseUrl,
          client: () => ctx.client(),
          now: () => ctx.clock.now(),
          saveToken: (token, tokenExpiresAt) => config.update((stored) => {
            const current = stored.profiles[s.profileName];
            if (current) Object.assign(current, { token, tokenExpiresAt });
          }),
          log,
        });
      });
      return (await tokenProvider)(force);
    },
    output(overrides = {}) {
      const s = resolveSettings();
      return new Renderer(io, style, {
        format: s.output,
        fields: globals.fields ? globals.fields.split(',').map((f) => f.trim()).filter(Boolean) : undefined,
        quiet: Boolean(globals.quiet),
        wide: Boolean(overrides.wide ?? globals.wide),
        jq: globals.jq,
        compactJq: s.compactJq,
        template: globals.template,
        pager: pagerFor(io, env, globals, s.output),
        signal: ctx.signal,
        showSecrets: Boolean(globals.showSecrets),
        // What an assistant reads never holds a secret (docs/mcp.md).
        neverSecrets: init.origin?.via === 'mcp',
        shape: init.outputShape,
      });
    },
    client() {
      clientPromise ??= (async () => {
        const s = resolveSettings();
        const missing = missingProfile(ctx);
        if (missing) throw missing;
        if (!s.baseUrl) {
          throw new AuthError(`profile "${s.profileName}" has no base URL`, {
            hint: 'run `cardctl login`, pass --base-url, or start a sandbox with `cardctl sandbox serve --profile sandbox`',
          });
        }
        const [{ ApiClient }, guard, { journalRecorder, knownSecrets }, { Journal }, { formatDryRun }] = await Promise.all([
          import('../api/client.js'),
          import('../contract/guard.js'),
          import('../audit/record.js'),
          import('../audit/journal.js'),
          import('../api/dry-run.js'),
        ]);
        // Profile policies apply to every command that talks to the API.
        guard.assertProfileExplicit(ctx);
        // The API key goes into a header as it is: refuse line breaks and the like before sending.
        if (s.apiKey) {
          const { checkCredential, credentialSource } = await import('../core/credentials.js');
          const { source, hint } = credentialSource('apiKey', Boolean(env.CARDCTL_API_KEY), s.profileName);
          checkCredential(s.apiKey, source, hint);
        }
        const banner = guard.productionBanner(ctx);
        if (banner) io.err(`${banner}\n`);
        const journalFacts = {
          profile: s.profileName,
          env: s.profile.env ?? 'unknown',
          baseUrl: s.baseUrl,
          argv: init.argv ?? [],
          flags: init.flags ?? [],
          origin: init.origin,
          now: () => ctx.clock.now(),
          secrets: () => knownSecrets(s, config.getProfile(s.profileName), env),
        };
        return new ApiClient({
          ...ctx.connection(),
          baseUrl: s.baseUrl,
          getToken: ctx.accessToken,
          apiKey: s.apiKey,
          dispatcher: init.dispatcher,
          dialect: ctx.dialect(),
          onExchange: journalRecorder(() => new Journal(env), journalFacts, log.warn),
          onDryRun: globals.dryRun ? (request) => io.out(formatDryRun(request, s.output === 'json' || s.output === 'ndjson')) : undefined,
        });
      })();
      return clientPromise;
    },
  };
  return ctx;
}

function pagerFor(io: IOStreams, env: Env, globals: GlobalOptions, output: OutputFormat): { command: string; env: Env } | undefined {
  if (output !== 'table' || globals.quiet) return undefined;
  const command = choosePager({ env, stdoutIsTTY: io.stdoutIsTTY, pagerFlag: globals.pager });
  return command ? { command, env } : undefined;
}

function isTruthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}
