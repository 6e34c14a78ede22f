// One tool call: the command line of the call (command-line.ts) with the global flags every tool
// run gets, run in this process through the CLI's own entry (CliHost.run: the same parse, guards,
// renderer and audit journal as a person's command), a simulation within its wall-time bound; its
// stdout the result and its error, as the CLI reports it with -o json, the tool error: the
// one-line message and the hint, never a stack. Every answer is shaped by result.ts.
import { MCP_SIMULATION_MAX_MS, type CliHost, type RunOrigin, type ToolFlagValues } from '../contract/command.js';
import { UsageError, toCliError } from '../core/errors.js';
import { bufferedIO } from '../core/buffered-io.js';
import { isObject } from '../core/is-object.js';
import { getPath } from '../core/object-path.js';
import { validatePaging } from '../core/validate.js';
import { DEFAULT_DIALECT } from '../api/dialect.js';
import { randomPin } from '../pin/policy.js';
import { toolCommandLine, type ToolCommandLine } from './command-line.js';
import { forModel } from './inputs.js';
import { READ_MAX_BYTES, shapeResult, type LeadLine, type ListPosition, type ToolResult } from './result.js';
import type { Tool } from './tools.js';

export type { ToolResult } from './result.js';

/** The page size of a list when the call names none (the CLI's default). */
const DEFAULT_LIMIT = 20;

/** What every call of one server shares. */
export interface CallSettings {
  env: Record<string, string | undefined>;
  /** The profile the server was started for: every call names it. */
  profile: string;
  production: boolean;
  /** `--allow-production-writes`, typed by the person who started the server. */
  allowProductionWrites: boolean;
  /** The MCP client's name/version, once it has introduced itself. */
  client(): string;
  /**
   * Asks the person, through the client (MCP elicitation), whether a production change may go
   * ahead: the client shows the question to the person, not to the assistant. 'cannot ask' when
   * the client has no way to.
   */
  askPerson(question: string): Promise<'yes' | 'no' | 'cannot ask'>;
  /** Where the server's log goes (stderr). */
  log(line: string): void;
  /** The directory file inputs must be in: where the server was started (default the process's). */
  cwd?: string;
  /** The wall-time bound of a simulation (default MCP_SIMULATION_MAX_MS; shorter in tests). */
  simulationMaxMs?: number;
}

/** Of which the end, after the run is told to stop, is left for it to stop and report. */
const STOP_GRACE_MS = 3_000;

/** The flags of a tool run besides the call's own: this profile, JSON out, never a prompt. */
function globalFlags(tool: Tool, settings: CallSettings, output: 'json' | 'ndjson'): string[] {
  const flags = ['--profile', settings.profile, '--output', output, '--no-input', '--no-color'];
  // A write tool is confirmed by the scope the person gave the server (--allow-write, and on
  // production --allow-production-writes), not by a question an assistant would answer.
  if (tool.use === 'write') flags.push('--yes', ...(settings.production ? ['--confirm-production'] : []));
  return flags;
}

export async function callTool(host: Pick<CliHost, 'run'>, tool: Tool, input: Record<string, unknown>, settings: CallSettings, signal: AbortSignal): Promise<ToolResult> {
  let run: PreparedRun;
  try {
    run = prepare(tool, input, settings);
    if (tool.use === 'write' && settings.production) await confirmWithPerson(tool, run.origin, settings);
  } catch (error) {
    return errorResult(tool, toCliError(error).toJSON().error);
  }
  const io = bufferedIO(run.stdin === undefined ? {} : { stdin: run.stdin });
  const { exitCode, stopped, readEnough } = await runBounded(host, tool, run, io, settings, signal);
  const stderr = io.stderrText();
  if (stopped) return boundResult(tool, stopped, io.stdoutText());
  if (exitCode !== 0 && !readEnough) return failedResult(tool, exitCode, stderr, io.stdoutText());
  if (stderr.trim() && !readEnough) settings.log(`${tool.name}: ${stderr.trim()}`);
  return outputResult(tool, run.line, io.stdoutText(), readEnough);
}

interface PreparedRun {
  argv: string[];
  stdin?: string;
  origin: RunOrigin;
  line: PositionedLine;
}

/**
 * Runs the command line. A simulation within its wall-time bound: told to stop (as Ctrl-C would)
 * shortly before it, and answered at the bound whatever it is still doing. A list read whole is
 * told to stop once it has printed READ_MAX_BYTES (`readEnough`): its rows so far are the answer.
 */
async function runBounded(host: Pick<CliHost, 'run'>, tool: Tool, run: PreparedRun, io: ReturnType<typeof bufferedIO>, settings: CallSettings, signal: AbortSignal): Promise<{ exitCode: number; stopped?: number; readEnough?: boolean }> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let readEnough = false;
  let printed = 0;
  const bounded: typeof io = {
    ...io,
    out(text, written) {
      if (readEnough) return written?.();
      printed += typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength;
      io.out(text, written);
      if (run.line.everyRow && printed > READ_MAX_BYTES) {
        readEnough = true;
        stop.abort(new Error('read enough'));
      }
    },
  };
  const simulation = tool.use === 'simulate';
  const maxMs = settings.simulationMaxMs ?? MCP_SIMULATION_MAX_MS;
  let boundReached = false;
  const stopTimer = simulation ? setTimeout(() => {
    boundReached = true;
    stop.abort(new Error('bound'));
  }, Math.max(0, maxMs - Math.min(STOP_GRACE_MS, maxMs / 2))) : undefined;
  let giveUp: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    if (simulation) giveUp = setTimeout(() => resolve('deadline'), maxMs);
  });
  try {
    const ran = host.run(run.argv, { env: settings.env, io: bounded, signal: stop.signal, origin: run.origin });
    const exitCode = await Promise.race([ran, deadline]);
    if (exitCode === 'deadline' || boundReached) return { exitCode: exitCode === 'deadline' ? 130 : exitCode, stopped: maxMs };
    return { exitCode, readEnough };
  } finally {
    clearTimeout(stopTimer);
    clearTimeout(giveUp);
    signal.removeEventListener('abort', onAbort);
  }
}

function prepare(tool: Tool, input: Record<string, unknown>, settings: CallSettings): PreparedRun {
  const cwd = settings.cwd ?? process.cwd();
  let line = toolCommandLine(tool, input, cwd);
  // The bound may add flags that make the run keep it (a count it stops at).
  const added: ToolFlagValues | undefined = tool.bound?.(line.flags) || undefined;
  if (added && Object.keys(added).length) line = toolCommandLine(tool, { ...input, ...added }, cwd);
  // A row filter the command has no flag for: every row is read and the tool picks and pages
  // them, with the page and limit the command would have checked.
  if (line.rowFilters) {
    if (input.all === true && input.page !== undefined) throw new UsageError('all and page cannot be used together');
    validatePaging({ limit: optionalText(input.limit), page: optionalText(input.page) }, DEFAULT_DIALECT.maxPageSize);
    line = { ...toolCommandLine(tool, { ...input, page: undefined, limit: undefined, all: true }, cwd), rowFilters: line.rowFilters };
  }
  if (tool.use === 'write' && settings.production && !settings.allowProductionWrites) {
    throw new UsageError(`refusing ${tool.name} on production profile "${settings.profile}": this server was not started with --allow-production-writes`, {
      hint: 'production changes need the person to start `cardctl mcp --allow-write GROUP --allow-production-writes` themselves',
    });
  }
  const positioned = withPosition(tool, line, input);
  const argv = [...line.argv];
  // A list read whole comes a row a line, so that the rows read before it is stopped are whole.
  argv.splice(tool.path.length, 0, ...globalFlags(tool, settings, positioned.everyRow ? 'ndjson' : 'json'));
  const origin: RunOrigin = { via: 'mcp', client: settings.client(), ...(line.reason ? { reason: line.reason } : {}) };
  if (!generatesPin(tool, line.flags)) return { argv, origin, line: positioned };
  // The new PIN is made and encrypted on this machine and never shown: it reaches the command
  // on its stdin, as `--pin-stdin` reads it, and crosses to no one.
  argv.splice(tool.path.length, 0, '--pin-stdin');
  return { argv, stdin: `${randomPin()}\n`, origin, line: positioned };
}

/** A call's command line, and where its answer starts in the list it reads. */
type PositionedLine = ToolCommandLine & {
  position?: ListPosition;
  /** Every row is read (all, or a row filter): as NDJSON, within READ_MAX_BYTES. */
  everyRow?: boolean;
  /** The call asked for all: the rows are not paged here. */
  allAsked?: boolean;
};

function optionalText(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

/**
 * Where a paged list's answer starts, from the call's page and limit; with all, the whole list
 * from its first item (any page size starts there). A list that is not paged has no position.
 */
function withPosition(tool: Tool, line: ToolCommandLine, input: Record<string, unknown>): PositionedLine {
  if (!tool.flags.some((flag) => flag.key === 'page')) return line;
  if (input.all === true) return { ...line, position: { page: 1, limit: 1 }, everyRow: true, allAsked: true };
  if (line.rowFilters) return { ...withPage(line, input), everyRow: true };
  return withPage(line, input);
}

function withPage(line: ToolCommandLine, input: Record<string, unknown>): PositionedLine {
  const page = Number(input.page ?? 1);
  const limit = Number(input.limit ?? DEFAULT_LIMIT);
  return Number.isInteger(page) && page >= 1 && Number.isInteger(limit) && limit >= 1 ? { ...line, position: { page, limit } } : line;
}

/**
 * The production confirmation: the person allowed production changes when starting the server;
 * a client that can ask them (elicitation) asks for each change as well, and a "no" refuses it.
 */
async function confirmWithPerson(tool: Tool, origin: RunOrigin, settings: CallSettings): Promise<void> {
  const question = `An assistant asks to run \`cardctl ${tool.path.join(' ')}\` on PRODUCTION profile "${settings.profile}" (reason: ${origin.reason ?? 'none given'}). Go ahead?`;
  const answer = await settings.askPerson(question);
  if (answer === 'no') throw new UsageError(`${tool.name} on production profile "${settings.profile}" was not confirmed: nothing was sent`);
}

/**
 * Whether the call sets a PIN: the command reads one with a secret --pin-stdin, and the call is
 * for one card whose PIN is not disabled (a file of rows gives its own, or a random one per card).
 */
function generatesPin(tool: Tool, flags: ToolFlagValues): boolean {
  const pinStdin = tool.definition.flags?.pinStdin;
  if (!pinStdin || pinStdin.type !== 'boolean' || !pinStdin.secret) return false;
  return flags.fromFile === undefined && flags.rowsFromFile === undefined && flags.pin !== false;
}

function outputResult(tool: Tool, line: PositionedLine, stdout: string, readEnough = false): ToolResult {
  const text = stdout.trim();
  const value = line.everyRow ? ndjsonRows(text, readEnough) : parseJson(text);
  const options = { tool: tool.name, whole: Boolean(line.fields), ...(readEnough ? { unread: true } : {}) };
  if (value === undefined) return shapeResult(text || undefined, options);
  if (!Array.isArray(value)) return shapeResult(value, options);
  if (!line.rowFilters) return shapeResult(value, { ...options, position: line.position });
  // The rows the filters keep (a record embedded whole, or given as its id), and of them the page asked for.
  const kept = value.filter((row) => line.rowFilters!.every((filter) => String(getPath(row, filter.path) ?? '') === filter.value
    || getPath(row, filter.path.replace(/\.id$/, '')) === filter.value));
  if (!line.position || line.allAsked) return shapeResult(kept, { ...options, position: line.position });
  const { page, limit } = line.position;
  return shapeResult(kept.slice((page - 1) * limit, page * limit), { ...options, position: line.position });
}

/** The rows of an NDJSON list; when its reading was stopped, the last line may be cut: left out. */
function ndjsonRows(text: string, cut: boolean): unknown[] | undefined {
  if (!text) return [];
  const lines = text.split('\n');
  if (cut) lines.pop();
  const rows = lines.filter((row) => row.trim()).map(parseJson);
  return rows.every((row) => row !== undefined) ? rows : undefined;
}

/** A simulation stopped at its bound: said first, with what it had printed so far. */
function boundResult(tool: Tool, maxMs: number, stdout: string): ToolResult {
  const lead = [`error: ${tool.name} was stopped at the ${maxMs / 1000} s a simulation through cardctl mcp may take (its requests in flight included)${stdout.trim() ? '; what it reported so far follows' : ''}`];
  return shapeResult(parseJson(stdout.trim()) ?? (stdout.trim() || undefined), { tool: tool.name, lead, isError: true });
}

/** The error the CLI reported on stderr (its JSON line with -o json), as a tool error. */
function failedResult(tool: Tool, exitCode: number, stderr: string, stdout: string): ToolResult {
  const lines = stderr.split('\n');
  const reported = lines.map(parseJson).find(isErrorLine);
  const error = reported?.error ?? { message: lastErrorLine(stderr) ?? `failed with exit code ${exitCode}`, exitCode };
  // What a partial run printed (a bulk summary, a missed SLO's figures), and the rows it says failed, go with the error.
  const output = parseJson(stdout.trim());
  const problems = lines.filter((line) => /^(failed|invalid): /.test(line) || /^… and \d+ more/.test(line));
  return errorResult(tool, error, {
    ...(output !== undefined ? { output } : {}),
    ...(problems.length ? { failedRows: problems } : {}),
  });
}

/**
 * A tool error: `error: <one line>` and `hint: <one line>` when there is one, then the error's
 * code, exit code and details as JSON. A message that came with a server's answer (it has an HTTP
 * status) is the server's text: untrusted.
 */
function errorResult(tool: Tool, reported: Record<string, unknown>, extra: Record<string, unknown> = {}): ToolResult {
  const message = String(reported.message).split('\n')[0]!;
  const hint = typeof reported.hint === 'string' ? reported.hint.split('\n')[0] : undefined;
  const fromServer = typeof reported.status === 'number';
  // Our own words name the flags as the tool's inputs; a server's are quoted as they are.
  const lead: LeadLine[] = [fromServer ? { prefix: 'error: ', untrusted: message } : `error: ${forModel(message, tool.flags, 'as they are')}`, ...(hint ? [`hint: ${forModel(hint, tool.flags, 'as they are')}`] : [])];
  const { message: _message, hint: _hint, ...rest } = reported;
  return shapeResult({ error: rest, ...extra }, { tool: tool.name, lead, isError: true });
}

function isErrorLine(value: unknown): value is { error: Record<string, unknown> } {
  return isObject(value) && isObject(value.error);
}

function lastErrorLine(stderr: string): string | undefined {
  return stderr.split('\n').reverse().find((line) => line.startsWith('error: '))?.slice('error: '.length);
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return undefined;
  }
}
