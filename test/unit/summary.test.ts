import { describe, expect, it } from 'vitest';
import type { Transaction } from '../../src/api/schemas.js';
import { SummaryAggregator, groupKey, sparkline } from '../../src/commands/tx/summary-report.js';

type SummaryInput = Parameters<SummaryAggregator['add']>[0];
interface PartialNested { amounts?: Partial<Transaction['amounts']>; transactionChannel?: Partial<Transaction['transactionChannel']> }

// A partial transaction: the aggregator reads only these fields.
const tx = (over: Omit<Partial<Transaction>, keyof PartialNested> & PartialNested) => ({
  createdAt: '2026-11-22T10:15:00.000Z',
  responseCode: '00',
  merchantId: 'M1',
  amounts: { amount: '000000150000', currency: '566' },
  transactionChannel: { channelType: 'pos' },
  ...over,
}) as SummaryInput;

describe('tx summary', () => {
  it('counts, approval rates, amounts per currency with the exponent, response codes with meanings', () => {
    const agg = new SummaryAggregator('channel');
    agg.add(tx({}));
    agg.add(tx({ responseCode: '51', transactionChannel: { channelType: 'atm' } }));
    agg.add(tx({ amounts: { amount: '000000001500', currency: '392' } }));
    agg.add(tx({ amounts: { amount: '000000001234', currency: '048' }, responseCode: '05' }));
    const s = agg.result();
    expect(s).toMatchObject({ total: 4, approved: 2, declined: 2, approvalRate: 0.5 });
    expect(s.amounts).toEqual([
      { currency: '048', code: 'BHD', minor: '1234', amount: '1.234' },
      { currency: '392', code: 'JPY', minor: '1500', amount: '1500' },
      { currency: '566', code: 'NGN', minor: '300000', amount: '3000.00' },
    ]);
    expect(s.groups.map((g) => [g.key, g.count, g.approved])).toEqual([['pos', 3, 2], ['atm', 1, 0]]);
    expect(s.responseCodes.find((c) => c.code === '51')).toMatchObject({ meaning: 'Insufficient funds', approved: false, count: 1 });
  });

  it('groups by hour (UTC), merchant and response code', () => {
    expect(groupKey(tx({}), 'hour')).toBe('2026-11-22T10:00Z');
    expect(groupKey(tx({}), 'merchant')).toBe('M1');
    expect(groupKey(tx({ responseCode: '51' }), 'responseCode')).toBe('51');
    expect(groupKey(tx({ transactionChannel: undefined }), 'channel')).toBe('unknown');
  });

  it('draws a sparkline with empty hours', () => {
    expect(sparkline([{ key: '2026-11-22T10:00Z', count: 8 }, { key: '2026-11-22T12:00Z', count: 1 }])).toBe('█ ▁');
  });
});
