import { defineCommand } from '../../contract/command.js';
import type { Context } from '../../contract/context.js';
import { AuthError, CliError, ExitCode } from '../../core/errors.js';
import { maskSecret, redactUserinfo } from '../../core/redact.js';
import type { Column } from '../../output/renderer.js';

export interface AuthStatus {
  profile: string;
  current: boolean;
  baseUrl: string | null;
  env: string | null;
  token: string | null;
  tokenSource: string | null;
  apiKey: string | null;
  apiKeySource: string | null;
  pinKeyFingerprint: string | null;
  /** valid | valid (lacks <scope>) | invalid | forbidden | unreachable | error | not logged in | no base URL */
  tokenStatus: string;
  /** Milliseconds of the check request, when one was made. */
  latencyMs: number | null;
}

export default defineCommand({
  name: 'status',
  mcp: 'read',
  summary: 'show the profile in use and whether its credentials work',
  description: 'Show which profile is used, its base URL, masked token and API key, the PIN key fingerprint,\nand whether the token works (one cheap authenticated request: GET /institutions/cards?limit=1).\nExits 3 when the token is missing or rejected, 6 when the API cannot be reached.',
  examples: ['cardctl auth status', 'cardctl auth status -o json', 'cardctl -p staging auth status'],
  async run(ctx) {
    const { status, failure } = await checkAuth(ctx);
    // The token and API key are shown masked (maskSecret), which the person asked for; an assistant gets neither.
    await ctx.output().record(status, { rows: statusRows(), idPath: 'profile', carriesSecret: true });
    if (failure) throw failure;
  },
});

/** Builds the status and, when the credentials do not work, the error to exit with. */
export async function checkAuth(ctx: Context): Promise<{ status: AuthStatus; failure?: CliError }> {
  const s = ctx.settings();
  const profile = s.profile;
  const tokenSource = ctx.env.CARDCTL_TOKEN ? 'env CARDCTL_TOKEN' : profile.clientId ? 'client credentials' : profile.token ? 'profile' : null;
  const status: AuthStatus = {
    profile: s.profileName,
    current: ctx.config.currentProfileName() === s.profileName,
    // A password in the URL's user info is a secret like the token: never shown.
    baseUrl: s.baseUrl ? redactUserinfo(s.baseUrl) : null,
    env: profile.env ?? null,
    token: s.token ? maskSecret(s.token) : null,
    tokenSource,
    apiKey: s.apiKey ? maskSecret(s.apiKey) : null,
    apiKeySource: ctx.env.CARDCTL_API_KEY ? 'env CARDCTL_API_KEY' : profile.apiKey ? 'profile' : null,
    pinKeyFingerprint: profile.pinKeyFingerprint ?? null,
    tokenStatus: 'unknown',
    latencyMs: null,
  };
  const { missingProfile } = await import('../../contract/context.js');
  const missing = missingProfile(ctx);
  if (missing) {
    status.tokenStatus = 'no such profile';
    return { status, failure: missing };
  }
  if (!s.baseUrl) {
    status.tokenStatus = 'no base URL';
    return { status, failure: new AuthError(`profile "${s.profileName}" has no base URL`, { hint: 'run `cardctl login`, or pass --base-url' }) };
  }
  if (!s.token && !profile.clientId) {
    status.tokenStatus = 'not logged in';
    return { status, failure: new AuthError(`not logged in: profile "${s.profileName}" has no token`, { hint: 'run `cardctl login` (or set CARDCTL_TOKEN)' }) };
  }
  try {
    const [client, { listCards }] = await Promise.all([ctx.client(), import('../../api/cards.js')]);
    const response = await listCards(client, { limit: 1 });
    status.latencyMs = response.durationMs;
    status.tokenStatus = 'valid';
    // A client-credentials token may only now exist.
    if (!status.token && ctx.settings().token) status.token = maskSecret(ctx.settings().token);
    return { status };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    if (error instanceof AuthError && error.missingScope) {
      // The token was accepted; it only lacks the scope of the check request (a narrow application's token).
      status.tokenStatus = `valid (lacks ${error.missingScope})`;
      return { status };
    }
    if (error.exitCode === ExitCode.Auth) {
      status.tokenStatus = error.status === 403 ? 'forbidden' : 'invalid';
    } else if (error.exitCode === ExitCode.Network) {
      status.tokenStatus = 'unreachable';
    } else {
      status.tokenStatus = 'error';
    }
    return { status, failure: error };
  }
}

function statusRows(): Column<AuthStatus>[] {
  const orNone = (value: unknown) => (value === null || value === undefined || value === '' ? '-' : String(value));
  return [
    { header: 'Profile', path: 'profile', format: (v, r, st) => `${String(v)}${r.current ? st.dim(' (current)') : ''}` },
    { header: 'Base URL', path: 'baseUrl', format: orNone },
    { header: 'Environment', path: 'env', format: orNone },
    { header: 'Token', path: 'token', format: (v, r) => (v ? `${String(v)}  (${r.tokenSource})` : '-') },
    { header: 'Token status', path: 'tokenStatus', format: (v, r, st) => (String(v).startsWith('valid') ? `${st.ok(String(v))}${r.latencyMs !== null ? st.dim(` (${r.latencyMs} ms)`) : ''}` : st.error(String(v))) },
    { header: 'API key', path: 'apiKey', format: (v, r) => (v ? `${String(v)}  (${r.apiKeySource})` : '-') },
    { header: 'PIN key', path: 'pinKeyFingerprint', format: (v) => (v ? `sha256:${String(v)}` : '-') },
  ];
}
