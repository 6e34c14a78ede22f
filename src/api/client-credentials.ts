// OAuth client-credentials login (issue 6): signs a JWT client assertion with the
// application's private key and exchanges it at the token endpoint.
import type { Context } from '../core/context.js';
import { NotImplementedError } from '../core/errors.js';

export interface ClientCredentialsLogin {
  profileName: string;
  baseUrl: string;
  clientId: string;
  privateKeyPath: string;
  tokenUrl?: string;
}

/** Logs in with client credentials and stores the profile. */
export async function loginWithClientCredentials(_ctx: Context, _login: ClientCredentialsLogin): Promise<void> {
  throw new NotImplementedError('login --client-id');
}
