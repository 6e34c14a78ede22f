// Patterns over user input run in linear time: a megabyte of the input that made each old
// pattern backtrack is answered at once, and the values they accepted are accepted still.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { normaliseBaseUrl, validateEmail, withoutTrailingSlashes } from '../../src/core/validate.js';
import { defaultTokenUrl } from '../../src/api/client-credentials.js';
import { parseAmount } from '../../src/iso8583/amount.js';
import { maskPansInText } from '../../src/core/redact.js';
import { parseFaultSpec, parseProbability } from '../../src/sandbox/faults.js';
import { parseWebhookFaults } from '../../src/sandbox/switch/webhook-faults.js';

const MEGABYTE = 1_000_000;

/** CPU time a megabyte may take: a linear pattern needs milliseconds, one that backtracks minutes. */
const CPU_BUDGET_MS = 2_000;

/**
 * Runs `work` (which may throw) and checks the CPU time this process spent on it: CPU time, not
 * the clock, so a machine busy with other work does not stretch it.
 */
function fast<T>(work: () => T): T {
  const before = process.cpuUsage();
  try {
    return work();
  } finally {
    const { user, system } = process.cpuUsage(before);
    expect((user + system) / 1000).toBeLessThan(CPU_BUDGET_MS);
  }
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

  it('card numbers in text: a megabyte of a +phone-like run, of spaced and dashed digits, at once', () => {
    const plus = `+ ${'1 '.repeat(MEGABYTE / 2)}`;
    expect(fast(() => maskPansInText(plus))).toBe(plus);
    const dashed = `${'1-'.repeat(MEGABYTE / 2)}1x`;
    expect(fast(() => maskPansInText(dashed))).toBe(dashed);
    const spaced = `${'1 '.repeat(MEGABYTE / 2)}5399830000000008 x`;
    expect(fast(() => maskPansInText(spaced)).endsWith(' 539983******0008 x')).toBe(true);
    expect(maskPansInText('card 5399 8300 0000 0008, call +234 5399 8300 0000 0008')).toBe('card 539983******0008, call +234 5399 8300 0000 0008');
  });

  it('fault probabilities: a megabyte of digits is refused at once, plain decimals still taken', () => {
    const digits = `${'1'.repeat(MEGABYTE)}x`;
    expect(() => fast(() => parseFaultSpec(`reset=${digits}`))).toThrow(/probability/);
    expect(() => fast(() => parseWebhookFaults(`reset=${digits}`))).toThrow(/probability/);
    for (const [text, n] of [['0.1', 0.1], ['.5', 0.5], ['1', 1], [' 0 ', 0], ['1.0', 1]] as const) expect(parseProbability(text)).toBe(n);
    for (const text of ['', '1.', '1e-1', '0x1', '-0', '1.5', '.', 'true']) expect(parseProbability(text)).toBeUndefined();
    expect(parseProbability(true)).toBeUndefined();
  });
});
