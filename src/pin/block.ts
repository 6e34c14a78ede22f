// ISO 9564-1 clear PIN blocks (8 bytes). Pure functions: no I/O, no node-forge.
//   format 1: nibbles 1, PIN length, PIN digits, random fill nibbles (0-F) to 16 nibbles.
//   format 0: nibbles 0, PIN length, PIN digits, fill F; XOR-ed with 0000 + the 12 rightmost
//             PAN digits excluding the check digit.
import { randomInt } from 'node:crypto';
import { UsageError } from '../core/errors.js';

export type PinBlockFormat = 'iso-1' | 'iso-0';

export const PIN_MIN_LENGTH = 4;
export const PIN_MAX_LENGTH = 12;

export interface PinBlockOptions {
  format?: PinBlockFormat;
  /** Full card number, required by format 0. */
  pan?: string;
  /** A random nibble 0-15 (injectable for known-answer tests); defaults to crypto.randomInt. */
  randomNibble?: () => number;
}

/** The 8-byte clear PIN block. Throws UsageError (never echoing the PIN) for a malformed PIN. */
export function buildPinBlock(pin: string, options: PinBlockOptions = {}): Buffer {
  assertPinShape(pin);
  const format = options.format ?? 'iso-1';
  const nibbles: number[] = [format === 'iso-1' ? 1 : 0, pin.length];
  for (const digit of pin) nibbles.push(digit.charCodeAt(0) - 48);
  const fill = format === 'iso-1' ? options.randomNibble ?? (() => randomInt(16)) : () => 0xf;
  while (nibbles.length < 16) {
    const nibble = fill();
    if (!Number.isInteger(nibble) || nibble < 0 || nibble > 15) throw new Error('random fill must be a nibble 0-15');
    nibbles.push(nibble);
  }
  const block = Buffer.alloc(8);
  for (let i = 0; i < 8; i++) block[i] = (nibbles[2 * i]! << 4) | nibbles[2 * i + 1]!;
  if (format === 'iso-0') {
    const panField = panBlockField(options.pan);
    for (let i = 0; i < 8; i++) block[i]! ^= panField[i]!;
    panField.fill(0);
  }
  nibbles.fill(0);
  return block;
}

/** 0000 followed by the 12 rightmost PAN digits excluding the check digit, as 8 bytes. */
export function panBlockField(pan: string | undefined): Buffer {
  const digits = (pan ?? '').replace(/[\s-]/g, '');
  if (!/^\d{13,19}$/.test(digits)) {
    throw new UsageError('PIN block format iso-0 needs the full card number (13 to 19 digits)', {
      hint: 'pass --pan, or switch the profile to format 1: `cardctl profile set pinBlockFormat iso-1`',
    });
  }
  const twelve = digits.slice(-13, -1);
  return Buffer.from(`0000${twelve}`, 'hex');
}

function assertPinShape(pin: string): void {
  if (!/^\d+$/.test(pin)) throw new UsageError('invalid PIN: use digits only');
  if (pin.length < PIN_MIN_LENGTH || pin.length > PIN_MAX_LENGTH) {
    throw new UsageError(`invalid PIN: it must have ${PIN_MIN_LENGTH} to ${PIN_MAX_LENGTH} digits (got ${pin.length})`);
  }
}
