import type { pki } from 'node-forge';
import { defineCommand } from '../../contract/command.js';
import { defineFlags } from '../../core/flags.js';
import { UsageError } from '../../core/errors.js';
import { validatePositiveInt } from '../../core/validate.js';

export interface GeneratedCredentials {
  privateKeyPem: string;
  certificatePem: string;
}

/** An RSA key pair (PKCS#8 PEM) and a self-signed X.509 v3 certificate (SHA-256) for it. */
export async function generateKeyAndCertificate(input: { bits: number; days: number; subject: string; now?: Date }): Promise<GeneratedCredentials> {
  const { default: forge } = await import('node-forge');
  const { randomBytes } = await import('node:crypto');
  // forge hands the work to node:crypto's generateKeyPair when it is available (fast, native).
  const keys = await new Promise<pki.rsa.KeyPair>((resolve, reject) => {
    forge.pki.rsa.generateKeyPair({ bits: input.bits, e: 0x10001 }, (error, pair) => (error ? reject(error) : resolve(pair)));
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  // A positive 128-bit serial (top bit clear).
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  cert.serialNumber = serial.toString('hex');
  const now = input.now ?? new Date();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + input.days * 86_400_000);
  const attrs = [{ name: 'commonName', value: input.subject }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const privateKeyPem = forge.pki.privateKeyInfoToPem(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(keys.privateKey)));
  return { privateKeyPem, certificatePem: forge.pki.certificateToPem(cert) };
}

const FLAGS = defineFlags({
  out: { type: 'string', value: 'dir', complete: 'directory', default: '.', description: 'directory for private-key.pem and certificate.pem' },
  subject: { type: 'string', value: 'cn', default: 'cardctl-app', description: 'certificate subject common name' },
  days: { type: 'string', value: 'n', default: '365', description: 'validity in days' },
  bits: { type: 'string', value: 'n', default: '2048', description: 'RSA key size (2048 or more)' },
  force: { type: 'boolean', description: 'overwrite existing files' },
});

/** What keygen prints: the files it wrote and the certificate's facts. */
const KEYGEN_KEYS = ['privateKey', 'certificate', 'subject', 'bits', 'fingerprint', 'validFrom', 'validTo'] as const;

export default defineCommand({
  name: 'keygen',
  mcp: 'write',
  output: async () => (await import('../../output/shape.js')).outputShape({ keys: KEYGEN_KEYS }),
  summary: 'create an RSA key and a self-signed certificate for `oauth create`',
  description: `Create an RSA key pair and a self-signed X.509 certificate for an OAuth application.

Writes private-key.pem (PKCS#8, mode 0600; keep it secret — \`cardctl login --private-key\` \
signs client assertions with it) and certificate.pem (give it to \`cardctl oauth create \
--public-key\`) into --out, and prints the certificate's SHA-256 fingerprint. Existing files are \
never overwritten unless --force is given.`,
  flags: FLAGS,
  examples: [
    'cardctl oauth keygen --out ./keys --subject reconciler',
    'cardctl oauth create --name reconciler --public-key ./keys/certificate.pem --scope read:card --grant-type client_credentials',
  ],
  async parse({ opts }) {
    const bits = validatePositiveInt('--bits', String(opts.bits), 16384);
    if (bits < 2048) throw new UsageError(`--bits ${bits} is too small: RSA keys must be 2048 bits or more`);
    if (bits % 8 !== 0) throw new UsageError(`--bits ${bits}: give a multiple of 8, e.g. 2048, 3072 or 4096`);
    const days = validatePositiveInt('--days', String(opts.days), 36500);
    const subject = String(opts.subject ?? '').trim();
    if (!subject) throw new UsageError('--subject is empty: give the certificate\'s common name');
    if (subject.length > 64) throw new UsageError('--subject is longer than 64 characters (the X.509 limit for a common name)');

    const { existsSync, statSync } = await import('node:fs');
    const { join, resolve } = await import('node:path');
    const dir = resolve(opts.out ?? '.');
    if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`--out ${opts.out} is not a directory`);
    const keyPath = join(dir, 'private-key.pem');
    const certPath = join(dir, 'certificate.pem');
    if (!opts.force) {
      const existing = [keyPath, certPath].filter((p) => existsSync(p));
      if (existing.length) {
        throw new UsageError(`${existing.join(' and ')} already exist${existing.length === 1 ? 's' : ''}; refusing to overwrite`, {
          hint: 'pass --force to replace them (the old key stops working for its application), or choose another --out',
        });
      }
    }
    return { bits, days, subject, dir, keyPath, certPath, force: Boolean(opts.force) };
  },
  async run(ctx, { bits, days, subject, dir, keyPath, certPath, force }) {
    const { mkdirSync, rmSync } = await import('node:fs');

    const generated = await generateKeyAndCertificate({ bits, days, subject, now: ctx.clock.now() });
    const { X509Certificate } = await import('node:crypto');
    const cert = new X509Certificate(generated.certificatePem);

    mkdirSync(dir, { recursive: true });
    // Each file whole or not at all: a full disk never leaves a 0-byte key behind.
    const { writeFileAtomic } = await import('../../core/write-file.js');
    writeFileAtomic(keyPath, generated.privateKeyPem, { mode: 0o600, exclusive: !force });
    try {
      writeFileAtomic(certPath, generated.certificatePem, { mode: 0o644, exclusive: !force });
    } catch (error) {
      // A key without its certificate is of no use, and a later run would refuse to replace it.
      if (!force) rmSync(keyPath, { force: true });
      throw error;
    }

    const out = ctx.output();
    out.success(`wrote ${keyPath} (keep it secret) and ${certPath}`);
    await out.record({
      privateKey: keyPath,
      certificate: certPath,
      subject: cert.subject.replace(/\n/g, ', '),
      bits,
      fingerprint: cert.fingerprint256,
      validFrom: new Date(cert.validFrom).toISOString(),
      validTo: new Date(cert.validTo).toISOString(),
      // `privateKey` is where the key was written, not the key: shown to the person (an assistant gets no path to it).
    } satisfies Record<(typeof KEYGEN_KEYS)[number], unknown>, { idPath: 'fingerprint', carriesSecret: true });
  },
});
