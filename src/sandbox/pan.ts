// Card numbers: generation from a program's range, the Luhn check digit, masking.
import { randomInt } from 'node:crypto';
import type { CardProgram } from '../api/schemas.js';
import { conflict } from './errors.js';
import { randomDigits } from './ids.js';

export function luhnCheckDigit(body: string): string {
  let sum = 0;
  // Double every second digit from the right of the full number, i.e. starting with the
  // rightmost digit of the body (the check digit will sit to its right).
  for (let i = body.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = body.charCodeAt(i) - 48;
    if (double) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

export function luhnValid(pan: string): boolean {
  return /^\d{2,}$/.test(pan) && luhnCheckDigit(pan.slice(0, -1)) === pan.slice(-1);
}

/** First 6 and last 4 digits, the rest as `*`. */
export function maskPan(pan: string): string {
  return `${pan.slice(0, 6)}${'*'.repeat(Math.max(0, pan.length - 10))}${pan.slice(-4)}`;
}

/** Whether a PAN lies in the program's range (prefix, length, panStart..panEnd). */
export function panInProgramRange(program: CardProgram, pan: string): boolean {
  return pan.length === program.panLength
    && pan.startsWith(program.panPrefix)
    && pan >= program.panStart && pan <= program.panEnd; // equal-length digit strings compare numerically
}

/**
 * The next card number of the program: sequential from panStart (using panSequenceCounter),
 * or random in the range when the program says randomCardNumber. `taken` rejects numbers
 * already issued. Returns the PAN and the program's next counter value.
 *
 * As an issuer's processor does, each program draws from its own BIN range with its own
 * counter, and no other institution's program overlaps that range (services/card-programs.ts):
 * the numbers an institution receives, and the ones `taken` skips, are its own cards alone.
 */
export function nextProgramPan(program: CardProgram, taken: (pan: string) => boolean): { pan: string; counter: number } {
  const bodyLength = program.panLength - 1;
  const start = BigInt(program.panStart.slice(0, bodyLength));
  const end = BigInt(program.panEnd.slice(0, bodyLength));
  let counter = program.panSequenceCounter;
  for (let attempt = 0; attempt < 1000; attempt++) {
    const offset = program.randomCardNumber ? randomBigInt(end - start + 1n) : BigInt(counter++);
    const bodyValue = start + offset;
    if (bodyValue > end) break;
    const body = bodyValue.toString().padStart(bodyLength, '0');
    const pan = body + luhnCheckDigit(body);
    if (panInProgramRange(program, pan) && !taken(pan)) return { pan, counter };
  }
  throw conflict(`card program ${program.id} has no free card numbers left in its range`);
}

/**
 * The program an imported card joins (imported cards bring a BIN, not a PAN): the first whose
 * range and the BIN's meet, i.e. one prefix begins with the other.
 */
export function programOfBin(programs: readonly CardProgram[], bin: string): CardProgram | undefined {
  return programs.find((program) => bin.startsWith(program.panPrefix) || program.panPrefix.startsWith(bin));
}

/** A random Luhn-valid number of the program's length under the BIN and the program's prefix (the longer of the two). */
export function panFromBin(program: CardProgram, bin: string, taken: (pan: string) => boolean): string {
  const prefix = bin.length > program.panPrefix.length ? bin : program.panPrefix;
  for (let attempt = 0; attempt < 1000; attempt++) {
    const body = prefix + randomDigits(program.panLength - 1 - prefix.length);
    const pan = body + luhnCheckDigit(body);
    if (!taken(pan)) return pan;
  }
  throw conflict(`no free card number left for BIN ${bin}`);
}

function randomBigInt(bound: bigint): bigint {
  // Ranges in practice fit in 2^48; fall back to composing for larger ones.
  if (bound <= 281474976710655n) return BigInt(randomInt(Number(bound)));
  return (BigInt(randomInt(2 ** 48 - 1)) * 281474976710655n + BigInt(randomInt(2 ** 48 - 1))) % bound;
}
