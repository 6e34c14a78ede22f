// Encrypts a clear PIN block under the institution's PIN public key (node-forge, loaded on first
// use). The ciphertext travels as hex `encryptedData`; the key is named by the lowercase hex
// SHA-256 of its DER SubjectPublicKeyInfo (`publicKeyFingerprint`).
import type { EncryptedPinBlock } from '../api/schemas.js';
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
  /** node-forge's public key object (opaque here). */
  forgeKey: unknown;
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
  return { pem: forge.pki.publicKeyToPem(key), fingerprint, bits, forgeKey: key };
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
  const { default: forge } = await import('node-forge');
  const block = buildPinBlock(pin, { format: options.format, pan: options.pan, randomNibble: options.randomNibble });
  const key = options.key.forgeKey as import('node-forge').pki.rsa.PublicKey;
  const bytes = block.toString('binary');
  block.fill(0);
  let encrypted: string;
  switch (options.cipher ?? 'rsa-oaep-sha256') {
    case 'rsa-oaep-sha256':
      encrypted = key.encrypt(bytes, 'RSA-OAEP', { md: forge.md.sha256.create(), mgf1: { md: forge.md.sha256.create() } });
      break;
    case 'rsa-oaep-sha1':
      encrypted = key.encrypt(bytes, 'RSA-OAEP', { md: forge.md.sha1.create(), mgf1: { md: forge.md.sha1.create() } });
      break;
    case 'rsa-pkcs1':
      encrypted = key.encrypt(bytes, 'RSAES-PKCS1-V1_5');
      break;
    default:
      throw new UsageError(`unknown PIN cipher "${String(options.cipher)}"`, { hint: `use one of: ${PIN_CIPHERS.join(', ')}` });
  }
  return { encryptedData: forge.util.bytesToHex(encrypted), publicKeyFingerprint: options.key.fingerprint };
}
