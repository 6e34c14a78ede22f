// Pieces every `cards` verb uses: the card id argument, printing the resulting card, and the
// PIN errors of the API turned into messages that say what to do.
import type { ApiResponse } from '../../api/client.js';
import type { Card } from '../../api/schemas.js';
import type { Context } from '../../contract/context.js';
import { CliError, RejectedError, UsageError } from '../../core/errors.js';
import type { RunInput } from '../../contract/command.js';
import { cardRows, describeCard } from '../../output/columns/cards.js';

/** A card id that has been checked: never empty, so a hint can always name the card. */
export type CardId = string & { readonly checkedCardId: unique symbol };

/** The <card-id> positional argument, checked before anything is sent. */
export function cardIdArgument(input: Pick<RunInput, 'args'>): CardId {
  return parseCardId(input.args[0]);
}

export function parseCardId(value: unknown): CardId {
  const cardId = typeof value === 'string' ? value.trim() : '';
  if (!cardId) throw new UsageError('missing CARD_ID', { hint: 'find it with `cardctl cards list`' });
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(cardId)) {
    throw new UsageError(`invalid CARD_ID "${cardId.slice(0, 40)}": use the card's id as shown by \`cardctl cards list\``);
  }
  return cardId as CardId;
}

/** Prints a card (key/value rows, or the machine format asked for) and a ✓ line on stderr. */
export async function printCard(ctx: Context, response: ApiResponse<Card>, success?: (card: Card) => string): Promise<void> {
  const output = ctx.output();
  await output.record(response.data, { raw: response.raw, rows: cardRows });
  if (success) output.success(success(response.data));
}

export { describeCard };

const MAX_PIN_ATTEMPTS = 3;

/**
 * PIN_MISMATCH and PIN_LOCKED of an existing card as messages that say how many attempts are
 * left and what to do (with the card's id in the command to run); UNKNOWN_KEY as for any card.
 */
export function explainPinError(error: unknown, cardId: CardId): unknown {
  if (!(error instanceof CliError)) return error;
  if (error.code === 'PIN_MISMATCH') {
    const left = attemptsLeft(error.details);
    const what = left === undefined
      ? 'the current PIN is wrong'
      : `the current PIN is wrong: ${left} attempt${left === 1 ? '' : 's'} left before the PIN is locked`;
    return new RejectedError(what, {
      code: 'PIN_MISMATCH',
      status: error.status,
      details: error.details,
      hint: left === 0 ? `the PIN is now locked; set a new one with \`cardctl cards pin reset ${cardId}\`` : 'check the current PIN; nothing was changed',
    });
  }
  if (error.code === 'PIN_LOCKED') {
    return new RejectedError('the PIN is locked after too many wrong attempts', {
      code: 'PIN_LOCKED',
      status: error.status,
      details: error.details,
      hint: `set a new PIN with \`cardctl cards pin reset ${cardId}\` (that also clears the attempts)`,
    });
  }
  return explainPinKeyError(error);
}

/** UNKNOWN_KEY (the PIN key the blocks were encrypted under) as a message that says what to do. */
export function explainPinKeyError(error: unknown): unknown {
  if (!(error instanceof CliError)) return error;
  if (error.code === 'UNKNOWN_KEY') {
    return new RejectedError(`the service does not know the PIN key: ${error.apiMessage ?? error.message}`, {
      code: 'UNKNOWN_KEY',
      status: error.status,
      details: error.details,
      hint: "the profile's PIN key is not the institution's current one: run `cardctl login --pin-key FILE` with the key it publishes",
    });
  }
  return error;
}

function attemptsLeft(details: unknown): number | undefined {
  const candidates: unknown[] = [];
  if (details && typeof details === 'object' && !Array.isArray(details)) {
    const d = details as Record<string, unknown>;
    candidates.push(d.attemptsLeft, d.attemptsRemaining, d.remainingAttempts);
    if (typeof d.pinAttempts === 'number') candidates.push(MAX_PIN_ATTEMPTS - d.pinAttempts);
  }
  const found = candidates.find((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return found === undefined ? undefined : Math.max(0, found);
}
