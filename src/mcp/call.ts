// One tool call: the command line of the call (command-line.ts) with the global flags every tool
// run gets, run in this process through the CLI's own entry (CliHost.run: the same parse, guards,
// renderer and audit journal as a person's command), its stdout the result and its error, as the
// CLI reports it with -o json, the tool error: the one-line message and the hint, never a stack.
import type { CliHost, RunOrigin, ToolFlagValues } from '../contract/command.js';
import { UsageError, toCliError } from '../core/errors.js';
import { bufferedIO } from '../core/buffered-io.js';
import { isObject } from '../core/is-object.js';
import { randomPin } from '../pin/policy.js';
import { toolCommandLine } from './command-line.js';
import type { Tool } from './tools.js';

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
}

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The flags of a tool run besides the call's own: this profile, JSON out, never a prompt. */
function globalFlags(tool: Tool, settings: CallSettings): string[] {
  const flags = ['--profile', settings.profile, '--output', 'json', '--no-input', '--no-color'];
  // A write tool is confirmed by the scope the person gave the server (--allow-write, and on
  // production --allow-production-writes), not by a question an assistant would answer.
  if (tool.use === 'write') flags.push('--yes', ...(settings.production ? ['--confirm-production'] : []));
  return flags;
}

export async function callTool(host: Pick<CliHost, 'run'>, tool: Tool, input: Record<string, unknown>, settings: CallSettings, signal: AbortSignal): Promise<ToolResult> {
  let run: { argv: string[]; stdin?: string; origin: RunOrigin };
  try {
    run = prepare(tool, input, settings);
    if (tool.use === 'write' && settings.production) await confirmWithPerson(tool, run.origin, settings);
  } catch (error) {
    return errorResult(toCliError(error).toJSON().error);
  }
  const io = bufferedIO(run.stdin === undefined ? {} : { stdin: run.stdin });
  const exitCode = await host.run(run.argv, { env: settings.env, io, signal, origin: run.origin });
  const stderr = io.stderrText();
  if (exitCode !== 0) return failedResult(exitCode, stderr, io.stdoutText());
  if (stderr.trim()) settings.log(`${tool.name}: ${stderr.trim()}`);
  return outputResult(io.stdoutText());
}

function prepare(tool: Tool, input: Record<string, unknown>, settings: CallSettings): { argv: string[]; stdin?: string; origin: RunOrigin } {
  const line = toolCommandLine(tool, input);
  tool.bound?.(line.flags);
  if (tool.use === 'write' && settings.production && !settings.allowProductionWrites) {
    throw new UsageError(`refusing ${tool.name} on production profile "${settings.profile}": this server was not started with --allow-production-writes`, {
      hint: 'production changes need the person to start `cardctl mcp --allow-write GROUP --allow-production-writes` themselves',
    });
  }
  const argv = [...line.argv];
  argv.splice(tool.path.length, 0, ...globalFlags(tool, settings));
  const origin: RunOrigin = { via: 'mcp', client: settings.client(), ...(line.reason ? { reason: line.reason } : {}) };
  if (!generatesPin(tool, line.flags)) return { argv, origin };
  // The new PIN is made and encrypted on this machine and never shown: it reaches the command
  // on its stdin, as `--pin-stdin` reads it, and crosses to no one.
  argv.splice(tool.path.length, 0, '--pin-stdin');
  return { argv, stdin: `${randomPin()}\n`, origin };
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

function outputResult(stdout: string): ToolResult {
  const text = stdout.trim();
  if (!text) return { content: [{ type: 'text', text: 'done' }] };
  const value = parseJson(text);
  if (value === undefined) return { content: [{ type: 'text', text }] };
  const structured = isObject(value) ? value : { result: value };
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** The error the CLI reported on stderr (its JSON line with -o json), as a tool error. */
function failedResult(exitCode: number, stderr: string, stdout: string): ToolResult {
  const reported = stderr.split('\n').map(parseJson).find(isErrorLine);
  const error = reported?.error ?? { message: lastErrorLine(stderr) ?? `failed with exit code ${exitCode}`, exitCode };
  const result = errorResult(error);
  const output = parseJson(stdout.trim());
  // What a partial run printed (a bulk summary, a missed SLO's figures) goes with the error.
  if (output !== undefined) result.structuredContent = { error, output };
  return result;
}

/** A tool error: `error: <one line>` and `hint: <one line>` when there is one; the error object as structured content. */
function errorResult(reported: Record<string, unknown>): ToolResult {
  const message = String(reported.message).split('\n')[0];
  const hint = typeof reported.hint === 'string' ? reported.hint.split('\n')[0] : undefined;
  return {
    isError: true,
    content: [{ type: 'text', text: hint ? `error: ${message}\nhint: ${hint}` : `error: ${message}` }],
    structuredContent: { error: reported },
  };
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
