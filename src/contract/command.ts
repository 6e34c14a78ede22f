// How a command is declared. One file per leaf command exports `defineCommand({...})`: its
// positional arguments, its flags (each declared once, see FlagSpec), help and examples, and
// `run(ctx, input)`, which does the work with options whose type TypeScript infers from the flag
// declarations. Heavy modules are imported inside run(), never at the top of a command file.
// A command whose input needs more than its flags' own validators declares `parse(raw)`: pure,
// argv and flags (and the files they name), the checked global flags and the terminal facts → the
// validated, typed input run() gets, throwing UsageError before any network call. Tests hold one
// table per command of argv (and tty) → input or error.
import type { Command } from 'commander';
import type { Context } from '../contract/context.js';
import type { FlagValues, Flags } from '../core/flags.js';
import type { CheckedGlobals, GlobalOptions, TerminalFacts } from '../core/global-flags.js';
import type { IOStreams } from '../core/io.js';
import type { RunOrigin } from '../audit/record.js';
import type { OutputShape } from '../core/output-format.js';

export type { RunOrigin } from '../audit/record.js';

export { defineFlags, type FlagSpec, type Flags, type FlagValues } from '../core/flags.js';

/** One positional argument: `<name>` required, `[name]` optional, `...` variadic. */
export interface ArgumentSpec {
  syntax: string;
  description: string;
}

type ArgumentValue<S extends string> =
  string extends S ? string | string[] | undefined
  : S extends `${string}...${string}` ? (S extends `<${string}` ? string[] : string[] | undefined)
  : S extends `<${string}` ? string : string | undefined;

/** The positional arguments as run() receives them, in declaration order. */
export type ArgumentValues<A extends readonly ArgumentSpec[]> = { -readonly [I in keyof A]: A[I] extends { syntax: infer S extends string } ? ArgumentValue<S> : never };

/** What a command's own code may need of the CLI around it, without importing it. */
export interface CliHost {
  /** Runs a cardctl command line in this process; resolves to its exit code (demo, `cardctl mcp`). */
  run(argv: string[], deps: { env: Record<string, string | undefined>; io: IOStreams; signal: AbortSignal; origin?: RunOrigin }): Promise<number>;
  /** Every command definition, in the order `cardctl --help` lists them (`cardctl mcp` derives its tools from them). */
  tree(): Promise<Array<AnyCommand | GroupDefinition>>;
  /** Top-level command names and their aliases, and `help` (what an alias may not shadow). */
  builtinNames(): Promise<Set<string>>;
  /** The whole command tree as commander builds it, with no run attached (completion scripts). */
  program(): Promise<Command>;
}

/**
 * What `cardctl mcp` makes of a command (src/mcp/): `read` is a tool always; `simulate` a tool
 * when the profile is a sandbox; `write` a tool only when the server is started with
 * `--allow-write` naming the command's top-level group; `never` is never a tool (interactive,
 * local set-up, secrets, raw API). Every leaf of the tree declares it (test/unit/mcp-tools.test.ts).
 */
export type McpUse = 'read' | 'simulate' | 'write' | 'never';

/** A tool call's arguments for a command's flags, by flag key, before they become a command line. */
export type ToolFlagValues = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

/** How long a simulation through `cardctl mcp` may take, from the call to its answer, the drain of its requests included. */
export const MCP_SIMULATION_MAX_MS = 60_000;

/** An McpUse with what else `cardctl mcp` needs to know of the command (src/mcp/). */
export interface McpRule {
  use: McpUse;
  /**
   * Throws UsageError when the call's flags go beyond what an assistant may ask for; may return
   * flags to add to the run so that the run itself keeps the bound (a count it stops at).
   */
  bound?(flags: ToolFlagValues): ToolFlagValues | void;
  /** For the assistant: when to use the tool, beyond the summary (one or two sentences). */
  about?: string;
  /**
   * Inputs the tool filters its rows by when the command has no such flag: key → the dot path
   * of the row's value it must equal, and what it is.
   */
  rowFilters?: Readonly<Record<string, { path: string; description: string }>>;
}

export interface RunInput<F extends Flags = Flags, A extends readonly ArgumentSpec[] = readonly ArgumentSpec[]> {
  args: ArgumentValues<A>;
  /** This command's options merged with the global ones, as commander parsed them. */
  opts: FlagValues<F> & GlobalOptions;
  /** The global flags as the global parse step checked them (parseGlobals), before the command's own. */
  globals: CheckedGlobals;
  /** The terminal: a usage decision may depend on it (a confirmation with no terminal to ask on). */
  terminal: TerminalFacts;
  cli: CliHost;
  /** When the command line was read: relative times (--since 24h) and "in the future" resolve against it. */
  now: Date;
}

export interface CommandDefinition<F extends Flags = Flags, A extends readonly ArgumentSpec[] = readonly ArgumentSpec[], I = RunInput<F, A>> {
  name: string;
  /** One line for the parent's command list. */
  summary: string;
  /** Longer help text shown by `--help`. */
  description?: string;
  args?: A;
  flags?: F;
  /** `$ cardctl …` lines shown under "Examples:" in help. */
  examples?: string[];
  aliases?: string[];
  /** What `cardctl mcp` makes of the command (see McpUse). */
  mcp?: McpUse | McpRule;
  /**
   * What the command prints (src/output/shape.ts), loaded when the command runs: `--fields` is
   * checked against it before anything is sent. Every command that changes state declares it
   * (test/unit/output-preflight.test.ts).
   */
  output?: () => Promise<OutputShape>;
  /** The command line as commander parsed it → the input run() gets; usage errors thrown here. */
  parse?(raw: RunInput<F, A>): I | Promise<I>;
  run(ctx: Context, input: I): Promise<void>;
}

/** A definition whose flags and arguments are not known at the use site (the tree, the builders). */
export type AnyCommand = CommandDefinition<Flags, readonly ArgumentSpec[], unknown>;

export interface GroupDefinition {
  name: string;
  summary: string;
  description?: string;
  aliases?: string[];
  commands: Array<AnyCommand | GroupDefinition>;
  examples?: string[];
}

export function defineCommand<const F extends Flags = {}, const A extends readonly ArgumentSpec[] = [], I = RunInput<F, A>>(definition: CommandDefinition<F, A, I>): CommandDefinition<F, A, I> {
  return definition;
}

export function defineGroup(definition: GroupDefinition): GroupDefinition {
  return definition;
}

export function isGroup(definition: AnyCommand | GroupDefinition): definition is GroupDefinition {
  return 'commands' in definition;
}

