// What makes a PIN acceptable before anything is encrypted or sent. Messages never contain the
// PIN itself, only what is wrong with it.
import { randomInt } from 'node:crypto';
import { UsageError } from '../core/errors.js';
import { PIN_MAX_LENGTH, PIN_MIN_LENGTH } from './block.js';

/** Why a PIN is unacceptable, or undefined when it is fine. Never includes the PIN. */
export function pinProblem(pin: string, options: { allowWeak?: boolean } = {}): string | undefined {
  if (pin === '') return 'the PIN is empty';
  if (!/^\d+$/.test(pin)) return 'a PIN has digits only';
  if (pin.length < PIN_MIN_LENGTH || pin.length > PIN_MAX_LENGTH) {
    return `a PIN has ${PIN_MIN_LENGTH} to ${PIN_MAX_LENGTH} digits (this one has ${pin.length})`;
  }
  if (!options.allowWeak) {
    const weakness = pinWeakness(pin);
    if (weakness) return `the PIN is too easy to guess (${weakness})`;
  }
  return undefined;
}

/** Names the pattern that makes a PIN trivially guessable, or undefined. */
export function pinWeakness(pin: string): string | undefined {
  if (/^(\d)\1+$/.test(pin)) return 'every digit is the same';
  const steps = [...pin].slice(1).map((d, i) => (Number(d) - Number(pin[i]) + 10) % 10);
  if (steps.every((s) => s === 1)) return 'the digits count up';
  if (steps.every((s) => s === 9)) return 'the digits count down';
  // A short pattern repeated: 1212, 123123.
  for (const size of [1, 2, 3]) {
    if (pin.length % size === 0 && pin.length / size >= 2 && pin === pin.slice(0, size).repeat(pin.length / size)) {
      return 'a short pattern repeats';
    }
  }
  if (COMMON.has(pin)) return 'it is one of the most common PINs';
  return undefined;
}

// A few of the most used 4-digit PINs that the patterns above miss (keypad columns, pairs).
const COMMON = new Set(['1122', '2580', '0852', '6969', '1004', '2000', '1212', '7777', '1313']);

/** Throws a UsageError (exit 2) naming the problem and how to override a weak-PIN refusal. */
export function assertAcceptablePin(pin: string, options: { allowWeak?: boolean; what?: string } = {}): void {
  const problem = pinProblem(pin, options);
  if (!problem) return;
  const weak = pinProblem(pin, { allowWeak: true }) === undefined;
  throw new UsageError(`invalid ${options.what ?? 'PIN'}: ${problem}`, {
    code: weak ? 'WEAK_PIN' : 'INVALID_PIN',
    hint: weak ? 'choose a PIN without repeats or runs, or pass --allow-weak-pin if this one is really wanted' : undefined,
  });
}

/** A random 6-digit PIN that is not trivially weak, made on this machine and never shown (`cardctl mcp`'s PIN tools). */
export function randomPin(): string {
  for (;;) {
    const pin = String(randomInt(0, 1_000_000)).padStart(6, '0');
    if (!pinProblem(pin)) return pin;
  }
}
