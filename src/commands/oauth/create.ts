import type { CreateOAuthBody, OAuthApplication } from '../../api/schemas.js';
import { defineCommand } from '../../contract/command.js';
import { bodyPaths, defineFlags, longFlag, type FlagValues } from '../../core/flags.js';
import type { Context } from '../../contract/context.js';
import { UsageError } from '../../core/errors.js';
import { validateScope, validateUri, validateUrl } from '../../core/validate.js';
import { bodyBoolean, bodyFromFile, bodyString, bodyStrings, checkBodyKeys, readBodyFile } from './body-file.js';

import { GRANT_TYPES } from '../../core/enums.js';

export { GRANT_TYPES };
type GrantType = (typeof GRANT_TYPES)[number];

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

/** An application's name: trimmed, at most 100 characters. */
const applicationName = (label: string, value: string): string => {
  const name = value.trim();
  if (name.length > 100) throw new UsageError(`${label} is longer than 100 characters`);
  return name;
};

/** Every flag of `oauth create`, in help order, which is also the order of the questions. */
const FLAGS = defineFlags({
  name: { type: 'string', value: 'name', description: 'application name', path: 'name', parse: applicationName, required: true, prompt: 'Application name' },
  publicKey: { type: 'string', value: 'file', complete: 'file', description: 'PEM certificate of the application (see `cardctl oauth keygen`)', path: 'publicKey', required: true, prompt: 'Certificate file (PEM)' },
  scope: { type: 'list', value: 'scope', repeat: 'variadic', description: 'permission in verb:object form (repeatable), or *, READ, WRITE', path: 'scopes', parse: validateScope, required: true, prompt: 'Scopes (comma-separated, e.g. read:card,read:transaction)' },
  grantType: { type: 'string', value: 'type', choices: GRANT_TYPES, description: 'OAuth grant type', path: 'grantType', required: true, prompt: 'Grant type' },
  description: { type: 'string', value: 'text', description: 'description', path: 'description' },
  redirectUri: { type: 'list', value: 'uri', repeat: 'variadic', description: 'redirect URI (repeatable; required for authorization_code)', path: 'redirectUri', parse: validateUri, prompt: 'Redirect URI(s), comma-separated' },
  websiteUrl: { type: 'string', value: 'url', description: 'website URL', path: 'websiteUrl', parse: validateUrl },
  iconUrl: { type: 'string', value: 'url', description: 'icon URL', path: 'iconUrl', parse: validateUrl },
  official: { type: 'boolean', description: 'an official application of the institution', path: 'isOfficial' },
  fromFile: { type: 'string', value: 'file', complete: 'file', description: 'JSON body (or - for stdin); flags override its fields' },
});

type CreateOptions = FlagValues<typeof FLAGS>;
const BODY_KEYS = new Set(bodyPaths(FLAGS));
const flag = (key: keyof typeof FLAGS): string => longFlag(key, FLAGS[key]);
const required = (value: string): true | string => (value.trim() ? true : 'required');
const words = (answer: string): string[] => answer.split(/[,\s]+/).filter(Boolean);

/** Each field as given (flag, or --from-file), checked by its flag's validator: the parse step's checks and run()'s. */
const given = {
  name: (value: string) => FLAGS.name.parse(flag('name'), value),
  scopes: (values: string[]) => [...new Set(values.flatMap((s) => s.split(',')).filter((s) => s.trim() !== '').map((s) => FLAGS.scope.parse(flag('scope'), s)))],
  grantType: (value: string): GrantType => {
    if (!isGrantType(value)) throw new UsageError(`invalid ${flag('grantType')} "${value}": expected one of ${FLAGS.grantType.choices.join(', ')}`);
    return value;
  },
  redirectUri: (values: string[]) => values.map((u) => FLAGS.redirectUri.parse(flag('redirectUri'), u)),
  url: (key: 'websiteUrl' | 'iconUrl', value: string) => FLAGS[key].parse(flag(key), value),
};

/** What `oauth create`'s parse step reads and checks: the --from-file body (unless stdin) and the certificate file. */
export interface CreateInput {
  opts: CreateOptions;
  /** The --from-file body, read here unless it is stdin (-). */
  file?: Record<string, unknown>;
  /** The PEM text of --public-key FILE, read and checked. */
  certificate?: string;
}

/** Flags and the files they name, checked; what is missing is asked for (or refused) by run(). */
export async function parseCreate({ opts }: { opts: CreateOptions }): Promise<CreateInput> {
  const file = opts.fromFile === undefined || opts.fromFile === '-' ? undefined : await bodyFromFile(opts.fromFile, BODY_KEYS);
  const body = file ?? {};
  const name = opts.name ?? bodyString(body, FLAGS.name.path);
  if (name !== undefined && name.trim()) given.name(name);
  const certificate = opts.publicKey === undefined ? undefined : await readCertificate(opts.publicKey);
  const pem = opts.publicKey === undefined ? bodyString(body, FLAGS.publicKey.path) : undefined;
  if (pem !== undefined) await checkCertificate(pem, `--from-file ${FLAGS.publicKey.path}`);
  const scopes = opts.scope ?? bodyStrings(body, FLAGS.scope.path);
  if (scopes !== undefined) given.scopes(scopes);
  const grantType = opts.grantType ?? bodyString(body, FLAGS.grantType.path);
  if (grantType !== undefined) given.grantType(grantType);
  const redirectUri = opts.redirectUri ?? bodyStrings(body, FLAGS.redirectUri.path);
  if (redirectUri !== undefined) given.redirectUri(redirectUri);
  bodyString(body, FLAGS.description.path);
  for (const key of ['websiteUrl', 'iconUrl'] as const) {
    const value = opts[key] ?? bodyString(body, FLAGS[key].path);
    if (value !== undefined) given.url(key, value);
  }
  bodyBoolean(body, FLAGS.official.path);
  return { opts, file, certificate };
}

async function readCertificate(keyPath: string): Promise<string> {
  const { readTextFile } = await import('../../core/text.js');
  let pem: string;
  try {
    pem = await readTextFile(keyPath);
  } catch (error) {
    throw new UsageError(`cannot read ${flag('publicKey')} ${keyPath}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  await checkCertificate(pem, `${flag('publicKey')} ${keyPath}`);
  return pem;
}

/**
 * Turns flags, the --from-file body and (on a terminal) answers into the request body: each
 * field where its flag declares it, checked by the flag's validator, asked with its question.
 * `read`: what the parse step read already (the body file, the certificate).
 */
export async function parseCreateOptions(ctx: Pick<Context, 'io' | 'prompter'>, opts: CreateOptions, read: Omit<CreateInput, 'opts'> = {}): Promise<CreateOAuthBody> {
  const file = read.file ?? await readBodyFile(ctx, opts.fromFile);
  checkBodyKeys(file, BODY_KEYS);
  const prompt = ctx.io.canPrompt;
  const { name: nameFlag, publicKey: keyFlag, scope: scopeFlag, grantType: grantFlag, redirectUri: redirectFlag } = FLAGS;

  let name = opts.name ?? bodyString(file, nameFlag.path);
  if (name === undefined && prompt) name = await ctx.prompter.input(nameFlag.prompt, { validate: required });
  if (name === undefined || !name.trim()) throw new UsageError(`missing ${flag('name')}: the application name`);
  name = given.name(name);

  // The flag names the certificate's file; the body (and so --from-file) holds its PEM text.
  let publicKey: string | undefined;
  let keyPath = opts.publicKey;
  if (keyPath === undefined && bodyString(file, keyFlag.path) === undefined && prompt) {
    keyPath = await ctx.prompter.input(keyFlag.prompt, { default: 'certificate.pem' });
  }
  if (keyPath !== undefined) {
    publicKey = keyPath === opts.publicKey && read.certificate !== undefined ? read.certificate : await readCertificate(keyPath);
  } else {
    publicKey = bodyString(file, keyFlag.path);
    if (publicKey === undefined) {
      throw new UsageError(`missing ${flag('publicKey')}: the application's PEM certificate`, { hint: 'create one with `cardctl oauth keygen`' });
    }
    await checkCertificate(publicKey, `--from-file ${keyFlag.path}`);
  }

  let scopes = opts.scope ?? bodyStrings(file, scopeFlag.path);
  if (scopes === undefined && prompt) scopes = words(await ctx.prompter.input(scopeFlag.prompt, { validate: (v) => (v.trim() ? true : 'at least one scope') }));
  if (scopes === undefined || scopes.length === 0) throw new UsageError(`missing ${flag('scope')}: give at least one, e.g. ${flag('scope')} read:card (repeatable)`);
  scopes = given.scopes(scopes);

  let grantText = opts.grantType ?? bodyString(file, grantFlag.path);
  if (grantText === undefined && prompt) {
    grantText = await ctx.prompter.select<string>(grantFlag.prompt, grantFlag.choices.map((g) => ({ name: g, value: g })), { default: grantFlag.choices[0] });
  }
  if (grantText === undefined) throw new UsageError(`missing ${flag('grantType')}: one of ${grantFlag.choices.join(', ')}`);
  const grantType = given.grantType(grantText);

  let redirectUri = opts.redirectUri ?? bodyStrings(file, redirectFlag.path);
  if ((redirectUri === undefined || redirectUri.length === 0) && grantType === 'authorization_code') {
    if (!prompt) throw new UsageError(`missing ${flag('redirectUri')}: required when ${flag('grantType')} is authorization_code (repeatable)`);
    redirectUri = words(await ctx.prompter.input(redirectFlag.prompt, { validate: (v) => (v.trim() ? true : 'required for authorization_code') }));
  }
  redirectUri = redirectUri && given.redirectUri(redirectUri);

  const body: CreateOAuthBody = { name, publicKey, scopes, grantType };
  const description = opts.description ?? bodyString(file, FLAGS.description.path);
  if (description !== undefined) body.description = description;
  if (redirectUri !== undefined && redirectUri.length) body.redirectUri = redirectUri;
  for (const key of ['websiteUrl', 'iconUrl'] as const) {
    const value = opts[key] ?? bodyString(file, FLAGS[key].path);
    if (value !== undefined) body[key] = given.url(key, value);
  }
  const isOfficial = opts.official ?? bodyBoolean(file, FLAGS.official.path);
  if (isOfficial !== undefined) body.isOfficial = isOfficial;
  return body;
}

function isGrantType(value: string): value is GrantType {
  return (GRANT_TYPES as readonly string[]).includes(value);
}

export default defineCommand({
  name: 'create',
  mcp: 'write',
  // The application, or the service's message when it answers without one.
  output: async () => (await import('../output-shapes.js')).oauthShape({ keys: ['name', 'message'] }),
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
  parse: parseCreate,
  async run(ctx, { opts, ...read }) {
    const body = await parseCreateOptions(ctx, opts, read);
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
