// OAuth client-credentials login: signs a JWT client assertion with the
// application's private key and exchanges it at the token endpoint.
import { randomUUID } from 'node:crypto';
import { readTextFile } from '../core/text.js';
import { resolve } from 'node:path';
import type { ConfigStore } from '../config/store.js';
import { AuthError, CliError, ServerError, UsageError } from '../core/errors.js';
import { withoutTrailingSlashes } from '../core/validate.js';
import type { ApiClient, Connection } from './client.js';
import type { TokenResponse } from './schemas.js';

export interface ClientCredentialsLogin {
  profileName: string;
  baseUrl: string;
  clientId: string;
  privateKeyPath: string;
  tokenUrl?: string;
}

export interface ClientCredentialsResult {
  token: string;
  /** ISO time the token expires. */
  tokenExpiresAt: string;
  scope?: string;
  tokenUrl: string;
  privateKeyPath: string;
}

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Lifetime of a client assertion; the token endpoint accepts at most 5 minutes. */
const ASSERTION_TTL_SECONDS = 120;

/** `<baseUrl>/oauth/token` unless the profile or flag names another endpoint. */
export function defaultTokenUrl(baseUrl: string): string {
  return `${withoutTrailingSlashes(baseUrl)}/oauth/token`;
}

/** Reads a PEM private key (PKCS#8 or PKCS#1 RSA) into a KeyObject; unreadable keys are usage errors. */
export async function loadPrivateKey(path: string): Promise<import('node:crypto').KeyObject> {
  let pem: string;
  try {
    pem = await readTextFile(path);
  } catch (error) {
    throw new UsageError(`cannot read private key ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      hint: 'give the private-key.pem written by `cardctl oauth keygen` with --private-key',
      cause: error,
    });
  }
  const { createPrivateKey } = await import('node:crypto');
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    if (key.asymmetricKeyType !== 'rsa') throw new Error(`a ${key.asymmetricKeyType} key, not RSA`);
    return key;
  } catch (error) {
    throw new UsageError(`${path} is not a usable RSA private key (PEM): ${(error as Error).message}`, {
      hint: 'client credentials need the RSA private key whose certificate was registered with `cardctl oauth create`',
      cause: error,
    });
  }
}

export interface AssertionInput {
  clientId: string;
  tokenUrl: string;
  key: import('node:crypto').KeyObject;
  now?: Date;
  jti?: string;
}

/** A JWT client assertion (RFC 7523): RS256, iss = sub = client id, aud = token URL, exp ≤ 5 min. */
export async function signClientAssertion(input: AssertionInput): Promise<string> {
  const { SignJWT } = await import('jose');
  const iat = Math.floor((input.now ?? new Date()).getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(input.clientId)
    .setSubject(input.clientId)
    .setAudience(input.tokenUrl)
    .setJti(input.jti ?? randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + ASSERTION_TTL_SECONDS)
    .sign(input.key);
}

export interface TokenRequest {
  clientId: string;
  privateKeyPath: string;
  tokenUrl: string;
  now?: Date;
}

/** Signs an assertion and exchanges it at the token endpoint (form-urlencoded, no other auth). */
export async function requestClientCredentialsToken(client: ApiClient, request: TokenRequest): Promise<ClientCredentialsResult> {
  const key = await loadPrivateKey(request.privateKeyPath);
  const now = request.now ?? new Date();
  const assertion = await signClientAssertion({ clientId: request.clientId, tokenUrl: request.tokenUrl, key, now });
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: request.clientId,
    client_assertion_type: CLIENT_ASSERTION_TYPE,
    client_assertion: assertion,
  });
  const endpoint = await tokenEndpoint(client, request.tokenUrl);
  let response;
  try {
    response = await endpoint.client.request<Partial<TokenResponse>>({
      method: 'POST',
      path: endpoint.path,
      rawBody: form.toString(),
      contentType: 'application/x-www-form-urlencoded',
      envelope: false,
      auth: 'none',
      idempotent: false,
    });
  } catch (error) {
    if (error instanceof AuthError || (error instanceof CliError && error.status === 400)) {
      throw new AuthError(`client-credentials login failed: ${error.message}`, {
        code: error.code,
        status: error.status,
        hint: 'check --client-id (the application\'s client id from `cardctl oauth list`), that --private-key matches the registered certificate, and the token URL',
        cause: error,
      });
    }
    throw error;
  }
  const body = response.data;
  if (!body || typeof body.access_token !== 'string' || body.access_token === '') {
    throw new ServerError(`the token endpoint ${request.tokenUrl} answered without an access_token`, { status: response.status });
  }
  const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
  return {
    token: body.access_token,
    tokenExpiresAt: new Date(now.getTime() + expiresIn * 1000).toISOString(),
    scope: typeof body.scope === 'string' ? body.scope : undefined,
    tokenUrl: request.tokenUrl,
    privateKeyPath: request.privateKeyPath,
  };
}

/**
 * The client and path to reach the token endpoint: the API's own client when the token URL is
 * under the base URL, else a client for the token URL's origin sharing the same connection pool
 * (the request carries no API credentials, only the signed assertion meant for that endpoint).
 */
async function tokenEndpoint(client: ApiClient, tokenUrl: string): Promise<{ client: ApiClient; path: string }> {
  let url: URL;
  try {
    url = new URL(tokenUrl);
  } catch {
    throw new UsageError(`invalid token URL "${tokenUrl}"`, { hint: 'give a full URL with --token-url, e.g. https://auth.example.com/oauth/token' });
  }
  const base = client.baseUrl.href.endsWith('/') ? client.baseUrl.href : `${client.baseUrl.href}/`;
  if (url.href.startsWith(base)) return { client, path: `/${url.href.slice(base.length)}` };
  const { ApiClient } = await import('./client.js');
  const other = new ApiClient({ baseUrl: url.origin, dispatcher: await client.dispatcher(), retries: 0 });
  return { client: other, path: `${url.pathname}${url.search}` };
}

/** What a login needs of the run: how to connect, and where profiles are stored. */
export interface LoginContext {
  connection(): Connection;
  config: Pick<ConfigStore, 'update'>;
}

/**
 * Logs in with client credentials and stores the profile: base URL, client id, the private
 * key's absolute path (never a copy of the key), token URL, token and its expiry.
 */
export async function loginWithClientCredentials(
  ctx: LoginContext,
  login: ClientCredentialsLogin & { client?: ApiClient },
): Promise<ClientCredentialsResult> {
  if (!login.clientId.trim()) throw new UsageError('--client-id is empty');
  const privateKeyPath = resolve(login.privateKeyPath);
  const tokenUrl = login.tokenUrl ?? defaultTokenUrl(login.baseUrl);
  let client = login.client;
  let owned = false;
  if (!client) {
    const { ApiClient } = await import('./client.js');
    client = new ApiClient({ ...ctx.connection(), baseUrl: login.baseUrl });
    owned = true;
  }
  try {
    const result = await requestClientCredentialsToken(client, { clientId: login.clientId.trim(), privateKeyPath, tokenUrl });
    await ctx.config.update((config) => {
      const previous = config.profiles[login.profileName] ?? {};
      config.profiles[login.profileName] = {
        ...previous,
        baseUrl: login.baseUrl,
        clientId: login.clientId.trim(),
        privateKeyPath,
        tokenUrl,
        token: result.token,
        tokenExpiresAt: result.tokenExpiresAt,
      };
    });
    return result;
  } finally {
    if (owned) await client.close();
  }
}
