// The service's checks before anyone is asked, in order: unknown card 14, expired 54, card not
// active 62, channel disabled 57, daily amount limit 61, daily count limit 65. Pure functions;
// the usage they compare against is read inside the same SQLite transaction that records the
// new transaction, so parallel simulations cannot both take the last slot.
import type { Card, CardProgram } from '../../api/schemas.js';
import type { Channel } from '../../iso8583/codes.js';

export interface UsedToday {
  count: number;
  /** Minor units of the transaction currency. */
  amountMinor: bigint;
}

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

/**
 * 61 when today's amount on this card and channel plus this one would exceed the daily amount
 * (major units, compared in the transaction currency's minor units), 65 when one more would
 * exceed the daily count. A limit of 0 means "no limit" (a channel is closed with
 * `enabled: false`, not with zero limits).
 */
export function checkLimits(
  program: CardProgram | undefined,
  channel: Channel,
  used: () => UsedToday,
  amountMinor: bigint,
  digits: number,
  countsTowardAmount: boolean,
  /** Whether the transaction counts as one more (an increment only changes its original). */
  countsTowardCount = true,
): string | undefined {
  const limit = program?.channels?.[channel]?.dailyLimit;
  if (!limit) return undefined;
  const checkAmount = countsTowardAmount && limit.amount > 0;
  const checkCount = countsTowardCount && limit.count > 0;
  if (!checkAmount && !checkCount) return undefined;
  // Read lazily: a program without limits never pays for the usage query.
  const today = used();
  if (checkAmount) {
    const limitMinor = BigInt(Math.round(limit.amount * 10 ** digits));
    if (today.amountMinor + amountMinor > limitMinor) return '61';
  }
  if (checkCount && today.count + 1 > limit.count) return '65';
  return undefined;
}
