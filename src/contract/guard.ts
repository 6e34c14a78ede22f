// Operator safety: confirmations for destructive verbs, stricter ones against production.
// Against a sandbox a y/N question (or --yes) is enough. Against production the operator types
// the card's last four digits (or the row count of an import), and scripts must pass both
// --yes and --confirm-production.
import type { Style } from '../output/style.js';
import { UsageError } from '../core/errors.js';
import type { IOStreams } from '../core/io.js';
import type { Prompter } from '../core/prompter.js';
import type { ProfileInUse } from '../config/settings.js';

/** What the guards read of a run: the profile in use, the confirming flags, and whom to ask. */
export interface GuardContext {
  settings(): ProfileInUse;
  globals: { yes?: boolean; confirmProduction?: boolean; dryRun?: boolean };
  io: Pick<IOStreams, 'canPrompt' | 'stderrIsTTY'>;
  prompter: Pick<Prompter, 'input' | 'confirm'>;
  style: Pick<Style, 'paint'>;
}

export interface DestructiveAction {
  /** What is about to happen, as a verb phrase: "deactivate card 4821 (ADA OBI)". */
  description: string;
  /** What a production operator must type to go ahead: the card's last four, or a row count. */
  typedConfirmation: string;
  /** How to name the typed value in the question: "the card's last four digits". */
  typedLabel: string;
}

export function isProduction(ctx: Pick<GuardContext, 'settings'>): boolean {
  return ctx.settings().profile.env === 'production';
}

/**
 * Resolves when the operator has confirmed; throws a UsageError (exit 2, nothing sent) when they
 * declined or when confirmation was needed but impossible.
 */
export async function confirmDestructive(ctx: GuardContext, action: DestructiveAction): Promise<void> {
  const production = isProduction(ctx);
  const globals = ctx.globals;
  // A dry run sends nothing, so there is nothing to confirm.
  if (globals.dryRun) return;
  if (globals.yes) {
    if (production && !globals.confirmProduction) {
      throw new UsageError(`refusing to ${action.description} on production with --yes alone`, {
        hint: `profile "${ctx.settings().profileName}" is a production profile: add --confirm-production as well`,
      });
    }
    return;
  }
  if (!ctx.io.canPrompt) {
    throw new UsageError(`${action.description} needs confirmation, and there is no terminal to ask on`, {
      hint: production ? 'pass --yes --confirm-production to confirm non-interactively' : 'pass --yes to confirm non-interactively',
    });
  }
  if (production) {
    const answer = await ctx.prompter.input(
      `PRODUCTION (${ctx.settings().baseUrl}): to ${action.description}, type ${action.typedLabel}`,
    );
    if (answer.trim() !== action.typedConfirmation) {
      throw new UsageError('cancelled: the confirmation did not match, nothing was sent');
    }
    return;
  }
  const ok = await ctx.prompter.confirm(`${capitalise(action.description)}?`, { default: false });
  if (!ok) throw new UsageError('cancelled: nothing was sent');
}

export interface CardChange {
  /** The verb phrase without the card: "reset the PIN of", "renew". */
  verb: string;
  cardId: string;
  /** Fetches the card (only when a question needs its last four digits or its name). */
  load: () => Promise<{ lastFour?: string; label: string }>;
  /** Ask y/N on a sandbox terminal too (deactivate, PIN reset); otherwise only production asks. */
  askOnSandbox: boolean;
}

/**
 * The guardrail of a cardholder-affecting verb: against production the typed last four (or
 * --yes --confirm-production); against a sandbox a y/N question on a terminal for the verbs that
 * ask it, and nothing otherwise. Skipped by --dry-run.
 */
export async function confirmCardChange(ctx: GuardContext, change: CardChange): Promise<void> {
  if (ctx.globals.dryRun) return;
  if (!isProduction(ctx)) {
    if (!change.askOnSandbox || ctx.globals.yes || !ctx.io.canPrompt) return;
  }
  if (ctx.globals.yes) {
    await confirmDestructive(ctx, { description: `${change.verb} card ${change.cardId}`, typedConfirmation: change.cardId, typedLabel: 'the card id' });
    return;
  }
  if (!ctx.io.canPrompt) {
    // Fail before any request: the card need not be fetched to say so.
    await confirmDestructive(ctx, { description: `${change.verb} card ${change.cardId}`, typedConfirmation: change.cardId, typedLabel: 'the card id' });
    return;
  }
  const card = await change.load();
  await confirmDestructive(ctx, {
    description: `${change.verb} card ${card.label}`,
    typedConfirmation: card.lastFour ?? change.cardId,
    typedLabel: card.lastFour ? "the card's last four digits" : 'the card id',
  });
}

/** The one-line banner shown on stderr before commands that talk to production on a terminal. */
export function productionBanner(ctx: Pick<GuardContext, 'settings' | 'io' | 'style'>): string | undefined {
  if (!isProduction(ctx) || !ctx.io.stderrIsTTY) return undefined;
  const s = ctx.settings();
  return ctx.style.paint(['bgRed', 'white', 'bold'], ' PRODUCTION ') + ` profile "${s.profileName}" → ${s.baseUrl}`;
}

/** Shared CI runners: a profile may insist on being named explicitly. */
export function assertProfileExplicit(ctx: Pick<GuardContext, 'settings'>): void {
  const s = ctx.settings();
  if (s.profile.requireExplicitProfile && !s.profileExplicit) {
    throw new UsageError(`profile "${s.profileName}" must be named explicitly`, {
      hint: `pass --profile ${s.profileName} (or set CARDCTL_PROFILE); the profile has requireExplicitProfile set`,
    });
  }
}

/** Production deactivations may require a --reason (profile setting requireReason). */
export function assertReason(ctx: Pick<GuardContext, 'settings'>, reason: string | undefined, what: string): void {
  if (isProduction(ctx) && ctx.settings().profile.requireReason && !reason?.trim()) {
    throw new UsageError(`${what} on production needs --reason`, { hint: 'say why, e.g. --reason "reported stolen"; it is kept in the audit journal' });
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
