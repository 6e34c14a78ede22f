import { defineCommand } from '../contract/command.js';
import { defineFlags, longFlag, type FlagValues } from '../core/flags.js';
import { GLOBAL_FLAGS, type CheckedGlobals, type TerminalFacts } from '../core/global-flags.js';
import type { Context, GlobalOptions } from '../contract/context.js';
import { UsageError } from '../core/errors.js';
import { normaliseBaseUrl } from '../core/validate.js';
import { checkCredential, credentialProblem } from '../core/credentials.js';

/** login's own flags, and the global ones it reads (--base-url, --insecure). */
export type LoginFlags = FlagValues<typeof FLAGS> & Pick<GlobalOptions, 'baseUrl' | 'insecure'>;

/** One URL path segment: the simulate endpoint is /institutions/{switch}/simulate. */
const switchSegment = (label: string, value: string): string => {
  if (!/^[A-Za-z0-9._~-]+$/.test(value)) throw new UsageError(`invalid ${label} "${value}": expected one URL path segment (letters, digits, . _ ~ -)`);
  return value;
};

const FLAGS = defineFlags({
  tokenStdin: { type: 'boolean', secret: true, description: 'read the bearer token from stdin', prompt: 'Access token (input hidden)' },
  apiKeyStdin: { type: 'boolean', secret: true, description: 'read the API key (for `import`) from stdin', prompt: 'API key for `cardctl import` (optional, Enter to skip)' },
  pinKey: { type: 'string', value: 'file', complete: 'file', description: 'PIN public key (PEM) used to encrypt PIN blocks', prompt: 'PIN public key file, PEM (optional, Enter to skip)' },
  switch: { type: 'string', value: 'name', description: 'path segment of the simulate endpoint (default "switch")', parse: switchSegment },
  env: { type: 'string', value: 'environment', choices: ['sandbox', 'production'], description: 'sandbox or production' },
  clientId: { type: 'string', value: 'id', description: 'OAuth client id, for client-credentials login' },
  privateKey: { type: 'string', value: 'file', complete: 'file', description: 'private key of the OAuth application (its path is stored, not the key)' },
  tokenUrl: { type: 'string', value: 'url', description: 'token endpoint (default: <base-url>/oauth/token)' },
  use: { type: 'negated', description: 'do not make this profile the current one' },
});

/** What login prints with -o json: the profile stored (secrets as whether they are there). */
const LOGIN_KEYS = ['profile', 'baseUrl', 'current', 'env', 'token', 'apiKey', 'pinKeyFingerprint'] as const;

export default defineCommand({
  name: 'login',
  mcp: 'never',
  // It stores a profile, then prints it: --fields is checked before (LOGIN_KEYS).
  output: async () => (await import('../output/shape.js')).outputShape({ keys: LOGIN_KEYS }),
  summary: 'store credentials for a deployment as a profile',
  description: `Store a base URL and credentials as a profile.

Interactive on a terminal (asks for the base URL and the token, hidden). In scripts, give
--base-url and pipe secrets through stdin: --token-stdin, --api-key-stdin (one per run, or
both: token on the first line, API key on the second). Secrets are never taken from argv.
With --client-id and --private-key, logs in with OAuth client credentials and renews the
token by itself. The profile is the one named by --profile (or CARDCTL_PROFILE), else the
current one, else "default"; it becomes the current profile unless --no-use.`,
  flags: FLAGS,
  examples: [
    'cardctl login',
    'printf %s "$TOKEN" | cardctl login --base-url https://api.example.com --token-stdin --pin-key pin.pem',
    'printf "%s\\n%s\\n" "$TOKEN" "$API_KEY" | cardctl login -p prod --base-url https://api.example.com --token-stdin --api-key-stdin --env production',
    'cardctl login -p ci --base-url https://api.example.com --client-id APP_ID --private-key ./keys/private-key.pem',
  ],
  parse: ({ opts, globals, terminal }) => parseLoginFlags(opts, globals, terminal),
  async run(ctx, input) {
    const options = await parseLogin(ctx, input);
    await runLogin(ctx, options);
  },
});

export interface LoginOptions {
  profileName: string;
  baseUrl: string;
  token?: string;
  apiKey?: string;
  pinKey?: { pem: string; fingerprint: string };
  switch?: string;
  env?: 'sandbox' | 'production';
  clientCredentials?: { clientId: string; privateKeyPath: string; tokenUrl?: string };
  makeCurrent: boolean;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A profile's name: letters, digits, ".", "_" and "-" (at most 64). */
function checkProfileName(profileName: string): void {
  if (!PROFILE_NAME.test(profileName)) {
    throw new UsageError(`invalid profile name "${profileName}": use letters, digits, ".", "_" and "-" (at most 64)`);
  }
}

/** `login`'s flags checked, and the files they name read: what needs neither stdin, a prompt nor the config. */
export interface LoginInput {
  opts: LoginFlags;
  /** --base-url, checked and normalised. */
  baseUrl?: string;
  switchName?: string;
  clientCredentials?: { clientId: string; privateKeyPath: string; tokenUrl?: string };
  /** --pin-key FILE, read and checked. */
  pinKey?: { pem: string; fingerprint: string };
}

export async function parseLoginFlags(opts: LoginFlags, globals: CheckedGlobals, terminal: TerminalFacts): Promise<LoginInput> {
  const [{ parseBaseUrl }, { readPinKeyFile }] = await Promise.all([import('../api/client.js'), import('../config/pin-key.js')]);
  // The profile -p or CARDCTL_PROFILE names; the config's current one is checked by run().
  if (globals.profile !== undefined) checkProfileName(globals.profile.name);
  const insecure = Boolean(opts.insecure);
  const switchName = opts.switch === undefined ? undefined : FLAGS.switch.parse(longFlag('switch', FLAGS.switch), opts.switch);
  const usesClientCredentials = opts.clientId !== undefined || opts.privateKey !== undefined;
  if (usesClientCredentials) {
    if (!opts.clientId) throw new UsageError('--private-key needs --client-id');
    if (!opts.privateKey) throw new UsageError('--client-id needs --private-key (the file of the application\'s private key)');
    if (opts.tokenStdin) throw new UsageError('--token-stdin cannot be combined with --client-id: client credentials obtain the token');
  } else if (opts.tokenUrl !== undefined) {
    throw new UsageError('--token-url is only for client-credentials login (--client-id and --private-key)');
  }
  if (opts.tokenUrl !== undefined) parseBaseUrl(opts.tokenUrl, insecure);
  const baseUrl = opts.baseUrl === undefined ? undefined : normaliseBaseUrl(parseBaseUrl(opts.baseUrl.trim(), insecure));
  const pinKey = opts.pinKey === undefined ? undefined : await readPinKeyFile(opts.pinKey);
  // Without a token from stdin or client credentials, run() asks for it: that needs a terminal.
  if (!usesClientCredentials && !opts.tokenStdin && !opts.apiKeyStdin && !terminal.canPrompt) {
    throw new UsageError('missing --token-stdin: no token to store', {
      hint: 'pipe the token: printf %s "$TOKEN" | cardctl login --base-url URL --token-stdin (or use --client-id/--private-key)',
    });
  }
  return {
    opts,
    baseUrl,
    switchName,
    clientCredentials: usesClientCredentials ? { clientId: opts.clientId!, privateKeyPath: opts.privateKey!, tokenUrl: opts.tokenUrl } : undefined,
    pinKey: pinKey && { pem: pinKey.pem, fingerprint: pinKey.fingerprint },
  };
}

/** The checked flags, stdin and (on a terminal) prompts → what to store. Throws UsageError before any write. */
export async function parseLogin(ctx: Context, input: LoginInput): Promise<LoginOptions> {
  const [{ parseBaseUrl }, { readPinKeyFile }, { readAll }] = await Promise.all([
    import('../api/client.js'),
    import('../config/pin-key.js'),
    import('../core/io.js'),
  ]);
  const { opts, switchName, clientCredentials } = input;
  const { profileName, profileExplicit } = ctx.settings();
  if (!profileExplicit) checkProfileName(profileName);
  const existing = ctx.config.getProfile(profileName) ?? {};
  const insecure = Boolean(opts.insecure);
  const usesClientCredentials = clientCredentials !== undefined;

  // Secrets from stdin: one value, or token on line 1 and API key on line 2.
  let token: string | undefined;
  let apiKey: string | undefined;
  if (opts.tokenStdin || opts.apiKeyStdin) {
    if (ctx.io.stdinIsTTY) ctx.log.info('reading from stdin (paste, then press Enter and Ctrl-D)…');
    const text = await readAll(ctx.io.stdin, ctx.signal);
    if (opts.tokenStdin && opts.apiKeyStdin) {
      const lines = text.split(/\r?\n/).map((line) => line.trim());
      token = secretValue(lines[0], '--token-stdin', 'the first line of stdin (the token)');
      apiKey = secretValue(lines[1], '--api-key-stdin', 'the second line of stdin (the API key)');
    } else if (opts.tokenStdin) {
      token = secretValue(text.trim(), '--token-stdin', 'stdin');
    } else {
      apiKey = secretValue(text.trim(), '--api-key-stdin', 'stdin');
    }
  }

  const canPrompt = ctx.io.canPrompt && !opts.tokenStdin && !opts.apiKeyStdin;
  let baseUrl = input.baseUrl ?? ctx.env.CARDCTL_BASE_URL;
  let interactive = false;
  if (!baseUrl) {
    if (!canPrompt) {
      if (existing.baseUrl) baseUrl = existing.baseUrl;
      else throw new UsageError('missing --base-url', { hint: 'give the API base URL, e.g. --base-url https://api.example.com' });
    } else {
      interactive = true;
      baseUrl = await ctx.prompter.input(GLOBAL_FLAGS.baseUrl.prompt, {
        default: existing.baseUrl,
        validate: (value) => {
          try {
            parseBaseUrl(value.trim(), insecure);
            return true;
          } catch (error) {
            return (error as Error).message;
          }
        },
      });
    }
  }
  baseUrl = normaliseBaseUrl(parseBaseUrl(baseUrl.trim(), insecure));

  // Without a token from stdin there is a terminal to ask on (parseLoginFlags).
  if (!usesClientCredentials && token === undefined && apiKey === undefined) {
    interactive = true;
    token = (await ctx.prompter.password(FLAGS.tokenStdin.prompt, {
      validate: (value) => (isSecretText(value.trim()) ? true : 'paste the bearer token (no spaces)'),
    })).trim();
    const key = (await ctx.prompter.password(FLAGS.apiKeyStdin.prompt, {
      validate: (value) => (value.trim() === '' || isSecretText(value.trim()) ? true : 'paste the API key (no spaces), or leave empty'),
    })).trim();
    if (key) apiKey = key;
  }

  // --pin-key FILE was read by the parse step; on a terminal without it, the file is asked for.
  let pinKey = input.pinKey;
  if (pinKey === undefined && interactive && !existing.pinKey) {
    for (let tries = 0; tries < 3 && !pinKey; tries++) {
      const path = (await ctx.prompter.input(FLAGS.pinKey.prompt, { default: '' })).trim();
      if (!path) break;
      try {
        pinKey = await readPinKeyFile(path, 'PIN key');
      } catch (error) {
        ctx.log.warn((error as Error).message);
      }
    }
  }

  return {
    profileName,
    baseUrl,
    token,
    apiKey,
    pinKey: pinKey ? { pem: pinKey.pem, fingerprint: pinKey.fingerprint } : undefined,
    switch: switchName,
    env: opts.env,
    clientCredentials,
    makeCurrent: opts.use !== false,
  };
}

export async function runLogin(ctx: Context, options: LoginOptions): Promise<void> {
  const { profileName } = options;
  if (options.clientCredentials) {
    const { resolve } = await import('node:path');
    const { loginWithClientCredentials } = await import('../api/client-credentials.js');
    await loginWithClientCredentials(ctx, {
      profileName,
      baseUrl: options.baseUrl,
      clientId: options.clientCredentials.clientId,
      privateKeyPath: resolve(options.clientCredentials.privateKeyPath),
      tokenUrl: options.clientCredentials.tokenUrl,
    });
  }
  await ctx.config.update((config) => {
    const profile = { ...(config.profiles[profileName] ?? {}) };
    profile.baseUrl = options.baseUrl;
    if (options.token !== undefined) {
      // A static token replaces any client-credentials set-up of this profile.
      profile.token = options.token;
      delete profile.clientId;
      delete profile.privateKeyPath;
      delete profile.tokenUrl;
      delete profile.tokenExpiresAt;
    }
    if (options.apiKey !== undefined) profile.apiKey = options.apiKey;
    if (options.pinKey) {
      profile.pinKey = options.pinKey.pem;
      profile.pinKeyFingerprint = options.pinKey.fingerprint;
    }
    if (options.switch !== undefined) profile.switch = options.switch;
    if (options.env !== undefined) profile.env = options.env;
    config.profiles[profileName] = profile;
    if (options.makeCurrent) config.currentProfile = profileName;
  });

  const out = ctx.output();
  const current = ctx.config.read().currentProfile === profileName;
  if (out.format !== 'table') {
    const stored = ctx.config.getProfile(profileName) ?? {};
    await out.record({
      profile: profileName,
      baseUrl: stored.baseUrl,
      current,
      env: stored.env ?? null,
      token: Boolean(stored.token),
      apiKey: Boolean(stored.apiKey),
      pinKeyFingerprint: stored.pinKeyFingerprint ?? null,
    } satisfies Record<(typeof LOGIN_KEYS)[number], unknown>, { idPath: 'profile' });
  }
  const what = [options.token !== undefined || options.clientCredentials ? 'token' : undefined, options.apiKey !== undefined ? 'API key' : undefined, options.pinKey ? 'PIN key' : undefined]
    .filter(Boolean)
    .join(', ');
  out.success(`Logged in to ${options.baseUrl} as profile "${profileName}"${what ? ` (stored: ${what})` : ''}${current ? '' : '; not made current (--no-use)'}`);
  if (!options.makeCurrent && !current) ctx.log.info(`use it with: cardctl -p ${profileName} …  or  cardctl profile use ${profileName}`);
  else ctx.log.info('check it with: cardctl auth status');
}

function isSecretText(value: string): boolean {
  return credentialProblem(value) === undefined;
}

function secretValue(value: string | undefined, flag: string, where: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag}: ${where} is empty`);
  // The same check as every credential sent (core/credentials.ts): exit 3, the value never shown.
  return checkCredential(value, `${flag}: ${where}`, 'give the credential exactly as issued, printable ASCII without spaces; with both --token-stdin and --api-key-stdin, the token on line 1 and the API key on line 2');
}

