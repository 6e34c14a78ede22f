import { constants, createHash, createPublicKey, generateKeyPairSync, privateDecrypt, type KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPinBlock, panBlockField } from '../../src/pin/block.js';
import { encryptPinBlock, loadPinKey, type PinCipher } from '../../src/pin/encrypt.js';
import { assertAcceptablePin, pinProblem, pinWeakness } from '../../src/pin/policy.js';
import { UsageError } from '../../src/core/errors.js';

let privateKey: KeyObject;
let publicPem: string;

beforeAll(() => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  privateKey = pair.privateKey;
  publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
});

function decrypt(hex: string, cipher: PinCipher): Buffer {
  const buffer = Buffer.from(hex, 'hex');
  if (cipher === 'rsa-pkcs1') {
    // Node 20 refuses PKCS#1 v1.5 private decryption (CVE-2023-46809), so undo the raw RSA and
    // check the v1.5 padding by hand: 00 02, at least 8 non-zero bytes, 00, message.
    const em = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, buffer);
    expect(em[0]).toBe(0x00);
    expect(em[1]).toBe(0x02);
    const separator = em.indexOf(0x00, 2);
    expect(separator).toBeGreaterThanOrEqual(10);
    expect([...em.subarray(2, separator)].every((b) => b !== 0)).toBe(true);
    return em.subarray(separator + 1);
  }
  return privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: cipher === 'rsa-oaep-sha256' ? 'sha256' : 'sha1' }, buffer);
}

/** The 16 nibbles of an 8-byte block. */
function nibbles(block: Buffer): number[] {
  return [...block].flatMap((byte) => [byte >> 4, byte & 0xf]);
}

describe('ISO 9564-1 format 1 clear block', () => {
  it('lays out control 1, length, digits, then the random fill', () => {
    const fill = [0xa, 0x3, 0xf, 0x0, 0xc, 0x7, 0x9, 0x1, 0x2, 0xe];
    let i = 0;
    const block = buildPinBlock('482173', { randomNibble: () => fill[i++]! });
    expect(block).toHaveLength(8);
    expect(nibbles(block)).toEqual([1, 6, 4, 8, 2, 1, 7, 3, 0xa, 0x3, 0xf, 0x0, 0xc, 0x7, 0x9, 0x1]);
    expect(block.toString('hex')).toBe('16482173a3f0c791');
    expect(i).toBe(8); // 16 nibbles - control - length - 6 digits
  });

  it('uses length nibble C for a 12-digit PIN, leaving two fill nibbles', () => {
    let calls = 0;
    const block = buildPinBlock('123456789012', { randomNibble: () => (calls++, 0xd) });
    expect(block.toString('hex')).toBe('1c123456789012dd');
    expect(calls).toBe(2);
  });

  it('fills with crypto randomness by default (different blocks for the same PIN)', () => {
    const seen = new Set<string>();
    for (let n = 0; n < 20; n++) seen.add(buildPinBlock('4821').toString('hex'));
    expect(seen.size).toBeGreaterThan(15);
    for (const hex of seen) expect(hex.slice(0, 6)).toBe('144821');
  });

  it('refuses malformed PINs without echoing them', () => {
    for (const bad of ['123', '1234567890123', '12a4', '']) {
      try {
        buildPinBlock(bad);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        if (bad) expect((error as Error).message).not.toContain(bad);
      }
    }
  });
});

describe('ISO 9564-1 format 0 clear block', () => {
  it('XORs 0, length, digits, F fill with 0000 + 12 rightmost PAN digits without the check digit', () => {
    const pan = '5399831234567890'; // check digit 0 dropped → 983123456789
    const block = buildPinBlock('1234', { format: 'iso-0', pan });
    const pinField = Buffer.from('041234ffffffffff', 'hex');
    const panField = Buffer.from('0000983123456789', 'hex');
    const expected = Buffer.alloc(8);
    for (let i = 0; i < 8; i++) expected[i] = pinField[i]! ^ panField[i]!;
    expect(block.toString('hex')).toBe(expected.toString('hex'));
    expect(block.toString('hex')).toBe('0412accedcba9876');
    // Undo the XOR and read the PIN back nibble by nibble.
    const clear = Buffer.from(block.map((b, i) => b ^ panField[i]!));
    const n = nibbles(clear);
    expect(n[0]).toBe(0);
    expect(n[1]).toBe(4);
    expect(n.slice(2, 6)).toEqual([1, 2, 3, 4]);
    expect(n.slice(6).every((x) => x === 0xf)).toBe(true);
  });

  it('needs a full PAN', () => {
    expect(() => buildPinBlock('1234', { format: 'iso-0' })).toThrow(UsageError);
    expect(() => panBlockField('539983******7890')).toThrow(/full card number/);
    expect(panBlockField('4111 1111 1111 1111').toString('hex')).toBe('0000111111111111');
  });
});

describe('encryption under the PIN key', () => {
  it('fingerprint is the SHA-256 of the DER SubjectPublicKeyInfo, as node:crypto computes it', async () => {
    const key = await loadPinKey(publicPem);
    const der = createPublicKey(publicPem).export({ type: 'spki', format: 'der' });
    expect(key.fingerprint).toBe(createHash('sha256').update(der).digest('hex'));
    expect(key.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(key.bits).toBe(2048);
  });

  it('accepts a PKCS#1 RSA PUBLIC KEY with the same fingerprint', async () => {
    const pkcs1 = createPublicKey(publicPem).export({ type: 'pkcs1', format: 'pem' }).toString();
    expect((await loadPinKey(pkcs1)).fingerprint).toBe((await loadPinKey(publicPem)).fingerprint);
  });

  it('rejects non-keys and short keys', async () => {
    await expect(loadPinKey('hello')).rejects.toThrow(UsageError);
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await expect(loadPinKey(small)).rejects.toThrow(/2048/);
  });

  for (const cipher of ['rsa-oaep-sha256', 'rsa-oaep-sha1', 'rsa-pkcs1'] as const) {
    it(`${cipher}: node:crypto decrypts the block bit for bit (format 1)`, async () => {
      const key = await loadPinKey(publicPem);
      const fill = [3, 0xb, 0xe, 9, 0, 5, 0xf, 1, 7, 2];
      let i = 0;
      const result = await encryptPinBlock('90817', { key, cipher, randomNibble: () => fill[i++]! });
      expect(result.publicKeyFingerprint).toBe(key.fingerprint);
      expect(result.encryptedData).toMatch(/^[0-9a-f]{512}$/);
      const clear = decrypt(result.encryptedData, cipher);
      expect(clear).toHaveLength(8);
      expect(nibbles(clear)).toEqual([1, 5, 9, 0, 8, 1, 7, 3, 0xb, 0xe, 9, 0, 5, 0xf, 1, 7]);
    });
  }

  it('format 0 through RSA-OAEP-256 decrypts to the XOR-ed block', async () => {
    const key = await loadPinKey(publicPem);
    const result = await encryptPinBlock('1234', { key, format: 'iso-0', pan: '5399831234567890' });
    expect(decrypt(result.encryptedData, 'rsa-oaep-sha256').toString('hex')).toBe('0412accedcba9876');
  });

  it('refuses a cipher it does not know, even one named like an object property', async () => {
    const key = await loadPinKey(publicPem);
    for (const cipher of ['rsa-oaep-md5', 'toString', '__proto__']) {
      await expect(encryptPinBlock('4821', { key, cipher: cipher as PinCipher })).rejects.toThrow(/unknown PIN cipher/);
    }
  });

  it('OAEP is randomised: two encryptions of one block differ', async () => {
    const key = await loadPinKey(publicPem);
    const a = await encryptPinBlock('4821', { key, randomNibble: () => 0 });
    const b = await encryptPinBlock('4821', { key, randomNibble: () => 0 });
    expect(a.encryptedData).not.toBe(b.encryptedData);
    expect(decrypt(a.encryptedData, 'rsa-oaep-sha256').toString('hex')).toBe('1448210000000000');
  });
});

describe('PIN policy', () => {
  it('accepts ordinary PINs of 4 to 12 digits', () => {
    for (const pin of ['4821', '7305', '90817', '482916', '730591846203']) expect(pinProblem(pin)).toBeUndefined();
  });

  it('checks length and digits', () => {
    expect(pinProblem('482')).toMatch(/4 to 12 digits/);
    expect(pinProblem('4829163058271')).toMatch(/4 to 12 digits/);
    expect(pinProblem('48a1')).toMatch(/digits only/);
    expect(pinProblem('')).toMatch(/empty/);
  });

  it('names trivially weak PINs', () => {
    expect(pinWeakness('0000')).toMatch(/same/);
    expect(pinWeakness('1111')).toMatch(/same/);
    expect(pinWeakness('999999')).toMatch(/same/);
    expect(pinWeakness('1234')).toMatch(/up/);
    expect(pinWeakness('456789')).toMatch(/up/);
    expect(pinWeakness('4321')).toMatch(/down/);
    expect(pinWeakness('987654')).toMatch(/down/);
    expect(pinWeakness('1212')).toMatch(/repeats/);
    expect(pinWeakness('123123')).toMatch(/repeats/);
    expect(pinWeakness('2580')).toBeDefined();
    expect(pinWeakness('4821')).toBeUndefined();
  });

  it('refuses weak PINs with a hint, unless allowed; never echoes the PIN', () => {
    try {
      assertAcceptablePin('1234');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).exitCode).toBe(2);
      expect((error as UsageError).hint).toMatch(/--allow-weak-pin/);
      expect((error as Error).message).not.toContain('1234');
    }
    expect(() => assertAcceptablePin('1234', { allowWeak: true })).not.toThrow();
    expect(() => assertAcceptablePin('12', { allowWeak: true })).toThrow(UsageError);
  });
});
