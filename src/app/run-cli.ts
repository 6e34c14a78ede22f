// Runs a command line in two steps. First the commander tree is built from the command manifest
// (src/commands/manifest.ts: every command as data), which answers help, usage errors and which
// command the line names without loading a command module; then that command's own module is
// loaded, and the line parsed again with its definition and run with a context. The only place
// that turns errors into exit codes.
import { Command, CommanderError, type OutputConfiguration } from 'commander';
import type { Dispatcher } from 'undici';
import { builtinNames, expandAlias } from '../aliases/expand.js';
import { DryRunStop } from '../api/dry-run.js';
import { ConfigStore } from '../config/store.js';
import { type AnyCommand, type ArgumentSpec, type CliHost, type CommandDefinition, type GroupDefinition, type RunInput, type RunOrigin } from '../contract/command.js';
import { COMMAND_MANIFEST, isGroupOutline, LEAF_LOADERS, type OutlineNode } from '../commands/manifest.js';
import { addFlags, type Flags } from '../core/flags.js';
import { GLOBAL_FLAGS, parseGlobals, type GlobalFacts } from '../core/global-flags.js';
import { createContext } from './context.js';
import type { Env, GlobalOptions } from '../contract/context.js';
import { CliError, ExitCode, InterruptedError, NetworkError, UsageError, toCliError } from '../core/errors.js';
import { decideColor, systemIO, type IOStreams } from '../core/io.js';
import type { Prompter } from '../core/prompter.js';
import { redactValue } from '../core/redact.js';
import { terminalLine } from '../output/format.js';
import { createStyle, loadColours } from '../output/style.js';
import { explainCommanderError } from '../help/commander-errors.js';
import { versionRequest, versionText } from '../help/version.js';
import { VERSION } from '../version.js';

export interface MainDeps {
  io?: IOStreams;
  env?: Env;
  prompter?: Prompter;
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  /** Who the run is made for, when not the person at the terminal (`cardctl mcp`): kept in the audit journal. */
  origin?: RunOrigin;
}

export type TreeNode = AnyCommand | GroupDefinition;

/** commander's help width when stdout (or stderr) is not a terminal. */
const PIPED_HELP_WIDTH = 80;

/** Every command definition (commands/index.ts), in the order `cardctl --help` lists them. */
export async function wholeTree(): Promise<TreeNode[]> {
  return (await import('../commands/index.js')).commandTree;
}

/**
 * The CLI as a command's run() may use it (demo, alias set, completion): handed to run() rather
 * than imported, since this module imports every command.
 */
export const host: CliHost = {
  run: (argv, deps) => runCli(argv, deps),
  builtinNames: async () => builtinNames(COMMAND_MANIFEST),
  tree: wholeTree,
  program: async () => buildProgram(COMMAND_MANIFEST),
};

/** Runs cardctl with the given arguments; resolves to the exit code. */
export async function runCli(argv: string[], deps: MainDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const state: RunState = { globals: {} };
  // stdout that cannot take the output (`> /dev/full`): one error line, and the run ends there.
  const io: IOStreams = deps.io ?? systemIO(process, (failure) => process.exit(reportError(failure, io, env, state.globals)));
  await loadColours({ env, stdoutIsTTY: io.stdoutIsTTY });
  try {
    argv = await expandUserAlias(argv, env);
  } catch (error) {
    return reportError(toCliError(error), io, env, sniffGlobals(argv));
  }

  // `cardctl` alone is a request for help, printed to stdout (exit 0) like `cardctl --help`.
  if (argv.length === 0) argv = ['--help'];
  const ghJson = ghJsonHabit(argv);
  if (ghJson) return reportError(ghJson, io, env, {});

  // Fast paths: `--version` touches neither the command tree nor the config; `__complete`
  // (asked by the shell completion scripts on every TAB) reads only the config.
  const version = versionRequest(argv);
  if (version) {
    io.out(versionText(version, { node: process.version, platform: process.platform, arch: process.arch }));
    return ExitCode.Ok;
  }
  if (argv[0] === '__complete') return (await import('../completion/dynamic.js')).runCompletionQuery(argv.slice(1), io, env);
  // `help <topic>` prints a topic; `help <command>` falls through to commander (src/help/).
  if (argv[0] === 'help' && argv.length === 2) {
    const shown = (await import('../help/index.js')).showHelpTopic(argv[1]!, io, COMMAND_MANIFEST);
    if (shown === true) return ExitCode.Ok;
    if (shown instanceof CliError) return reportError(shown, io, env, {});
  }

  const interrupt = deps.signal ? undefined : installInterruptHandler(io);
  const input: BuildInput = { io, env, deps, state, signal: deps.signal ?? interrupt!.signal, argv };
  // Step one, from the manifest: help and usage errors end here; a line that names a command
  // gives the command's path.
  let path: string[] | undefined;
  let program = makeProgram(alongPath(COMMAND_MANIFEST, argv), io, async (line) => {
    path = line.path;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    if (!path) return ExitCode.Ok;
    // Step two: the command's own module (and no other command's); the line parsed again, now
    // with the definition's own validators, and the command run.
    const leaf = await LEAF_LOADERS[path.join(' ')]!();
    program = makeProgram(pathTo(COMMAND_MANIFEST, path, leaf), io, runner(input, leaf));
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.Ok;
  } catch (error) {
    if (error instanceof CommanderError) return handleCommanderError(error, io, env, argv, program);
    // --dry-run: the request was printed instead of sent; that is the command's success.
    if (error instanceof DryRunStop) return ExitCode.Ok;
    const signal = deps.signal ?? interrupt!.signal;
    // After Ctrl-C, what failed is the interruption; a command that says how to go on keeps its words.
    const failure = signal.aborted && !(error instanceof CliError && error.exitCode === ExitCode.Partial) && !(error instanceof InterruptedError)
      ? new InterruptedError()
      : toCliError(error);
    return reportError(await explainRefusal(failure, env, state.globals), io, env, { ...sniffGlobals(argv), ...state.globals });
  } finally {
    interrupt?.dispose();
  }
}

/**
 * `nodes` with each group on the path `words` starts with cut down to the child the next word
 * names: commander is then given one leaf's flags instead of every sibling's (`cards list` builds
 * 1 of 17 verbs). A word that names no child (a flag, a typo) keeps the level whole, so help,
 * errors and suggestions are the same.
 */
function alongPath<N extends OutlineNode>(nodes: readonly N[], words: readonly string[]): N[] {
  const child = words.length === 0 ? undefined : nodes.find((c) => c.name === words[0] || c.aliases?.includes(words[0]!));
  if (!child) return [...nodes];
  return [isGroupOutline(child) ? { ...child, commands: alongPath(child.commands, words.slice(1)) } : child];
}

/** The groups of the manifest along `path` (canonical names), each cut down to the next, ending at `leaf`. */
function pathTo(nodes: readonly OutlineNode[], path: readonly string[], leaf: AnyCommand): OutlineNode[] {
  const node = nodes.find((c) => c.name === path[0]);
  return [node && isGroupOutline(node) ? { ...node, commands: pathTo(node.commands, path.slice(1), leaf) } : leaf];
}

/**
 * A refused connection through a profile `sandbox serve --memory` stored: its sandbox stopped
 * (config/sandbox-profile.ts). Any other error as it is.
 */
async function explainRefusal(failure: CliError, env: Env, globals: GlobalOptions): Promise<CliError> {
  if (failure.code !== 'ECONNREFUSED') return failure;
  const config = new ConfigStore(env);
  const name = globals.profile ?? env.CARDCTL_PROFILE ?? config.currentProfileName();
  if (!name || globals.baseUrl !== undefined || env.CARDCTL_BASE_URL !== undefined) return failure;
  const { stoppedSandbox } = await import('../config/sandbox-profile.js');
  const stopped = stoppedSandbox(name, config.getProfile(name));
  return stopped ? new NetworkError(stopped.message, { code: 'SANDBOX_STOPPED', hint: stopped.hint, cause: failure }) : failure;
}

/** `cardctl NAME …` where NAME is a user alias (src/aliases/): the command line it stands for. */
async function expandUserAlias(argv: string[], env: Env): Promise<string[]> {
  const first = argv[0];
  if (!first || first.startsWith('-') || first === '__complete') return argv;
  const builtins = builtinNames(COMMAND_MANIFEST);
  if (builtins.has(first)) return argv;
  return expandAlias(argv, new ConfigStore(env).read().aliases, builtins);
}

interface RunState {
  globals: GlobalOptions;
}

interface BuildInput {
  /** The command line, for the audit journal. */
  argv?: readonly string[];
  io: IOStreams;
  env: Env;
  deps: MainDeps;
  state: RunState;
  signal: AbortSignal;
}

/** The examples of `cardctl --help` (and of the man page). */
export const PROGRAM_EXAMPLES: readonly string[] = [
  'cardctl demo                                  # a walkthrough against an in-memory sandbox',
  'cardctl sandbox serve --profile sandbox       # keep a local sandbox running',
  'cardctl cards list --all -o ndjson',
  'cardctl help exit-codes',
];

/** The commander program for the commands in `tree` (definitions or their manifest), for help: nothing runs. */
export function buildProgram(tree: readonly OutlineNode[]): Command {
  return makeProgram(tree, null, null);
}

/** The commander program for `tree`, writing to `io` when given, each leaf's action `run`. */
function makeProgram(tree: readonly OutlineNode[], io: IOStreams | null, run: LeafRunner | null): Command {
  const program = new Command('cardctl');
  program
    .description('Operate a card-issuing institution from the terminal: cards, PINs, transactions, OAuth applications, users, imports, switch simulations and a local sandbox of the API.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .showHelpAfterError(false)
    .exitOverride()
    .addHelpText('after', `
Examples:
${PROGRAM_EXAMPLES.map((e) => `  $ ${e}`).join('\n')}

Learn more: cardctl <command> --help, cardctl help <topic>
  (exit-codes, environment, files, output, pin-encryption, scenarios, bulk, deployment, mcp, exchanges, load)`);

  addFlags(program, GLOBAL_FLAGS);
  if (io) program.configureOutput(outputConfiguration(io));
  for (const definition of tree) addNode(program, definition, run);
  return program;
}

/**
 * Where commander writes help, and how wide: the run's io, never process.stdout directly, so
 * help printed into a buffer (tests, the demo's steps) wraps the way the io says.
 */
function outputConfiguration(io: IOStreams): OutputConfiguration {
  return {
    writeOut: (text) => io.out(text),
    writeErr: (text) => io.err(text),
    // Errors are reported by handleCommanderError, in our own format.
    outputError: () => {},
    // commander's own default: the terminal's width, 80 columns when not a terminal.
    getOutHelpWidth: () => (io.stdoutIsTTY && io.columns ? io.columns : PIPED_HELP_WIDTH),
    getErrHelpWidth: () => (io.stderrIsTTY && io.columns ? io.columns : PIPED_HELP_WIDTH),
    // Help is plain text; no styles to keep.
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  };
}

/** A leaf's command line as commander parsed it, and the leaf's path of canonical names. */
type ParsedLine = Pick<RunInput, 'args' | 'opts'> & { path: string[] };

/** What a leaf does once commander has parsed its command line. */
type LeafRunner = (line: ParsedLine) => Promise<void>;

/** The real run of `definition`: a context for the parsed globals, then the command's run(). */
function runner(input: BuildInput, definition: AnyCommand): LeafRunner {
  return async ({ path: _path, ...runInput }) => {
    input.state.globals = runInput.opts;
    const config = new ConfigStore(input.env);
    const checked = parseGlobals(runInput.opts, {
      env: input.env,
      stdoutIsTTY: input.io.stdoutIsTTY,
      stdinIsTTY: () => input.io.stdinIsTTY,
      streamsCanPrompt: input.io.canPrompt,
      profileNames: () => config.profileNames(),
    });
    const { fields, jq, template } = runInput.opts;
    const ctx = createContext({
      io: input.io,
      env: input.env,
      globals: runInput.opts,
      prompter: input.deps.prompter,
      dispatcher: input.deps.dispatcher,
      signal: input.signal,
      argv: input.argv,
      flags: [GLOBAL_FLAGS, definition.flags ?? {}],
      origin: input.deps.origin,
      config,
      checked,
      // Loaded only for --fields: it reads the response schemas, which most runs do not need.
      outputShape: fields !== undefined ? await definition.output?.() : undefined,
    });
    // The options that shape the output are checked first: exit 2 means nothing was sent.
    if (fields !== undefined || jq !== undefined || template !== undefined) await ctx.output().ready();
    // Then the command's own parse step: flags, arguments and the files they name (pure, no I/O but reads).
    const parsed = await parseInput(definition, { ...runInput, ...checked, cli: host, now: new Date() });
    await definition.run(ctx, parsed);
  };
}

/**
 * A help description as paragraphs of one line each, for commander to wrap once at the help
 * width: the source's own line breaks inside a paragraph would otherwise stay, and every line
 * wider than the help would be wrapped again (a short line after each). Blank lines separate
 * paragraphs; a line that starts with whitespace or a list or table mark (-, *, |, $) keeps its own.
 */
export function reflowProse(text: string): string {
  // A list item starts "- " or "* "; a line that starts with a flag (--secret-stdin, -o json) is prose.
  return text.replace(/([^\n])\n(?=[^\n])(?![\s|$]|[-*] )/g, '$1 ');
}

function addNode(parent: Command, definition: OutlineNode, run: LeafRunner | null): Command {
  const command = parent.command(definition.name).summary(definition.summary);
  command.description(reflowProse(definition.description ?? definition.summary));
  for (const alias of definition.aliases ?? []) command.alias(alias);
  // exitOverride, showSuggestionAfterError and the output configuration are inherited from the
  // program: commander copies them into every command created with .command().
  if (definition.examples?.length) {
    command.addHelpText('after', `\nExamples:\n${definition.examples.map((e) => `  $ ${e}`).join('\n')}\n`);
  }
  if (isGroupOutline(definition)) {
    for (const child of definition.commands) addNode(command, child, run);
    return command;
  }
  for (const argument of definition.args ?? []) command.argument(argument.syntax, argument.description);
  if (definition.flags) addFlags(command, definition.flags);
  command.action(async (...actionArgs: unknown[]) => {
    if (!run) return;
    // commander hands over the positional values, then its options object and the command; the
    // options were built from the definition's flags, so they have the type run() declares.
    const cmd = actionArgs[actionArgs.length - 1] as Command;
    const args = actionArgs.slice(0, -2) as Array<string | string[] | undefined>;
    await run({ args, opts: cmd.optsWithGlobals(), path: commandPath(cmd) });
  });
  return command;
}

/** The canonical names from the top-level command down to `command`. */
function commandPath(command: Command): string[] {
  return command.parent ? [...commandPath(command.parent), command.name()] : [];
}

/** The terminal and environment a parse step alone is given: by default none, and no terminal (a script's). */
export type ParseFacts = Partial<GlobalFacts>;

/**
 * The parse step of one command alone: its command line (global flags included) → the typed
 * input its run() would get, or the UsageError main() would report. Nothing runs.
 */
export async function parseCommand<F extends Flags, A extends readonly ArgumentSpec[], I>(definition: CommandDefinition<F, A, I>, argv: string[], now = new Date(), facts: ParseFacts = {}): Promise<I> {
  const program = new Command('cardctl').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  addFlags(program, GLOBAL_FLAGS);
  let parsed: RunInput<F, A> | undefined;
  addNode(program, definition as AnyCommand, async ({ path: _path, ...input }) => {
    const checked = parseGlobals(input.opts, { env: {}, stdoutIsTTY: false, stdinIsTTY: false, ...facts });
    parsed = { ...input, ...checked, cli: host, now } as RunInput<F, A>;
  });
  const line = [definition.name, ...argv];
  try {
    await program.parseAsync(line, { from: 'user' });
  } catch (error) {
    throw error instanceof CommanderError ? usageError(error, program, line) : error;
  }
  if (!parsed) throw new Error(`${definition.name}: commander did not run the command`);
  return parseInput(definition, parsed);
}

/** The command's own parse step over what commander parsed (its input as is when it has none). */
async function parseInput<F extends Flags, A extends readonly ArgumentSpec[], I>(definition: CommandDefinition<F, A, I>, raw: RunInput<F, A>): Promise<I> {
  // Without parse(), I is RunInput<F, A> (defineCommand's default).
  return definition.parse ? definition.parse(raw) : (raw as I);
}

function handleCommanderError(error: CommanderError, io: IOStreams, env: Env, argv: string[], program: Command): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
    return ExitCode.Ok;
  }
  if (error.code === 'commander.executeSubCommandAsync' || error.exitCode === 0) return ExitCode.Ok;
  return reportError(usageError(error, program, argv), io, env, sniffGlobals(argv));
}

/** A command line commander refused, as the usage error cardctl reports. */
function usageError(error: CommanderError, program: Command, argv: string[]): UsageError {
  const { message, hint } = explainCommanderError(error, program, argv);
  return new UsageError(message, { code: error.code.replace('commander.', 'USAGE_'), hint });
}

/**
 * gh's `--json a,b` (a list of fields): here --json is `-o json` and takes no value, and the list
 * would be read as an argument (a card id). A usage error naming cardctl's form instead. A value
 * with a comma cannot be an identifier, so `--json ID` stays an id after the flag.
 */
function ghJsonHabit(argv: readonly string[]): UsageError | undefined {
  const end = argv.indexOf('--');
  for (const [i, arg] of (end < 0 ? argv : argv.slice(0, end)).entries()) {
    const list = arg.startsWith('--json=') ? arg.slice('--json='.length) : arg === '--json' && argv[i + 1]?.includes(',') && !argv[i + 1]!.startsWith('-') ? argv[i + 1] : undefined;
    if (list !== undefined) {
      return new UsageError(`--json takes no list of fields here: it is -o json`, { code: 'USAGE_JSON_FIELDS', hint: `use --fields ${list} -o json` });
    }
  }
  return undefined;
}

/** The output flags, read from argv when commander could not parse it (for the JSON error object). */
function sniffGlobals(argv: string[]): ReportedGlobals {
  const globals: ReportedGlobals = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--json') globals.json = true;
    else if (arg === '--debug') globals.debug = true;
    else if (arg === '--no-color') globals.color = false;
    else if ((arg === '-o' || arg === '--output') && argv[i + 1]) globals.output = argv[++i];
    else if (arg.startsWith('--output=')) globals.output = arg.slice('--output='.length);
    else if (arg.startsWith('-o') && arg.length > 2 && !arg.startsWith('--')) globals.output = arg.slice(2);
  }
  return globals;
}

/** Prints a CliError as `cardctl help exit-codes` describes and returns its exit code. */
/** The global flags an error report reads; --output as typed, when commander could not check it. */
type ReportedGlobals = Pick<GlobalOptions, 'json' | 'debug' | 'color'> & { output?: string };

export function reportError(error: CliError, io: IOStreams, env: Env, globals: ReportedGlobals): number {
  // The choice every other line on stderr makes: a terminal, and neither --no-color nor NO_COLOR.
  const style = createStyle(io.stderrIsTTY && io.colorEnabled && decideColor({ env, stdoutIsTTY: io.stderrIsTTY, colorFlag: globals.color }));
  // Never let a PAN or a secret (a URL's password) through in an error line, nor a control
  // character, whatever the server said.
  io.err(`${style.error('error:')} ${terminalLine(error.message)}\n`);
  if (error.hint) io.err(`${style.dim('hint:')} ${terminalLine(error.hint)}\n`);
  const wantsJson = globals.json || globals.output === 'json' || (!globals.output && env.CARDCTL_OUTPUT === 'json');
  if (wantsJson) io.err(`${JSON.stringify(redactValue(error.toJSON()))}\n`);
  const stack = globals.debug ? (error.cause instanceof Error && error.cause.stack) || error.stack : undefined;
  if (stack) io.err(`${stack.split('\n').map(terminalLine).join('\n')}\n`);
  return error.exitCode;
}

/**
 * Ctrl-C (or SIGTERM, or SIGHUP: the terminal closed): the first one aborts the run's signal
 * (commands that stream or import wind down, what a run changed on a sandbox is put back, and it
 * exits 130); a second one, or a command that is not listening, ends the process at once.
 * Config writes are atomic renames, so nothing is left half-written either way.
 */
export const INTERRUPT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function installInterruptHandler(io: IOStreams): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) {
      io.err('\n');
      process.exit(ExitCode.Interrupted);
    }
    controller.abort(new InterruptedError());
    // Give listeners a moment to flush; then stop regardless.
    setTimeout(() => process.exit(ExitCode.Interrupted), 5_000).unref();
  };
  for (const name of INTERRUPT_SIGNALS) process.on(name, onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const name of INTERRUPT_SIGNALS) process.off(name, onSignal);
    },
  };
}
