// Where the bearer token comes from: CARDCTL_TOKEN, else the profile's token. Profiles logged
// in with client credentials renew their token here before it expires or after a 401, and keep
// the new one in the profile.
import type { Profile } from '../config/store.js';
import { checkCredential, credentialSource } from '../core/credentials.js';
import type { Notes } from '../config/settings.js';
import type { ApiClient } from './client.js';

/** Renew when the token has less than this left. */
export const RENEW_BEFORE_MS = 60_000;

/** The bearer token to send, renewing it when needed; `force` after a 401. */
export type TokenProvider = (force?: boolean) => Promise<string | undefined>;

export interface TokenSourceInput {
  /** CARDCTL_TOKEN: wins over whatever the profile holds. */
  envToken?: string;
  profileName: string;
  profile: Profile;
  /** The base URL in use: the default token endpoint is under it. */
  baseUrl?: string;
  /** The client that reaches the token endpoint (asked for lazily: it sends with this provider). */
  client: () => Promise<ApiClient>;
  now: () => Date;
  /** Keeps a renewed token in the profile. */
  saveToken: (token: string, expiresAt: string) => Promise<void>;
  log: Notes;
}

export function createTokenSource(input: TokenSourceInput): TokenProvider {
  const { profile, profileName } = input;
  let token: string | undefined;
  let expiresAt: number | undefined;
  let loaded = false;
  let renewing: Promise<string> | undefined;

  const renew = (): Promise<string> => {
    renewing ??= (async () => {
      // Only a renewal needs it, and it loads node:crypto (~6 ms of every command on Node 20).
      const { defaultTokenUrl, requestClientCredentialsToken } = await import('./client-credentials.js');
      const tokenUrl = profile.tokenUrl ?? defaultTokenUrl(input.baseUrl ?? profile.baseUrl ?? '');
      const result = await requestClientCredentialsToken(await input.client(), {
        clientId: profile.clientId!,
        privateKeyPath: profile.privateKeyPath!,
        tokenUrl,
        now: input.now(),
      });
      token = checkCredential(result.token, `the access token from ${tokenUrl}`, 'the token endpoint answered a token that cannot be sent in a header; check --token-url');
      expiresAt = Date.parse(result.tokenExpiresAt);
      try {
        await input.saveToken(result.token, result.tokenExpiresAt);
      } catch (error) {
        input.log.warn(`could not save the renewed token to profile "${profileName}": ${(error as Error).message}`);
      }
      input.log.verbose(`renewed the access token (client credentials), valid until ${result.tokenExpiresAt}`);
      return result.token;
    })().finally(() => {
      renewing = undefined;
    });
    return renewing;
  };

  /** A stored or given token, checked before it goes into the Authorization header. */
  const checked = (value: string | undefined, fromEnv: boolean): string | undefined => {
    if (value === undefined || value === '') return value;
    const { source, hint } = credentialSource('token', fromEnv, profileName);
    return checkCredential(value, source, hint);
  };

  return async (force = false) => {
    if (input.envToken) return checked(input.envToken, true);
    if (!profile.clientId || !profile.privateKeyPath) return checked(profile.token, false);
    if (!loaded) {
      loaded = true;
      token = checked(profile.token, false);
      expiresAt = profile.tokenExpiresAt ? Date.parse(profile.tokenExpiresAt) : undefined;
    }
    if (renewing) return renewing;
    const now = input.now().getTime();
    const fresh = token && expiresAt !== undefined && Number.isFinite(expiresAt) && expiresAt - now > RENEW_BEFORE_MS;
    if (!force && fresh) return token;
    return renew();
  };
}
