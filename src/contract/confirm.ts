// Confirmation of destructive steps (logout, profile remove, deactivate): --yes answers for
// the user; without --yes a prompt is needed, and where none is possible that is a usage
// error naming --yes, never a hang.
import type { Context } from '../contract/context.js';
import { UsageError } from '../core/errors.js';

/**
 * Resolves when the action may go ahead; a declined prompt is a UsageError (exit 2, nothing
 * changed), like confirmDestructive of contract/guard.ts. Returns true for callers that test it.
 */
export async function confirmAction(ctx: Context, question: string): Promise<true> {
  if (ctx.globals.yes) return true;
  if (!ctx.io.canPrompt) {
    throw new UsageError(`${question.replace(/\?$/, '')}: confirmation needed`, {
      hint: 'pass --yes to confirm (no prompt is possible without a terminal, with --no-input or in CI)',
    });
  }
  if (!(await ctx.prompter.confirm(question, { default: false }))) throw new UsageError('cancelled: nothing changed');
  return true;
}
