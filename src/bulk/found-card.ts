// A row whose card is found already there (`cards create` rows by their reference, `import` rows
// by their realId, bulk renewals at their target month) is settled as `already` only when that
// card is usable as the row asks: active, or in the very status the row gives it. A suspended,
// expired or (for a row that asks for an active card) inactive card, or one past its expiry month,
// is not what a replacement row asks for: reporting it `already`, with the old card's id, would
// tell the operator the cardholder has a working card. The one rule for every such row.
import type { CARD_STATUSES } from '../core/enums.js';

type CardStatus = (typeof CARD_STATUSES)[number];

/** The card fields the rule reads (as Get Cards answers them). */
export interface FoundCard {
  id?: string | undefined;
  status?: string | undefined;
  expiryYear?: number | undefined;
  /** '1'..'12' or '01'..'12'. */
  expiryMonth?: string | undefined;
}

/**
 * Why a card found for a row is not the card the row asks for (`wanted`: the status the row
 * gives or leaves it in), in a few words for the row's error; undefined when it is.
 */
export function unusableForRow(card: FoundCard, wanted: CardStatus, now: Date): string | undefined {
  // A card whose answer shows no status (a deployment that omits it) is not judged by one.
  const { status } = card;
  if (status !== undefined && status !== 'active' && status !== wanted) return `it is ${status}`;
  if (card.expiryYear !== undefined && card.expiryMonth !== undefined) {
    // Valid through its expiry month (UTC).
    const month = Number(card.expiryMonth);
    if (Date.UTC(card.expiryYear, month, 1) <= now.getTime()) return `it expired at the end of ${String(month).padStart(2, '0')}/${card.expiryYear}`;
  }
  return undefined;
}

/** The row's error code and hint when its card is found but not usable. */
export const UNUSABLE_CARD = {
  code: 'CARD_NOT_USABLE',
  hint: (id: string | undefined) => `${id ? `restore the card (cardctl cards activate ${id}) or replace it (cardctl cards renew ${id} --expiration YYYYMM)` : 'activate or renew the card'}, or give the row a reference of its own for a new card`,
} as const;
