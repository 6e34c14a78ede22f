import type { CreateOAuthBody, OAuthApplication } from '../../api/schemas.js';
import { defineCommand } from '../../core/command.js';
import { defineFlags, type FlagValues } from '../../core/flags.js';
import type { Context } from '../../core/context.js';
import { UsageError } from '../../core/errors.js';
import { validateScope, validateUri, validateUrl } from '../../core/validate.js';
import { bodyBoolean, bodyString, bodyStrings, readBodyFile } from './body-file.js';

import { GRANT_TYPES } from '../../api/enums.js';

export { GRANT_TYPES };
type GrantType = (typeof GRANT_TYPES)[number];

type CreateOptions = FlagValues<typeof FLAGS>;

const BODY_KEYS = new Set(['name', 'publicKey', 'scopes', 'grantType', 'description', 'redirectUri', 'websiteUrl', 'iconUrl', 'isOfficial']);

/** Checks that PEM text is an X.509 certificate with an RSA key; returns its subject. */
export async function checkCertificate(pem: string, where: string): Promise<{ subject: string; fingerprint: string }> {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    throw new UsageError(`${where} holds a private key: give the certificate (certificate.pem), never the private key`);
  }
  const { X509Certificate } = await import('node:crypto');
  let cert: import('node:crypto').X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch (error) {
    throw new UsageError(`${where} is not a PEM X.509 certificate: ${(error as Error).message}`, {
      hint: 'create one with `cardctl oauth keygen` and pass its certificate.pem',
    });
  }
  if (cert.publicKey.asymmetricKeyType !== 'rsa') {
    throw new UsageError(`${where}: the certificate's key is ${cert.publicKey.asymmetricKeyType}, but client assertions are signed RS256 (RSA)`);
  }
  return { subject: cert.subject.replace(/\n/g, ', '), fingerprint: cert.fingerprint256 };
}

/** Turns flags, the --from-file body and (on a terminal) answers into the request body. */
export async function parseCreateOptions(ctx: Context, opts: CreateOptions): Promise<CreateOAuthBody> {
  const file = await readBodyFile(ctx, opts.fromFile);
  for (const key of Object.keys(file)) if (!BODY_KEYS.has(key)) throw new UsageError(`--from-file: unknown field "${key}"`);
  const prompt = ctx.io.canPrompt;

  let name = opts.name ?? bodyString(file, 'name');
  if (name === undefined && prompt) name = await ctx.prompter.input('Application name', { validate: (v) => (v.trim() ? true : 'required') });
  if (name === undefined || !name.trim()) throw new UsageError('missing --name: the application name');
  name = name.trim();
  if (name.length > 100) throw new UsageError('--name is longer than 100 characters');

  let publicKey: string | undefined;
  let keyPath = opts.publicKey;
  if (keyPath === undefined && bodyString(file, 'publicKey') === undefined && prompt) {
    keyPath = await ctx.prompter.input('Certificate file (PEM)', { default: 'certificate.pem' });
  }
  if (keyPath !== undefined) {
    const { readTextFile } = await import('../../core/text.js');
    try {
      publicKey = await readTextFile(keyPath);
    } catch (error) {
      throw new UsageError(`cannot read --public-key ${keyPath}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    await checkCertificate(publicKey, `--public-key ${keyPath}`);
  } else {
    publicKey = bodyString(file, 'publicKey');
    if (publicKey === undefined) {
      throw new UsageError('missing --public-key: the application\'s PEM certificate', { hint: 'create one with `cardctl oauth keygen`' });
    }
    await checkCertificate(publicKey, '--from-file publicKey');
  }

  let scopes = opts.scope ?? bodyStrings(file, 'scopes');
  if (scopes === undefined && prompt) {
    const answer = await ctx.prompter.input('Scopes (comma-separated, e.g. read:card,read:transaction)', { validate: (v) => (v.trim() ? true : 'at least one scope') });
    scopes = answer.split(/[,\s]+/).filter(Boolean);
  }
  if (scopes === undefined || scopes.length === 0) throw new UsageError('missing --scope: give at least one, e.g. --scope read:card (repeatable)');
  scopes = [...new Set(scopes.flatMap((s) => s.split(',')).filter((s) => s.trim() !== '').map((s) => validateScope('--scope', s)))];

  let grantType = opts.grantType ?? bodyString(file, 'grantType');
  if (grantType === undefined && prompt) {
    grantType = await ctx.prompter.select<string>('Grant type', GRANT_TYPES.map((g) => ({ name: g, value: g })), { default: 'client_credentials' });
  }
  if (grantType === undefined) throw new UsageError(`missing --grant-type: one of ${GRANT_TYPES.join(', ')}`);
  if (!(GRANT_TYPES as readonly string[]).includes(grantType)) {
    throw new UsageError(`invalid --grant-type "${grantType}": expected one of ${GRANT_TYPES.join(', ')}`);
  }

  let redirectUri = opts.redirectUri ?? bodyStrings(file, 'redirectUri');
  if ((redirectUri === undefined || redirectUri.length === 0) && grantType === 'authorization_code') {
    if (prompt) {
      const answer = await ctx.prompter.input('Redirect URI(s), comma-separated', { validate: (v) => (v.trim() ? true : 'required for authorization_code') });
      redirectUri = answer.split(/[,\s]+/).filter(Boolean);
    } else {
      throw new UsageError('missing --redirect-uri: required when --grant-type is authorization_code (repeatable)');
    }
  }
  redirectUri = redirectUri?.map((u) => validateUri('--redirect-uri', u));

  const websiteUrl = opts.websiteUrl ?? bodyString(file, 'websiteUrl');
  const iconUrl = opts.iconUrl ?? bodyString(file, 'iconUrl');
  const description = opts.description ?? bodyString(file, 'description');
  const isOfficial = opts.official ?? bodyBoolean(file, 'isOfficial');

  const body: CreateOAuthBody = { name, publicKey, scopes, grantType: grantType as GrantType };
  if (description !== undefined) body.description = description;
  if (redirectUri !== undefined && redirectUri.length) body.redirectUri = redirectUri;
  if (websiteUrl !== undefined) body.websiteUrl = validateUrl('--website-url', websiteUrl);
  if (iconUrl !== undefined) body.iconUrl = validateUrl('--icon-url', iconUrl);
  if (isOfficial !== undefined) body.isOfficial = isOfficial;
  return body;
}

const FLAGS = defineFlags({
  name: { type: 'string', value: 'name', description: 'application name' },
  publicKey: { type: 'string', value: 'file', complete: 'file', description: 'PEM certificate of the application (see `cardctl oauth keygen`)' },
  scope: { type: 'list', value: 'scope', repeat: 'variadic', description: 'permission in verb:object form (repeatable), or *, READ, WRITE' },
  grantType: { type: 'string', value: 'type', choices: GRANT_TYPES, description: 'OAuth grant type' },
  description: { type: 'string', value: 'text', description: 'description' },
  redirectUri: { type: 'list', value: 'uri', repeat: 'variadic', description: 'redirect URI (repeatable; required for authorization_code)' },
  websiteUrl: { type: 'string', value: 'url', description: 'website URL' },
  iconUrl: { type: 'string', value: 'url', description: 'icon URL' },
  official: { type: 'boolean', description: 'an official application of the institution' },
  fromFile: { type: 'string', value: 'file', complete: 'file', description: 'JSON body (or - for stdin); flags override its fields' },
});

export default defineCommand({
  name: 'create',
  summary: 'register an OAuth application',
  description: `Register an OAuth application of the institution.

The certificate (--public-key, e.g. from \`cardctl oauth keygen\`) is checked to be an X.509 \
certificate with an RSA key before anything is sent. Scopes are verb:object in lowercase \
(read:card, create:oauth_application, …) or *, READ, WRITE. --redirect-uri is required for the \
authorization_code grant. Missing values are asked for on a terminal; in scripts they are errors \
naming the flag. --from-file takes the JSON body (publicKey as PEM text); flags override it.

The reference's answer carries only a message; the new application (with its client id) is shown \
from the answer when it is there, else looked up by name. Log in with it: cardctl login \
--client-id CLIENT_ID --private-key private-key.pem`,
  flags: FLAGS,
  examples: [
    'cardctl oauth keygen --out keys --subject reconciler',
    'cardctl oauth create --name reconciler --public-key keys/certificate.pem --scope read:card --scope read:transaction --grant-type client_credentials',
    'cardctl oauth create --name portal --public-key cert.pem --scope "*" --grant-type authorization_code --redirect-uri https://portal.example.com/callback',
  ],
  async run(ctx, { opts }) {
    const body = await parseCreateOptions(ctx, opts);
    const { createOAuthApplication, findOAuthApplicationByName } = await import('../../api/oauth.js');
    const { oauthRows } = await import('../../output/columns/oauth.js');
    const client = await ctx.client();
    const response = await createOAuthApplication(client, body);
    const out = ctx.output();
    if (out.format === 'raw') {
      await out.value(response.data, response.raw);
      return;
    }
    out.success(response.message || `created OAuth application "${body.name}"`);
    // The reference's answer carries only a message; when the data is there (the sandbox sends
    // it), use it, else find the new application by its name.
    const data = response.data as Partial<OAuthApplication> | undefined;
    const app = data && typeof data === 'object' && typeof data.institutionId === 'string'
      ? data
      : await findOAuthApplicationByName(client, body.name).catch(() => undefined);
    if (app) {
      await out.record(app, { rows: oauthRows, idPath: 'institutionId' });
      if (out.format === 'table' && ctx.io.stderrIsTTY && body.grantType === 'client_credentials') {
        ctx.log.info(`log in with it: cardctl login --client-id ${app.institutionId} --private-key <private-key.pem>`);
      }
    } else {
      await out.record({ name: body.name, message: response.message ?? 'created' }, { idPath: 'name' });
    }
  },
});
