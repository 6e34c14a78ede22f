// The one rule for a row whose card is already there (src/bulk/found-card.ts): `already` only
// when the card is usable as the row asks, for every card status there is.
import { describe, expect, it } from 'vitest';
import { unusableForRow } from '../../src/bulk/found-card.js';
import { CARD_STATUSES } from '../../src/core/enums.js';

const now = new Date('2026-11-29T07:00:00.000Z');
const valid = { expiryYear: 2029, expiryMonth: '05' };

describe('a found card is the row\'s card only when usable as the row asks', () => {
  it('a row asking for an active card: only an active one, every other status names itself', () => {
    for (const status of CARD_STATUSES) {
      const why = unusableForRow({ status, ...valid }, 'active', now);
      if (status === 'active') expect(why, status).toBeUndefined();
      else expect(why, status).toBe(`it is ${status}`);
    }
  });

  it('a row asking for another status: that status or active (activated since), nothing else', () => {
    for (const wanted of CARD_STATUSES) {
      for (const status of CARD_STATUSES) {
        expect(unusableForRow({ status, ...valid }, wanted, now) === undefined, `${wanted} ← ${status}`).toBe(status === 'active' || status === wanted);
      }
    }
  });

  it('an active card past its expiry month is not usable; within its last month it is', () => {
    expect(unusableForRow({ status: 'active', expiryYear: 2026, expiryMonth: '10' }, 'active', now)).toBe('it expired at the end of 10/2026');
    expect(unusableForRow({ status: 'active', expiryYear: 2026, expiryMonth: '11' }, 'active', now)).toBeUndefined();
    // No status shown: not judged by one.
    expect(unusableForRow({ status: undefined }, 'active', now)).toBeUndefined();
  });
});
