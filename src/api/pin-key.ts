// The PIN key a sandbox publishes (GET /sandbox/pin-key, no auth). Returns data, never prints;
// src/pin/key.ts loads and checks the key it holds.
import type { ApiClient } from './client.js';
import type { PinKeyInfo } from './schemas.js';
import { CliError, ServerError, UsageError } from '../core/errors.js';

export async function getSandboxPinKey(client: ApiClient): Promise<PinKeyInfo> {
  try {
    const response = await client.request<PinKeyInfo>({ method: 'GET', path: '/sandbox/pin-key', auth: 'none', envelope: false });
    return unwrap(response.data);
  } catch (error) {
    if (error instanceof CliError && error.exitCode === 4) {
      throw new UsageError('this deployment publishes no PIN key (GET /sandbox/pin-key answered 404)', {
        code: 'NO_PIN_KEY',
        hint: "run `cardctl login --pin-key FILE` with the institution's PIN public key (PEM)",
      });
    }
    throw error;
  }
}

/** The helper may answer bare or inside the usual envelope. */
function unwrap(body: unknown): PinKeyInfo {
  const value = body && typeof body === 'object' && 'data' in body && !('publicKey' in body) ? (body as { data: unknown }).data : body;
  if (!value || typeof value !== 'object' || typeof (value as PinKeyInfo).publicKey !== 'string') {
    throw new ServerError('GET /sandbox/pin-key answered without a publicKey');
  }
  return value as PinKeyInfo;
}
