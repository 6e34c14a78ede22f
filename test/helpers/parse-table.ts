// One table per command of argv → the typed input its parse step gives (compared with
// toMatchObject: the fields a row names), or argv → the usage error it refuses with (exit 2).
import { describe, expect, it } from 'vitest';
import type { ArgumentSpec, CommandDefinition, Flags } from '../../src/contract/command.js';
import { UsageError } from '../../src/core/errors.js';
import { parseOutcome } from './parse.js';

export interface ParseTable {
  /** argv → what the input holds. */
  good?: Array<[string[], object]>;
  /** argv → the usage error's message. */
  bad?: Array<[string[], RegExp]>;
  /** The moment relative times resolve against. */
  now?: Date;
}

export function parseTable<F extends Flags, A extends readonly ArgumentSpec[], I>(title: string, definition: CommandDefinition<F, A, I>, table: ParseTable): void {
  describe(title, () => {
    if (table.good?.length) {
      it.each(table.good)('%j', async (argv, expected) => {
        const input = await parseOutcome(definition, argv, table.now);
        if (input instanceof Error) throw input;
        expect(input).toMatchObject(expected);
      });
    }
    if (table.bad?.length) {
      it.each(table.bad)('%j is a usage error', async (argv, message) => {
        const error = await parseOutcome(definition, argv, table.now);
        expect(error).toBeInstanceOf(UsageError);
        expect((error as UsageError).message).toMatch(message);
      });
    }
  });
}
