// What a run knows about where it talks to, as plain types: the profile in use with the
// environment and flags applied. Lower layers (PIN keys, guards, the token source) declare the
// part of it they read from here, so none of them needs the command context (app/context.ts
// builds these values).
import type { OutputFormat } from '../core/output-format.js';
import type { Profile } from './store.js';

export type Env = Record<string, string | undefined>;

export interface Clock {
  now(): Date;
}

/** What the profile, the environment and the flags add up to. */
export interface Settings {
  profileName: string;
  /** Was the profile named explicitly (--profile or CARDCTL_PROFILE)? */
  profileExplicit: boolean;
  profile: Profile;
  baseUrl?: string;
  token?: string;
  apiKey?: string;
  /** json with --jq or --template, whatever -o says (they work on the JSON value). */
  output: OutputFormat;
  /** --jq with -o ndjson: each result printed as one line of compact JSON. */
  compactJq: boolean;
  timeoutMs: number;
  retries: number;
  verbose: boolean;
  debug: boolean;
  insecure: boolean;
}

/** The profile in use and where it points: what PIN keys and guards decide by. */
export type ProfileInUse = Pick<Settings, 'profileName' | 'profileExplicit' | 'profile' | 'baseUrl'>;

/** Notes for people on stderr (app/context.ts writes them; -v for verbose). */
export interface Notes {
  warn(line: string): void;
  verbose(line: string): void;
}
