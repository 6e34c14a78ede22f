// Cards for a benchmark's sandbox: a PIN block under the sandbox's PIN key (`defaultPIN` is
// required even with `pinEnabled: false`), the body of POST /institutions/cards, and that POST.
//
//   const defaultPIN = await defaultPinFor(sandbox);
//   await postCard(sandbox, cardBody(i, { cardProgram: sandbox.cardProgramId, defaultPIN, startDate, expiryDate }));
import { constants, createHash, createPublicKey, publicEncrypt, randomBytes } from 'node:crypto';

/** An ISO 9564 format 1 block for a 4-digit `pin`, RSA-OAEP (SHA-256) encrypted under `publicKey` (PEM). */
export function pinBlock(publicKey, fingerprint, pin = '4821') {
  const clear = Buffer.from(`14${pin}${randomBytes(5).toString('hex')}`, 'hex');
  return {
    encryptedData: publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, clear).toString('hex'),
    publicKeyFingerprint: fingerprint,
  };
}

/** A PIN block under the key the sandbox publishes at GET /sandbox/pin-key (fingerprint: SHA-256 of its SPKI DER). */
export async function defaultPinFor(sandbox, pin = '4821') {
  const keyInfo = await (await fetch(`${sandbox.baseUrl}/sandbox/pin-key`)).json();
  const key = createPublicKey(keyInfo.publicKey);
  const fingerprint = createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex');
  return pinBlock(key, fingerprint, pin);
}

/**
 * The body of POST /institutions/cards for card number `i`: holder `<Name> Holder<i>`, account
 * 3,000,000,000 + i, reference `<name>-<i>` unless `referenceCode` is given.
 */
export function cardBody(i, { cardProgram, defaultPIN, startDate, expiryDate, name = 'Bench', referenceCode = `${name.toLowerCase()}-${i}` }) {
  return {
    cardProgram, referenceCode, pinEnabled: true, defaultPIN,
    account: { currency: '566', bankCode: '058', type: 'savings', number: String(3_000_000_000 + i) },
    customer: { firstName: name, lastName: `Holder${i}`, emailAddress: `${name.toLowerCase()}${i}@example.com`, phoneNumber: '+2348000000000' },
    embossingName: `${name.toUpperCase()} ${i}`, startDate, expiryDate,
  };
}

/** POSTs `body` to the sandbox's /institutions/cards with its token; throws unless the card was created. */
export async function postCard(sandbox, body) {
  const res = await fetch(`${sandbox.baseUrl}/institutions/cards`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`seeding card ${body.referenceCode}: HTTP ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}
