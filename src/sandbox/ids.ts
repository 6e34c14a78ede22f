// Identifiers and secrets of the sandbox.
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

// ObjectId layout: 4 bytes of seconds, 5 random bytes per process, a 3-byte counter. Ids made
// by one process sort in creation order, which makes them a fair tiebreak for equal createdAt.
const PROCESS_RANDOM = randomBytes(5).toString('hex');
let counter = 0;

/** A 24-hex record id, shaped like the real service's document ids (MongoDB ObjectIds). */
export function newId(now = Date.now()): string {
  counter = (counter + 1) & 0xffffff;
  const seconds = Math.floor(now / 1000).toString(16).padStart(8, '0');
  return `${seconds}${PROCESS_RANDOM}${counter.toString(16).padStart(6, '0')}`;
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
