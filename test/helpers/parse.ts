// The parse step of a command alone (parseCommand, src/app/cli.ts): argv in, the typed input its run()
// gets out, or the UsageError main() would report. Tests build options this way, never by hand.
import { parseCommand, type ParseFacts } from '../../src/app/cli.js';
import type { ArgumentSpec, CommandDefinition, Flags } from '../../src/contract/command.js';
import type { Context } from '../../src/contract/context.js';

export { parseCommand };

/** The options commander gives for this command line (before the command's own parse step, if any). */
export async function optionsOf<F extends Flags, A extends readonly ArgumentSpec[], I>(definition: CommandDefinition<F, A, I>, argv: string[]) {
  const { parse: _parse, run: _run, ...shape } = definition;
  const unparsed: CommandDefinition<F, A> = { ...shape, run: async () => {} };
  return (await parseCommand(unparsed, argv)).opts;
}

/** Parses argv as main() would at the context's terminal, then runs the command with that context. */
export async function runCommand<F extends Flags, A extends readonly ArgumentSpec[], I>(definition: CommandDefinition<F, A, I>, ctx: Context, argv: string[]): Promise<void> {
  const facts = { env: ctx.env, stdoutIsTTY: ctx.io.stdoutIsTTY, stdinIsTTY: ctx.io.stdinIsTTY, streamsCanPrompt: ctx.io.canPrompt };
  await definition.run(ctx, await parseCommand(definition, argv, ctx.clock.now(), facts));
}

/** The facts of a terminal (stdin and stdout both terminals, prompts allowed), or of none. */
export function terminalFacts(tty: boolean): ParseFacts {
  return { stdoutIsTTY: tty, stdinIsTTY: tty, streamsCanPrompt: tty };
}

/** What parse gives for argv: the typed input, or the error it threw (for tables of both). */
export function parseOutcome<F extends Flags, A extends readonly ArgumentSpec[], I>(definition: CommandDefinition<F, A, I>, argv: string[], now?: Date, facts?: ParseFacts): Promise<I | unknown> {
  return parseCommand(definition, argv, now, facts).then((input) => input, (error: unknown) => error);
}
