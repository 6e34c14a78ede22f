// One table per command of argv → the typed input its parse step gives (compared with
// toMatchObject: the fields a row names), or argv → the usage error it refuses with (exit 2).
// A row's optional third column is `tty`, as in gh's tests: whether stdin and stdout are
// terminals one can prompt on (no terminal when absent, as in a script).
import { describe, expect, it } from 'vitest';
import type { ArgumentSpec, CommandDefinition, Flags } from '../../src/contract/command.js';
import { UsageError } from '../../src/core/errors.js';
import { parseOutcome, terminalFacts } from './parse.js';

export interface ParseTable {
  /** argv → what the input holds; [argv, input, tty]. */
  good?: Array<[string[], object] | [string[], object, { tty: boolean }]>;
  /** argv → the usage error's message; [argv, message, tty]. */
  bad?: Array<[string[], RegExp] | [string[], RegExp, { tty: boolean }]>;
  /** The moment relative times resolve against. */
  now?: Date;
}

export function parseTable<F extends Flags, A extends readonly ArgumentSpec[], I>(title: string, definition: CommandDefinition<F, A, I>, table: ParseTable): void {
  describe(title, () => {
    if (table.good?.length) {
      it.each(table.good)('%j', async (argv, expected, at = { tty: false }) => {
        const input = await parseOutcome(definition, argv, table.now, terminalFacts(at.tty));
        if (input instanceof Error) throw input;
        expect(input).toMatchObject(expected);
      });
    }
    if (table.bad?.length) {
      it.each(table.bad)('%j is a usage error', async (argv, message, at = { tty: false }) => {
        const error = await parseOutcome(definition, argv, table.now, terminalFacts(at.tty));
        expect(error).toBeInstanceOf(UsageError);
        expect((error as UsageError).message).toMatch(message);
      });
    }
  });
}
