import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import keygen from '../../src/commands/oauth/keygen.js';
import oauthCreate, { checkCertificate, parseCreateOptions } from '../../src/commands/oauth/create.js';
import { UsageError } from '../../src/core/errors.js';
import { validateScope, validateUrl } from '../../src/core/validate.js';
import { ScriptedPrompter } from '../../src/core/prompter.js';
import { testContext } from '../helpers/context.js';
import { optionsOf, runCommand } from '../helpers/parse.js';

/** The body `oauth create` makes of a command line before anything is sent. */
const createBody = async (ctx: Parameters<typeof parseCreateOptions>[0], argv: string[]) => parseCreateOptions(ctx, await optionsOf(oauthCreate, argv));

const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-oauth-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function runKeygen(argv: string[], ctx = testContext({ globals: { json: true } })) {
  await runCommand(keygen, ctx, argv);
  return ctx;
}

describe('validateScope', () => {
  it.each(['read:card', 'create:oauth_application', 'reset:password', '*', 'READ', 'WRITE'])('accepts %s', (scope) => {
    expect(validateScope('--scope', scope)).toBe(scope);
  });
  it.each(['Read:card', 'read', 'read:', ':card', 'read:card:x', 'read card', 'read-x:card', 'write', 'read:card1'])('rejects %s', (scope) => {
    expect(() => validateScope('--scope', scope)).toThrow(UsageError);
  });
  it('validates URLs', () => {
    expect(validateUrl('--website-url', 'https://example.com/x')).toBe('https://example.com/x');
    expect(() => validateUrl('--website-url', 'example.com')).toThrow(/--website-url/);
    expect(() => validateUrl('--icon-url', 'ftp://example.com/i.png')).toThrow(/http/);
  });
});

describe('oauth keygen', () => {
  it('writes a 0600 PKCS#8 key and a self-signed certificate, and prints its SHA-256 fingerprint', async () => {
    const dir = temp();
    const ctx = await runKeygen(['--out', dir, '--subject', 'reconciler', '--days', '30']);
    const key = readFileSync(join(dir, 'private-key.pem'), 'utf8');
    expect(key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(statSync(join(dir, 'private-key.pem')).mode & 0o777).toBe(0o600);
    const cert = new X509Certificate(readFileSync(join(dir, 'certificate.pem')));
    expect(cert.subject).toBe('CN=reconciler');
    expect(cert.issuer).toBe('CN=reconciler');
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29);
    expect(days).toBeLessThan(31);
    const printed = JSON.parse(ctx.io.stdoutText());
    expect(printed.fingerprint).toBe(cert.fingerprint256);
    expect(printed.privateKey).toBe(join(dir, 'private-key.pem'));
    expect(printed.certificate).toBe(join(dir, 'certificate.pem'));
  });

  it('never overwrites without --force', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'private-key.pem'), 'precious');
    await expect(runKeygen(['--out', dir])).rejects.toThrow(/refusing to overwrite/);
    const error = await runKeygen(['--out', dir]).catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.hint).toMatch(/--force/);
    expect(readFileSync(join(dir, 'private-key.pem'), 'utf8')).toBe('precious');
    await runKeygen(['--out', dir, '--force']);
    expect(readFileSync(join(dir, 'private-key.pem'), 'utf8')).toMatch(/BEGIN PRIVATE KEY/);
    expect(statSync(join(dir, 'private-key.pem')).mode & 0o777).toBe(0o600);
  });

  it('refuses keys smaller than 2048 bits', async () => {
    await expect(runKeygen(['--out', temp(), '--bits', '1024'])).rejects.toThrow(/2048/);
  });
});

describe('oauth create parsing', () => {
  async function certFile(): Promise<string> {
    const dir = temp();
    await runKeygen(['--out', dir]);
    return join(dir, 'certificate.pem');
  }

  it('builds the body from flags, checking the certificate, scopes and URLs', async () => {
    const cert = await certFile();
    const ctx = testContext();
    const body = await createBody(ctx, ['--name', ' app ', '--public-key', cert, '--scope', 'read:card', 'read:transaction,read:card', '--grant-type', 'authorization_code', '--redirect-uri', 'https://example.com/cb', '--website-url', 'https://example.com', '--icon-url', 'https://example.com/i.png', '--official', '--description', 'd']);
    expect(body).toEqual({
      name: 'app', publicKey: readFileSync(cert, 'utf8'), scopes: ['read:card', 'read:transaction'], grantType: 'authorization_code',
      redirectUri: ['https://example.com/cb'], websiteUrl: 'https://example.com', iconUrl: 'https://example.com/i.png', isOfficial: true, description: 'd',
    });
  });

  it('without a terminal, a missing required value is a usage error naming the flag', async () => {
    const cert = await certFile();
    const ctx = testContext();
    await expect(createBody(ctx, ['--public-key', cert, '--scope', 'read:card', '--grant-type', 'client_credentials'])).rejects.toThrow(/--name/);
    await expect(createBody(ctx, ['--name', 'a', '--scope', 'read:card', '--grant-type', 'client_credentials'])).rejects.toThrow(/--public-key/);
    await expect(createBody(ctx, ['--name', 'a', '--public-key', cert, '--grant-type', 'client_credentials'])).rejects.toThrow(/--scope/);
    await expect(createBody(ctx, ['--name', 'a', '--public-key', cert, '--scope', 'read:card'])).rejects.toThrow(/--grant-type/);
    await expect(createBody(ctx, ['--name', 'a', '--public-key', cert, '--scope', 'read:card', '--grant-type', 'authorization_code'])).rejects.toThrow(/--redirect-uri/);
    await expect(createBody(ctx, ['--name', 'a', '--public-key', cert, '--scope', 'Read:Card', '--grant-type', 'client_credentials'])).rejects.toThrow(/--scope/);
  });

  it('refuses a private key or a file that is not a certificate', async () => {
    const dir = temp();
    await runKeygen(['--out', dir]);
    await expect(checkCertificate(readFileSync(join(dir, 'private-key.pem'), 'utf8'), 'x')).rejects.toThrow(/private key/);
    await expect(checkCertificate('hello', 'x')).rejects.toThrow(/not a PEM X.509 certificate/);
  });

  it('asks for what is missing on a terminal', async () => {
    const cert = await certFile();
    const ctx = testContext({ tty: true, answers: ['my app', cert, 'read:card, read:transaction', 'client_credentials'] });
    const body = await createBody(ctx, []);
    expect(body).toMatchObject({ name: 'my app', scopes: ['read:card', 'read:transaction'], grantType: 'client_credentials' });
  });

  it('asks the questions the flags declare, in their order, the redirect URI only for authorization_code', async () => {
    const cert = await certFile();
    const prompter = new ScriptedPrompter(['my app', cert, 'read:card', 'authorization_code', 'https://example.com/cb']);
    const body = await createBody(testContext({ tty: true, prompter }), []);
    expect(prompter.asked).toEqual(['Application name', 'Certificate file (PEM)', 'Scopes (comma-separated, e.g. read:card,read:transaction)', 'Grant type', 'Redirect URI(s), comma-separated']);
    expect(body).toMatchObject({ grantType: 'authorization_code', redirectUri: ['https://example.com/cb'] });
  });

  it('checks --from-file values with the same validators as the flags', async () => {
    const cert = await certFile();
    const file = join(temp(), 'app.json');
    const base = { name: 'app', publicKey: readFileSync(cert, 'utf8'), scopes: ['*'], grantType: 'client_credentials' };
    const refused = async (change: Record<string, unknown>) => {
      writeFileSync(file, JSON.stringify({ ...base, ...change }));
      return createBody(testContext(), ['--from-file', file]).then(() => undefined, (e: Error) => e.message);
    };
    expect(await refused({ name: 'x'.repeat(101) })).toMatch(/--name is longer than 100 characters/);
    expect(await refused({ scopes: ['Read:Card'] })).toMatch(/--scope/);
    expect(await refused({ grantType: 'password' })).toMatch(/invalid --grant-type "password": expected one of client_credentials/);
    expect(await refused({ websiteUrl: 'not a url' })).toMatch(/--website-url/);
    expect(await refused({ isOfficial: 'yes' })).toMatch(/"isOfficial" must be true or false/);
  });

  it('reads the body from --from-file, flags overriding it', async () => {
    const cert = await certFile();
    const dir = temp();
    const file = join(dir, 'app.json');
    writeFileSync(file, JSON.stringify({ name: 'from file', publicKey: readFileSync(cert, 'utf8'), scopes: ['*'], grantType: 'client_credentials' }));
    const body = await createBody(testContext(), ['--from-file', file, '--name', 'flag wins']);
    expect(body).toMatchObject({ name: 'flag wins', scopes: ['*'] });
    writeFileSync(file, JSON.stringify({ nme: 'typo' }));
    await expect(createBody(testContext(), ['--from-file', file])).rejects.toThrow(/unknown field "nme"/);
  });
});

describe('oauth update on top of the application as read', () => {
  const BASE = 'http://127.0.0.1:4011';
  const app = { id: 'a1', _id: 'a1', institutionId: 'cli_x', name: 'reconciler', description: 'nightly', scopes: ['read:card'], updatedAt: '2026-11-22T10:00:00.000Z' };

  async function run(answers: Array<'ok' | 'conflict' | 'lost'>, afterConflict: Record<string, unknown>) {
    const { MockAgent } = await import('undici');
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(BASE);
    const list = (data: unknown[]) => ({ statusCode: 200, message: 'ok', data, pagination: { page: 1, limit: 100, total: data.length, pages: 1 } });
    pool.intercept({ path: (p) => p.startsWith('/institutions/oauth/applications'), method: 'GET' }).reply(200, list([app]));
    const versions: unknown[] = [];
    for (const answer of answers) {
      const put = pool.intercept({ path: '/institutions/oauth/a1', method: 'PUT' });
      if (answer === 'lost') {
        put.replyWithError(new Error('socket hang up'));
        continue;
      }
      put.reply(answer === 'ok' ? 200 : 409, (request) => {
        versions.push((request.headers as Record<string, string>)['if-match']);
        return answer === 'ok'
          ? { statusCode: 200, message: 'ok', data: { ...app, description: 'hourly' } }
          : { statusCode: 409, message: 'changed', error: 'CONFLICT', details: { version: 'later' } };
      });
    }
    pool.intercept({ path: (p) => p.startsWith('/institutions/oauth/applications'), method: 'GET' }).reply(200, list([{ ...app, ...afterConflict }]));
    const ctx = testContext({ dispatcher: agent, env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't' } });
    const update = (await import('../../src/commands/oauth/update.js')).default;
    const outcome = await runCommand(update, ctx, ['a1', '--description', 'hourly', '--website-url', 'https://example.com']).then(() => undefined, (error) => error);
    return { outcome, versions };
  }

  it('sends If-Match with the updatedAt read; a change made meanwhile is a CONFLICT (exit 5); its own lost answer is not', async () => {
    const plain = await run(['ok'], {});
    expect(plain.outcome).toBeUndefined();
    expect(plain.versions).toEqual([`"${app.updatedAt}"`]);
    const raced = await run(['conflict'], { scopes: ['read:transaction'], updatedAt: '2026-11-22T10:00:01.000Z' });
    expect(raced.outcome).toMatchObject({ exitCode: 5, code: 'CONFLICT', status: 409 });
    expect(raced.outcome.message).toMatch(/changed by someone else after it was read/);
    expect(raced.outcome.hint).toMatch(/run the same command again/);
    const lost = await run(['lost', 'conflict'], { description: 'hourly', updatedAt: '2026-11-22T10:00:01.000Z' });
    expect(lost.outcome).toBeUndefined();
  });
});
