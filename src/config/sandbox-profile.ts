// The profile that points at a running sandbox: used by `sandbox serve --profile` and `demo`.
import type { ConfigStore, Profile } from './store.js';

export interface SandboxCredentials {
  baseUrl: string;
  token: string;
  apiKey: string;
  pinPublicKey: string;
  pinKeyFingerprint: string;
}

/**
 * The settings a sandbox hands out, as profile keys (other keys of `base` are kept); `ephemeral`
 * when the sandbox is in memory, so that its profile outlives it.
 */
export function sandboxProfile(sandbox: SandboxCredentials, base: Profile = {}, ephemeral = false): Profile {
  const { ephemeral: _was, ...kept } = base;
  return {
    ...kept,
    ...(ephemeral ? { ephemeral: true } : {}),
    baseUrl: sandbox.baseUrl,
    token: sandbox.token,
    apiKey: sandbox.apiKey,
    pinKey: sandbox.pinPublicKey,
    pinKeyFingerprint: sandbox.pinKeyFingerprint,
    env: 'sandbox',
  };
}

/** Stores the sandbox as profile `name`, and makes it current when no profile is current yet. */
export async function saveSandboxProfile(config: ConfigStore, name: string, sandbox: SandboxCredentials, options: { ephemeral?: boolean } = {}): Promise<void> {
  await config.update((file) => {
    file.profiles[name] = sandboxProfile(sandbox, file.profiles[name], options.ephemeral);
    file.currentProfile ??= name;
  });
}

/**
 * A refused connection to the sandbox of an ephemeral profile: that sandbox has stopped, and its
 * cards and credentials went with it. The error that says so, or undefined for any other profile.
 */
export function stoppedSandbox(profileName: string, profile: Profile | undefined): { message: string; hint: string } | undefined {
  if (!profile?.ephemeral) return undefined;
  return {
    message: `the sandbox of profile "${profileName}" has stopped (${profile.baseUrl ?? 'its address'} refused the connection): it was in memory, and its cards and credentials went with it`,
    hint: `start one again with \`cardctl sandbox serve --memory --profile ${profileName}\` (or keep one: \`--db FILE\`)`,
  };
}
