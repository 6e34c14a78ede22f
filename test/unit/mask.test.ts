// maskCardData: every API answer goes through it before a command sees it (src/api/client.ts).
import { describe, expect, it } from 'vitest';
import { maskCardData } from '../../src/api/mask.js';

describe('maskCardData', () => {
  it('masks card numbers and track 2 in named fields at any depth, and the same text in raw', () => {
    const data = {
      cardNumber: '5060990000000000019',
      nested: [{ pan: '4111111111111111', phoneNumber: '2348012345678901' }],
      request: { '2': '5060990000000000019', '35': '5060990000000000019=2912601100', '4': '000000150000' },
      note: 'free text 4111111111111111 is left alone',
    };
    const raw = JSON.stringify(data);
    const masked = maskCardData({ data, raw });
    expect(masked.data.cardNumber).toBe('506099*********0019');
    expect(masked.data.nested[0]!.pan).toBe('411111******1111');
    expect(masked.data.nested[0]!.phoneNumber).toBe('2348012345678901');
    expect(masked.data.request['2']).toBe('506099*********0019');
    expect(masked.data.request['35']).toBe('506099*********0019=2912');
    expect(masked.data.request['4']).toBe('000000150000');
    expect(masked.raw).not.toContain('5060990000000000019');
    expect(masked.raw).toContain('506099*********0019=2912');
  });

  it('leaves short values and non-digit values in card-number fields as they are', () => {
    const data = { pan: '506099******0019', cardNumber: '123456789012', track2: 'n/a' };
    const masked = maskCardData({ data: { ...data }, raw: '' });
    expect(masked.data).toEqual(data);
  });

  it('masks a card number whose digits the JSON text wrote as \\u escapes', () => {
    const raw = '{"pan":"\\u0034111111111111111"}';
    expect(maskCardData({ data: JSON.parse(raw), raw }).data).toEqual({ pan: '411111******1111' });
  });
});
