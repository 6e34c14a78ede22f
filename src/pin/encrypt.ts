// Encrypts a clear PIN block under the institution's PIN public key. The key is read with
// node-forge (loaded on first use: PEM keys of either kind and certificates, and the checks on
// them); each block is encrypted by node:crypto, natively: RSA-OAEP-256 of one block took 2.8-8 ms
// in node-forge and 32-46 µs in node:crypto on this project's benchmark machine, which a bulk
// `cards create` pays for every card. The ciphertext travels as hex `encryptedData`; the key is
// named by the lowercase hex SHA-256 of its DER SubjectPublicKeyInfo (`publicKeyFingerprint`).
import { constants, createPublicKey, publicEncrypt, type KeyObject } from 'node:crypto';
import { UsageError } from '../core/errors.js';
import { buildPinBlock, type PinBlockFormat } from './block.js';

export type PinCipher = 'rsa-oaep-sha256' | 'rsa-oaep-sha1' | 'rsa-pkcs1';
export const PIN_CIPHERS: readonly PinCipher[] = ['rsa-oaep-sha256', 'rsa-oaep-sha1', 'rsa-pkcs1'];
export const PIN_BLOCK_FORMATS: readonly PinBlockFormat[] = ['iso-1', 'iso-0'];

/** A parsed PIN key, ready to encrypt with. */
export interface PinKey {
  /** PEM SubjectPublicKeyInfo (normalised). */
  pem: string;
  fingerprint: string;
  bits: number;
  /** The key as node:crypto encrypts with it. */
  publicKey: KeyObject;
}

const MIN_BITS = 2048;

/**
 * Parses a PIN key: a PEM `PUBLIC KEY` (SPKI), `RSA PUBLIC KEY` (PKCS#1) or a `CERTIFICATE`
 * whose key is RSA. Throws UsageError when it is none of these or shorter than 2048 bits.
 */
export async function loadPinKey(pemText: string, source = 'the PIN key'): Promise<PinKey> {
  const { default: forge } = await import('node-forge');
  const text = pemText.trim();
  let key: import('node-forge').pki.rsa.PublicKey;
  try {
    if (/-----BEGIN CERTIFICATE-----/.test(text)) {
      key = forge.pki.certificateFromPem(text).publicKey as import('node-forge').pki.rsa.PublicKey;
    } else if (/-----BEGIN (RSA )?PUBLIC KEY-----/.test(text)) {
      key = forge.pki.publicKeyFromPem(text);
    } else {
      throw new Error('no PEM public key or certificate');
    }
    if (!key || typeof (key as { n?: unknown }).n !== 'object') throw new Error('not an RSA key');
  } catch (error) {
    throw new UsageError(`${source} is not an RSA public key in PEM form (${(error as Error).message})`, {
      hint: 'give the PEM "PUBLIC KEY" (or certificate) the institution published for PIN encryption',
    });
  }
  const bits = key.n.bitLength();
  if (bits < MIN_BITS) {
    throw new UsageError(`${source} has ${bits} bits; PIN keys must be RSA ${MIN_BITS} or larger`);
  }
  const der = forge.asn1.toDer(forge.pki.publicKeyToAsn1(key)).getBytes();
  const fingerprint = forge.md.sha256.create().update(der).digest().toHex();
  const pem = forge.pki.publicKeyToPem(key);
  return { pem, fingerprint, bits, publicKey: createPublicKey(pem) };
}

/** An encrypted PIN block as the API carries it (its schema, EncryptedPinBlock of src/api/schemas.ts, has these members). */
export interface EncryptedPinBlock {
  /** The ciphertext, hex. */
  encryptedData: string;
  /** Lowercase hex SHA-256 of the key's DER SubjectPublicKeyInfo. */
  publicKeyFingerprint: string;
}

export interface EncryptPinOptions {
  key: PinKey;
  format?: PinBlockFormat;
  cipher?: PinCipher;
  /** Full card number (format iso-0 only). */
  pan?: string;
  /** Injectable random fill for known-answer tests. */
  randomNibble?: () => number;
}

/** Builds the clear block for `pin` and encrypts it: the API's Encrypted PIN block. */
export async function encryptPinBlock(pin: string, options: EncryptPinOptions): Promise<EncryptedPinBlock> {
  const cipher = options.cipher ?? 'rsa-oaep-sha256';
  const padding = Object.hasOwn(PADDING, cipher) ? PADDING[cipher] : undefined;
  if (!padding) throw new UsageError(`unknown PIN cipher "${String(options.cipher)}"`, { hint: `use one of: ${PIN_CIPHERS.join(', ')}` });
  const block = buildPinBlock(pin, { format: options.format, pan: options.pan, randomNibble: options.randomNibble });
  try {
    const encrypted = publicEncrypt({ key: options.key.publicKey, ...padding }, block);
    return { encryptedData: encrypted.toString('hex'), publicKeyFingerprint: options.key.fingerprint };
  } finally {
    block.fill(0);
  }
}

/** Each cipher as node:crypto's publicEncrypt names it. */
const PADDING: Readonly<Record<PinCipher, { padding: number; oaepHash?: string }>> = {
  'rsa-oaep-sha256': { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
  'rsa-oaep-sha1': { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
  'rsa-pkcs1': { padding: constants.RSA_PKCS1_PADDING },
};
