// Where the bearer token comes from: CARDCTL_TOKEN, else the profile's token. Profiles logged
// in with client credentials renew their token here before it expires or after a 401, and keep
// the new one in the profile.
import { missingProfile, type Context } from '../core/context.js';
import { checkCredential, credentialSource } from '../core/credentials.js';
import { defaultTokenUrl, requestClientCredentialsToken } from './client-credentials.js';

/** Renew when the token has less than this left. */
export const RENEW_BEFORE_MS = 60_000;

export function createTokenSource(ctx: Context): (force?: boolean) => Promise<string | undefined> {
  let token: string | undefined;
  let expiresAt: number | undefined;
  let loaded = false;
  let renewing: Promise<string> | undefined;

  const renew = (): Promise<string> => {
    renewing ??= (async () => {
      const s = ctx.settings();
      const profile = s.profile;
      const baseUrl = s.baseUrl ?? profile.baseUrl ?? '';
      const client = await ctx.client();
      const result = await requestClientCredentialsToken(client, {
        clientId: profile.clientId!,
        privateKeyPath: profile.privateKeyPath!,
        tokenUrl: profile.tokenUrl ?? defaultTokenUrl(baseUrl),
        now: ctx.clock.now(),
      });
      token = checkCredential(result.token, `the access token from ${profile.tokenUrl ?? defaultTokenUrl(baseUrl)}`, 'the token endpoint answered a token that cannot be sent in a header; check --token-url');
      expiresAt = Date.parse(result.tokenExpiresAt);
      try {
        await ctx.config.update((config) => {
          const current = config.profiles[s.profileName];
          if (!current) return;
          current.token = result.token;
          current.tokenExpiresAt = result.tokenExpiresAt;
        });
      } catch (error) {
        ctx.log.warn(`could not save the renewed token to profile "${s.profileName}": ${(error as Error).message}`);
      }
      ctx.log.verbose(`renewed the access token (client credentials), valid until ${result.tokenExpiresAt}`);
      return result.token;
    })().finally(() => {
      renewing = undefined;
    });
    return renewing;
  };

  /** A stored or given token, checked before it goes into the Authorization header. */
  const checked = (value: string | undefined, fromEnv: boolean): string | undefined => {
    if (value === undefined || value === '') return value;
    const { source, hint } = credentialSource('token', fromEnv, ctx.settings().profileName);
    return checkCredential(value, source, hint);
  };

  return async (force = false) => {
    const missing = missingProfile(ctx);
    if (missing) throw missing;
    const fromEnv = ctx.env.CARDCTL_TOKEN;
    if (fromEnv) return checked(fromEnv, true);
    const s = ctx.settings();
    const profile = s.profile;
    if (!profile.clientId || !profile.privateKeyPath) return checked(s.token, false);
    if (!loaded) {
      loaded = true;
      token = checked(profile.token, false);
      expiresAt = profile.tokenExpiresAt ? Date.parse(profile.tokenExpiresAt) : undefined;
    }
    if (renewing) return renewing;
    const now = ctx.clock.now().getTime();
    const fresh = token && expiresAt !== undefined && Number.isFinite(expiresAt) && expiresAt - now > RENEW_BEFORE_MS;
    if (!force && fresh) return token;
    return renew();
  };
}
