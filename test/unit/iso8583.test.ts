import { describe, expect, it } from 'vitest';
import {
  AmountError, amountToMinor, channelOfConditionCode, currencyInfo, fieldName, formatAmount, isApproved, isValidResponseCode,
  messageRows, minorToDecimal, parseAmount, POS_ENTRY_MODES, PROCESSING_CODES, RESPONSE_CODES, responseMessage, responseMti,
  summarizeMessage, toField4,
} from '../../src/iso8583/index.js';

describe('field dictionary', () => {
  it('names every field from 0 to 128', () => {
    for (let n = 0; n <= 128; n++) expect(fieldName(n)).not.toMatch(/^Field /);
    expect(fieldName('2')).toMatch(/PAN/);
    expect(fieldName(39)).toBe('Response code');
    expect(fieldName(90)).toBe('Original data elements');
    expect(fieldName(123)).toBe('POS data code');
    expect(fieldName(200)).toBe('Field 200');
  });
});

describe('code tables', () => {
  it('has the processing codes and entry modes of docs/webhook-protocol.md', () => {
    expect(PROCESSING_CODES).toEqual({ purchase: '000000', cash_withdrawal: '010000', balance_inquiry: '310000', refund: '200000' });
    expect(POS_ENTRY_MODES).toEqual({ chip: '051', magstripe: '901', contactless: '071', manual: '012', ecom: '810', moto: '812' });
  });
  it('maps request MTIs to response MTIs', () => {
    expect(responseMti('0100')).toBe('0110');
    expect(responseMti('0200')).toBe('0210');
    expect(responseMti('0420')).toBe('0430');
    expect(responseMti('0110')).toBe('0110');
  });
  it('knows the usual response codes', () => {
    for (const code of ['00', '05', '14', '51', '54', '57', '61', '62', '65', '91', '96']) expect(RESPONSE_CODES[code]).toBeTruthy();
    expect(responseMessage('51')).toBe('Insufficient funds');
    expect(responseMessage('ZZ')).toBe('Unknown response code');
    expect(isApproved('00')).toBe(true);
    expect(isApproved('05')).toBe(false);
    expect(isValidResponseCode('00')).toBe(true);
    expect(isValidResponseCode('0')).toBe(false);
    expect(isValidResponseCode(0)).toBe(false);
  });
  it('reads the channel back from field 25', () => {
    expect(channelOfConditionCode('02')).toBe('atm');
    expect(channelOfConditionCode('59')).toBe('web');
    expect(channelOfConditionCode('00')).toBe('pos');
  });
});

describe('amounts', () => {
  it('parses the forms people type', () => {
    expect(parseAmount('1500', 2)).toBe(150000n);
    expect(parseAmount('1500.00', 2)).toBe(150000n);
    expect(parseAmount('1,500.00', 2)).toBe(150000n);
    expect(parseAmount('1,500.5', 2)).toBe(150050n);
    expect(parseAmount('0.01', 2)).toBe(1n);
    expect(parseAmount('1500', 0)).toBe(1500n);
    expect(parseAmount('1.234', 3)).toBe(1234n);
    expect(parseAmount('1500.000', 2)).toBe(150000n); // trailing zeros are not precision
  });
  it('rejects more decimals than the currency allows, and junk', () => {
    expect(() => parseAmount('1500.001', 2)).toThrow(AmountError);
    expect(() => parseAmount('1500.5', 0)).toThrow(/no minor units/);
    expect(() => parseAmount('1.2345', 3)).toThrow(/at most 3/);
    for (const bad of ['', '-5', '1,50.00', '12,3456', 'abc', '1.2.3', '1e3']) expect(() => parseAmount(bad, 2)).toThrow(AmountError);
    expect(() => parseAmount('10000000000', 2)).toThrow(/too large/);
  });
  it('converts JSON numbers exactly', () => {
    expect(amountToMinor(1500.1, 2)).toBe(150010n);
    expect(amountToMinor(0.29, 2)).toBe(29n);
    expect(amountToMinor(1500, 0)).toBe(1500n);
    expect(amountToMinor(1.5, 3)).toBe(1500n);
    expect(() => amountToMinor(0.1 + 0.2, 2)).toThrow(AmountError);
    expect(() => amountToMinor(1e-7, 2)).toThrow(AmountError);
  });
  it('pads field 4 to 12 digits for 0, 2 and 3 decimal currencies', () => {
    expect(toField4(parseAmount('1500', currencyInfo('392')!.digits))).toBe('000000001500');
    expect(toField4(parseAmount('1500', currencyInfo('566')!.digits))).toBe('000000150000');
    expect(toField4(parseAmount('1500', currencyInfo('048')!.digits))).toBe('000001500000');
    expect(() => toField4(10n ** 12n)).toThrow(AmountError);
  });
  it('formats with symbol and exponent', () => {
    expect(formatAmount('000000150000', '566')).toBe('₦1,500.00');
    expect(formatAmount('000000001500', '392')).toBe('¥1,500');
    expect(formatAmount(1500000n, '048')).toMatch(/^BHD 1,500\.000$/);
    expect(formatAmount(150000n, '000')).toBe('1,500.00 (000)');
    expect(minorToDecimal('000000000005', 2)).toBe('0.05');
  });
  it('looks currencies up by numeric or alphabetic code', () => {
    expect(currencyInfo('566')).toMatchObject({ code: 'NGN', digits: 2 });
    expect(currencyInfo('48')).toMatchObject({ code: 'BHD', digits: 3 });
    expect(currencyInfo('usd')).toMatchObject({ number: '840' });
    expect(currencyInfo('000')).toBeUndefined();
  });
});

describe('messages for people', () => {
  const message = { '0': '0100', '2': '5060990000000000019', '3': '000000', '4': '000000150000', '11': '000001', '35': '5060990000000000019=2912601100', '39': '51', '49': '566', '52': 'ABCDEF' };
  it('masks the PAN and redacts secrets', () => {
    const rows = messageRows(message);
    expect(rows.map((r) => r.field)).toEqual(['0', '2', '3', '4', '11', '35', '39', '49', '52']);
    const text = JSON.stringify(rows);
    expect(text).not.toContain('5060990000000000019');
    expect(rows.find((r) => r.field === '52')!.value).toBe('[REDACTED]');
    expect(rows.find((r) => r.field === '4')!.meaning).toBe('₦1,500.00');
    expect(rows.find((r) => r.field === '39')!.meaning).toBe('Insufficient funds');
  });
  it('summarises on one line', () => {
    expect(summarizeMessage(message)).toBe('0100 · Purchase · ₦1,500.00 · 506099*********0019 · STAN 000001 · 51 Insufficient funds');
  });
});
