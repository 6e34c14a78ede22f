// What `cards create` makes of a command line before anything is sent: its parse step, then the
// one card's body (read from the context's stdin with --from-file -).
import type { Context } from '../../src/contract/context.js';
import createCommand from '../../src/commands/cards/create.js';
import { cardOf, type ParsedCreate } from '../../src/commands/cards/create-parse.js';
import { parseCommand } from './parse.js';

export async function createInput(ctx: Context, argv: string[]): Promise<ParsedCreate> {
  const input = await parseCommand(createCommand, argv);
  if (input.kind !== 'one') throw new Error('expected one card, not --rows-from-file');
  return cardOf(ctx, input);
}
