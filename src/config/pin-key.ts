// The institution's PIN public key, as stored in a profile: the PEM (SubjectPublicKeyInfo) and
// its fingerprint, the lowercase hex SHA-256 of the DER SubjectPublicKeyInfo (docs/pin.md).
import { SetupError, UsageError } from '../core/errors.js';

export interface PinKey {
  pem: string;
  fingerprint: string;
  bits?: number;
}

/** Parses a PEM public key (or certificate) and computes its fingerprint; RSA 2048 or larger. */
export async function parsePinKey(text: string, source = '--pin-key'): Promise<PinKey> {
  const { createHash, createPublicKey } = await import('node:crypto');
  let key: import('node:crypto').KeyObject;
  try {
    key = createPublicKey(text);
  } catch (error) {
    throw new UsageError(`${source}: not a PEM public key or certificate (${(error as Error).message})`, {
      hint: 'give the institution\'s RSA public key, e.g. a file starting with "-----BEGIN PUBLIC KEY-----"',
    });
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new UsageError(`${source}: the PIN key must be an RSA key, not ${key.asymmetricKeyType ?? 'unknown'}`);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (bits !== undefined && bits < 2048) {
    throw new UsageError(`${source}: the RSA key has ${bits} bits; PIN keys must have 2048 or more`);
  }
  const der = key.export({ type: 'spki', format: 'der' });
  const pem = String(key.export({ type: 'spki', format: 'pem' }));
  return { pem, fingerprint: createHash('sha256').update(der).digest('hex'), bits };
}

/** Reads a PIN key file (see parsePinKey). */
export async function readPinKeyFile(path: string, flag = '--pin-key'): Promise<PinKey> {
  const { readTextFile } = await import('../core/text.js');
  let text: string;
  try {
    text = await readTextFile(path);
  } catch (error) {
    throw SetupError.fromFs(flag, path, error, 'give the path of a PEM file with the institution\'s RSA public key');
  }
  return parsePinKey(text, `${flag} ${path}`);
}
