// Patterns over user input run in linear time: a megabyte of the input that made each old
// pattern backtrack is answered at once, and the values they accepted are accepted still.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { normaliseBaseUrl, validateEmail, withoutTrailingSlashes } from '../../src/core/validate.js';
import { defaultTokenUrl } from '../../src/api/client-credentials.js';
import { parseAmount } from '../../src/iso8583/amount.js';

const MEGABYTE = 1_000_000;

function fast<T>(work: () => T): T {
  const started = performance.now();
  const result = work();
  expect(performance.now() - started).toBeLessThan(2_000);
  return result;
}

describe('linear patterns', () => {
  it.each([
    `a@${'.'.repeat(MEGABYTE)}@`,
    `a@b${'.'.repeat(MEGABYTE)} x`,
    `${'a'.repeat(MEGABYTE)}@`,
  ])('email: refuses a megabyte of dots at once (%#)', (text) => {
    expect(() => fast(() => validateEmail('--email', text))).toThrow(UsageError);
  });

  it.each([
    ['ada@example.com', true], ['a@b.co', true], ['a@b.c', false], ['a@.com', false], ['a@b..co', true], ['a b@c.com', false],
    ['a@b@c.com', false], ['@b.com', false], ['a@bcom', false], ['a@b.com.', true],
  ])('email: %s is %s as before', (text, ok) => {
    const old = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(text);
    expect(old).toBe(ok);
    if (ok) expect(validateEmail('--email', text)).toBe(text);
    else expect(() => validateEmail('--email', text)).toThrow(UsageError);
  });

  it('amount: a fraction of a megabyte of zeros is refused at once, trailing zeros still dropped', () => {
    expect(() => fast(() => parseAmount(`1.${'0'.repeat(MEGABYTE)}1`, 2))).toThrow(/decimals|not an amount|at most/);
    expect(parseAmount('1.500000', 2)).toBe(150n);
  });

  it('base URLs: trailing slashes dropped at once however many there are, inner ones kept', () => {
    const slashes = '/'.repeat(MEGABYTE);
    expect(fast(() => withoutTrailingSlashes(`${slashes}a${slashes}`))).toBe(`${slashes}a`);
    expect(normaliseBaseUrl(new URL('https://api.example.com/v1//'))).toBe('https://api.example.com/v1');
    expect(normaliseBaseUrl(new URL('https://api.example.com/'))).toBe('https://api.example.com');
    expect(fast(() => defaultTokenUrl(`https://a.example.com/${slashes}x`))).toBe(`https://a.example.com/${slashes}x/oauth/token`);
  });
});
