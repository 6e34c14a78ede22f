// The service's checks before anyone is asked, in order: unknown card 14, expired 54, card not
// active 62, channel disabled 57; then the ledger's daily amount limit 61 and daily count limit
// 65 (ledger.ts). Pure functions.
import type { Card, CardProgram } from '../../api/schemas.js';
import type { Channel } from '../../iso8583/codes.js';

/** The card's expiry as YYMM. */
export function cardExpiryYYMM(card: Pick<Card, 'expiryYear' | 'expiryMonth'>): string {
  return `${String(card.expiryYear % 100).padStart(2, '0')}${String(card.expiryMonth).padStart(2, '0')}`;
}

/** Normalises YYMM or YYYYMM to YYMM. */
export function toYYMM(expiry: string): string {
  return expiry.length === 6 ? expiry.slice(2) : expiry;
}

/** A card is usable until the end of its expiry month (UTC). */
export function isExpiredAt(card: Pick<Card, 'expiryYear' | 'expiryMonth'>, at: Date): boolean {
  const endOfMonth = Date.UTC(card.expiryYear, Number(card.expiryMonth), 1);
  return at.getTime() >= endOfMonth;
}

/**
 * 14 for an unknown card (or card data that do not match it: another account number), 54 for
 * an expired card or an expiry that does not match the card's, 62 for a card that is not active.
 */
export function checkCard(card: Card | undefined, given: { expiry?: string; account?: string }, at: Date): string | undefined {
  if (!card) return '14';
  if (given.account !== undefined && given.account !== card.account.number) return '14';
  if (card.status === 'expired' || isExpiredAt(card, at)) return '54';
  if (given.expiry !== undefined && toYYMM(given.expiry) !== cardExpiryYYMM(card)) return '54';
  if (card.status !== 'active') return '62';
  return undefined;
}

/** 57 when the program has the channel switched off. */
export function checkChannel(program: CardProgram | undefined, channel: Channel): string | undefined {
  const config = program?.channels?.[channel];
  if (config && config.enabled === false) return '57';
  return undefined;
}
