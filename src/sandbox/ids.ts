// Identifiers and secrets of the sandbox.
import { createHash, randomBytes, randomFillSync, randomInt, timingSafeEqual } from 'node:crypto';

// ObjectId-shaped (24 hex): 4 bytes of seconds, 3 bytes of time within that second, 5 random bytes.
// The middle part is the millisecond (10 bits) and a sequence within that millisecond (14 bits), so
// ids made by one process sort in creation order (a fair tiebreak for equal createdAt) while the gap
// between two of an institution's ids says nothing about how many records others made in between:
// a process-wide counter did.
const SEQUENCE_BITS = 14;
let lastMillisecond = -1;
let sequence = 0;
// The random part of ids comes from a pool filled 4 KiB at a time: a randomBytes(5) call per id
// took ~3.5 µs, two ids a simulation ~2.5% of a stub simulation's CPU; the pool, ~0.3 µs.
const RANDOM_POOL = Buffer.alloc(4096);
let poolOffset = RANDOM_POOL.length;

/** `bytes` random bytes as hex, from the pool. */
function randomHex(bytes: number): string {
  if (poolOffset + bytes > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    poolOffset = 0;
  }
  poolOffset += bytes;
  return RANDOM_POOL.toString('hex', poolOffset - bytes, poolOffset);
}

/** A 24-hex record id, shaped like the real service's document ids (MongoDB ObjectIds). */
export function newId(now = Date.now()): string {
  const millisecond = Math.floor(now);
  if (millisecond === lastMillisecond && sequence < (1 << SEQUENCE_BITS) - 1) sequence += 1;
  else if (millisecond !== lastMillisecond) sequence = 0;
  lastMillisecond = millisecond;
  const withinSecond = (millisecond % 1000) * (1 << SEQUENCE_BITS) + sequence;
  const seconds = Math.floor(millisecond / 1000).toString(16).padStart(8, '0');
  return `${seconds}${withinSecond.toString(16).padStart(6, '0')}${randomHex(5)}`;
}

/** A bearer token or API key: 32 random bytes, base64url (256 bits; the floor is 128). */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** How secrets are stored: lowercase hex sha256. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `count` random decimal digits. */
export function randomDigits(count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String(randomInt(10));
  return out;
}

/** An opaque token-looking value (tokenised CVVs, card tokens, hashes). */
export function opaque(bytes = 16): string {
  return randomBytes(bytes).toString('hex');
}
