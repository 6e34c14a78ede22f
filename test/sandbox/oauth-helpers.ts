// An RSA key with a self-signed certificate (node-forge) and RS256 client assertions (jose),
// as an OAuth application would make them.
import { createPrivateKey, randomUUID } from 'node:crypto';
import forge from 'node-forge';
import { SignJWT } from 'jose';

export interface TestCertificate {
  certificatePem: string;
  privateKeyPem: string;
}

export function makeCertificate(commonName = 'cardctl-test-app'): TestCertificate {
  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = '01';
  certificate.validity.notBefore = new Date(Date.now() - 60_000);
  certificate.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  const attributes = [{ name: 'commonName', value: commonName }, { name: 'organizationName', value: 'Sandbox Tests' }];
  certificate.setSubject(attributes);
  certificate.setIssuer(attributes);
  certificate.sign(keys.privateKey, forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(certificate), privateKeyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}

export interface AssertionOptions {
  clientId: string;
  audience: string;
  privateKeyPem: string;
  expiresInSeconds?: number;
  jti?: string;
  issuer?: string;
  subject?: string;
  omitExp?: boolean;
}

export async function clientAssertion(options: AssertionOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT({})
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(options.issuer ?? options.clientId)
    .setSubject(options.subject ?? options.clientId)
    .setAudience(options.audience)
    .setIssuedAt(now)
    .setJti(options.jti ?? randomUUID());
  if (!options.omitExp) jwt = jwt.setExpirationTime(now + (options.expiresInSeconds ?? 120));
  return jwt.sign(createPrivateKey(options.privateKeyPem));
}
