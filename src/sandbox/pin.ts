// The sandbox side of PIN handling: its RSA key pair, decrypting Encrypted PIN blocks
// (RSA-OAEP SHA-256, ISO 9564-1 format 1 inside), and the salted hash PINs are stored as.
import {
  constants, createHash, createPublicKey, generateKeyPairSync, privateDecrypt, randomBytes, scrypt, timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';
import type { EncryptedPinBlock } from '../api/schemas.js';
import { DomainError } from './errors.js';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number }) => Promise<Buffer>;

export interface PinKeyPair {
  publicKeyPem: string;
  privateKeyPem: string;
  /** lowercase hex sha256 of the DER SubjectPublicKeyInfo */
  fingerprint: string;
}

/** A fresh RSA-2048 pair (generated once per database, then persisted). */
export function generatePinKeyPair(): PinKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey, fingerprint: publicKeyFingerprint(publicKey) };
}

export function publicKeyFingerprint(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex');
}

/** Decrypts and parses one Encrypted PIN block; `field` names it in errors (e.g. `newPIN`). */
export function decryptPinBlock(block: EncryptedPinBlock, key: { fingerprint: string; privateKey: KeyObject }, field: string): string {
  if (block.publicKeyFingerprint.toLowerCase() !== key.fingerprint) {
    throw new DomainError('unknown-key', `${field} was encrypted under an unknown key: fetch the current key from GET /sandbox/pin-key`,
      [{ field: `${field}.publicKeyFingerprint`, message: 'does not match the sandbox PIN key' }]);
  }
  let clear: Buffer;
  try {
    if (block.encryptedData.length % 2 !== 0) throw new Error('odd hex length');
    clear = privateDecrypt(
      { key: key.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(block.encryptedData, 'hex'),
    );
  } catch {
    throw invalidBlock(field, 'does not decrypt with RSA-OAEP SHA-256 under the sandbox PIN key');
  }
  return parseIsoFormat1(clear, field);
}

/** ISO 9564-1 format 1: nibble 0 = 1, nibble 1 = PIN length (4–12), PIN digits, fill. 8 bytes. */
export function parseIsoFormat1(clear: Buffer, field: string): string {
  if (clear.length !== 8) throw invalidBlock(field, `is not an 8-byte ISO 9564-1 block (got ${clear.length} bytes)`);
  const nibbles = clear.toString('hex');
  if (nibbles[0] !== '1') throw invalidBlock(field, `is not ISO 9564-1 format 1 (control nibble ${nibbles[0]})`);
  const length = parseInt(nibbles[1]!, 16);
  if (length < 4 || length > 12) throw invalidBlock(field, `has a PIN length of ${length}; PINs are 4 to 12 digits`);
  const pin = nibbles.slice(2, 2 + length);
  if (!/^[0-9]+$/.test(pin)) throw invalidBlock(field, 'holds a PIN with non-digit nibbles');
  return pin;
}

function invalidBlock(field: string, problem: string): DomainError {
  return new DomainError('invalid-pin-block', `${field} ${problem}`, [{ field: `${field}.encryptedData`, message: problem }]);
}

// scrypt cost: what matters here is that no clear PIN is stored. A 4-12 digit PIN falls to a
// search over at most 10^12 values whatever the cost, and N=2^14 or more would make card
// creation spend ~30 ms of a two-core machine's CPU per card. The parameters travel in the
// hash, so a stronger setting can be introduced without breaking stored cards.
const SCRYPT = { N: 1024, r: 8, p: 1 };
const KEY_LENGTH = 32;

/** `scrypt$N$r$p$<salt b64>$<hash b64>` */
export async function hashPin(pin: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(pin, salt, KEY_LENGTH, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPin(pin: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(pin, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}
