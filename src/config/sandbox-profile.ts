// The profile that points at a running sandbox: used by `sandbox serve --profile` and `demo`.
import type { ConfigStore, Profile } from './store.js';

export interface SandboxCredentials {
  baseUrl: string;
  token: string;
  apiKey: string;
  pinPublicKey: string;
  pinKeyFingerprint: string;
}

/** The settings a sandbox hands out, as profile keys (other keys of `base` are kept). */
export function sandboxProfile(sandbox: SandboxCredentials, base: Profile = {}): Profile {
  return {
    ...base,
    baseUrl: sandbox.baseUrl,
    token: sandbox.token,
    apiKey: sandbox.apiKey,
    pinKey: sandbox.pinPublicKey,
    pinKeyFingerprint: sandbox.pinKeyFingerprint,
    env: 'sandbox',
  };
}

/** Stores the sandbox as profile `name`, and makes it current when no profile is current yet. */
export async function saveSandboxProfile(config: ConfigStore, name: string, sandbox: SandboxCredentials): Promise<void> {
  await config.update((file) => {
    file.profiles[name] = sandboxProfile(sandbox, file.profiles[name]);
    file.currentProfile ??= name;
  });
}
