// Pieces shared by the profile verbs: looking a profile up, and showing one with secrets masked.
import type { Context } from '../../contract/context.js';
import { NotFoundError } from '../../core/errors.js';
import { maskSecret } from '../../core/redact.js';
import { SECRET_PROFILE_KEYS, type Profile } from '../../config/store.js';

export function requireProfile(ctx: Context, name: string): Profile {
  const profile = ctx.config.getProfile(name);
  if (profile) return profile;
  const names = ctx.config.profileNames();
  throw new NotFoundError(`no profile named "${name}"`, {
    hint: names.length ? `stored profiles: ${names.join(', ')}` : 'no profiles yet: run `cardctl login`',
  });
}

/** A profile fit for printing: secrets masked, never in full. */
export function maskedProfile(name: string, profile: Profile, current: boolean): Record<string, unknown> {
  const view: Record<string, unknown> = { name, current, ...profile };
  for (const key of SECRET_PROFILE_KEYS) {
    if (typeof profile[key] === 'string') view[key] = maskSecret(profile[key]);
  }
  return view;
}
