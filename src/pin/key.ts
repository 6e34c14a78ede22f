// Which key, block format and cipher a profile encrypts PINs with. A profile normally holds the
// institution's PIN key (`cardctl login --pin-key FILE`); a sandbox publishes its key at
// GET /sandbox/pin-key, so for a sandbox the key is fetched (by the caller: no network here) and
// cached in the profile.
import { isLoopbackHost } from '../core/loopback.js';
import type { ConfigStore } from '../config/store.js';
import { ServerError, UsageError } from '../core/errors.js';
import type { Notes, ProfileInUse } from '../config/settings.js';
import type { PinBlockFormat } from './block.js';
import { loadPinKey, type PinCipher, type PinKey } from './encrypt.js';

export interface PinSettings {
  key: PinKey;
  format: PinBlockFormat;
  cipher: PinCipher;
  /** The key came from the sandbox's /sandbox/pin-key (so a stale one can be fetched again). */
  fromSandbox: boolean;
}

/** A key as a sandbox publishes it (GET /sandbox/pin-key), before it is loaded and checked. */
export interface PublishedPinKey {
  publicKey: string;
  fingerprint?: string;
  algorithm?: string;
  pinBlockFormat?: string;
}

/** Fetches the key the sandbox publishes (getSandboxPinKey of src/api/pin-key.ts over a client). */
export type PublishedPinKeySource = () => Promise<PublishedPinKey>;

/** What finding the PIN key reads and writes: the profile in use, where to cache a sandbox's key, notes. */
export interface PinKeyContext {
  settings(): ProfileInUse;
  config: Pick<ConfigStore, 'update'>;
  log: Notes;
}

/** Is the selected deployment a sandbox (by the profile's `env`, or a loopback base URL)? */
export function isSandbox(settings: Pick<ProfileInUse, 'profile' | 'baseUrl'>): boolean {
  if (settings.profile.env === 'sandbox') return true;
  if (settings.profile.env === 'production') return false;
  try {
    return settings.baseUrl !== undefined && isLoopbackHost(new URL(settings.baseUrl).hostname);
  } catch {
    return false;
  }
}

/**
 * Fails early (before any PIN is asked for) when PINs could not be encrypted: no key in the
 * profile and no sandbox to fetch one from. Local check only.
 */
export function assertPinKeyAvailable(ctx: Pick<PinKeyContext, 'settings'>): void {
  const settings = ctx.settings();
  if (settings.profile.pinKey || isSandbox(settings)) return;
  throw new UsageError(`profile "${settings.profileName}" has no PIN public key, so PINs cannot be encrypted`, {
    code: 'NO_PIN_KEY',
    hint: "run `cardctl login --pin-key FILE` with the institution's PIN public key (PEM)",
  });
}

/**
 * The PIN key and settings of the selected profile. `refresh` ignores a cached sandbox key
 * (after the sandbox answered UNKNOWN_KEY, e.g. because it was restarted with a new key).
 */
export async function resolvePinSettings(ctx: PinKeyContext, published: PublishedPinKeySource, options: { refresh?: boolean } = {}): Promise<PinSettings> {
  const settings = ctx.settings();
  const profile = settings.profile;
  const format = profile.pinBlockFormat ?? 'iso-1';
  const cipher = profile.pinCipher ?? 'rsa-oaep-sha256';
  const sandbox = isSandbox(settings);
  if (profile.pinKey && !(options.refresh && sandbox)) {
    const key = await loadPinKey(profile.pinKey, `the PIN key of profile "${settings.profileName}"`);
    if (profile.pinKeyFingerprint && profile.pinKeyFingerprint.toLowerCase() !== key.fingerprint) {
      ctx.log.warn(`the stored PIN key fingerprint of profile "${settings.profileName}" does not match its key; using the key's own (${key.fingerprint.slice(0, 16)}…)`);
    }
    return { key, format, cipher, fromSandbox: false };
  }
  if (!sandbox) assertPinKeyAvailable(ctx);
  const { key, format: sandboxFormat, cipher: sandboxCipher } = await loadPublishedPinKey(await published());
  // Cache it only in a profile that is really this sandbox's (not when --base-url or
  // CARDCTL_BASE_URL points elsewhere for one command).
  if (profile.baseUrl !== undefined && profile.baseUrl === settings.baseUrl) {
    await ctx.config.update((config) => {
      const target = config.profiles[settings.profileName];
      if (target) {
        target.pinKey = key.pem;
        target.pinKeyFingerprint = key.fingerprint;
      }
    });
    ctx.log.verbose(`cached the sandbox PIN key in profile "${settings.profileName}" (${key.fingerprint.slice(0, 16)}…)`);
  }
  // The sandbox states its own format and cipher; they win over the profile's.
  return { key, format: sandboxFormat ?? format, cipher: sandboxCipher ?? cipher, fromSandbox: true };
}

/** The key a sandbox published, loaded, with the fingerprint it states checked against the key's own. */
export async function loadPublishedPinKey(info: PublishedPinKey): Promise<{ key: PinKey; format?: PinBlockFormat; cipher?: PinCipher }> {
  const key = await loadPinKey(info.publicKey, 'the sandbox PIN key');
  if (info.fingerprint && info.fingerprint.toLowerCase() !== key.fingerprint) {
    throw new ServerError(`the sandbox's PIN key fingerprint (${info.fingerprint.slice(0, 16)}…) does not match its key (${key.fingerprint.slice(0, 16)}…)`, { code: 'PIN_KEY_MISMATCH' });
  }
  const format = info.pinBlockFormat === 'ISO-9564-1' ? 'iso-1' : undefined;
  const algorithm = String(info.algorithm ?? '').toUpperCase();
  const cipher = algorithm === 'RSA-OAEP-256' ? 'rsa-oaep-sha256' : algorithm === 'RSA-OAEP' ? 'rsa-oaep-sha1' : algorithm === 'RSA1_5' ? 'rsa-pkcs1' : undefined;
  return { key, format, cipher };
}
