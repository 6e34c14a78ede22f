// Profiles. The file is read once with a plain JSON parse (cheap, on every command's path) and
// written through `conf` (atomic rename, file mode 0600), loaded only when something changes.
// The directory is forced to 0700 and the file to 0600 on every write, also when they existed
// with looser modes. A change is read, made and written holding a lock file, so that cardctl
// processes changing it at once (a login, an alias set in another terminal) lose nothing.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, SetupError, UsageError } from '../core/errors.js';
import type { OutputFormat } from '../core/output-format.js';
import { configDir } from './paths.js';

export type Environment = 'sandbox' | 'production';
export type PinBlockFormat = 'iso-1' | 'iso-0';
export type PinCipher = 'rsa-oaep-sha256' | 'rsa-oaep-sha1' | 'rsa-pkcs1';

export interface Profile {
  baseUrl?: string;
  /** Bearer access token (secret). */
  token?: string;
  /** API key for `import` (secret). */
  apiKey?: string;
  /** PIN public key, PEM (SubjectPublicKeyInfo). */
  pinKey?: string;
  /** Lowercase hex SHA-256 of the PIN key's DER SPKI. */
  pinKeyFingerprint?: string;
  pinBlockFormat?: PinBlockFormat;
  pinCipher?: PinCipher;
  /** Path segment of the simulate endpoint (`/institutions/{switch}/simulate`). */
  switch?: string;
  output?: OutputFormat;
  env?: Environment;
  /** Client-credentials login: the application's client id, and the path of its private key. */
  clientId?: string;
  privateKeyPath?: string;
  tokenUrl?: string;
  /** ISO time the current token expires (client credentials). */
  tokenExpiresAt?: string;
  /** Secret used by `webhook listen` to verify X-Webhook-Signature. */
  webhookSecret?: string;
  /** Refuse to run unless the profile is named explicitly (shared CI runners). */
  requireExplicitProfile?: boolean;
  /** Require --reason for production deactivations. */
  requireReason?: boolean;
  /**
   * How the deployment differs from the default dialect: only the settings that differ. Plain data
   * here; resolveDialect (src/api/dialect.ts) checks it whole wherever it is used.
   */
  dialect?: Readonly<Record<string, unknown>>;
  /**
   * Stored by `sandbox serve --memory --profile NAME`: the sandbox, its port and its credentials
   * last as long as that process; once it stops, the profile points at nothing (said so when used).
   */
  ephemeral?: boolean;
}

export interface ConfigFile {
  currentProfile?: string;
  profiles: Record<string, Profile>;
  aliases?: Record<string, string>;
}

/** Profile keys that are secrets: never printed in full. */
export const SECRET_PROFILE_KEYS = ['token', 'apiKey', 'webhookSecret'] as const;
/** The environment variables that hold a secret (scrubbed from the journal like the profile's). */
export const SECRET_ENV_VARS = ['CARDCTL_TOKEN', 'CARDCTL_API_KEY', 'CARDCTL_WEBHOOK_SECRET', 'CARDCTL_WEBHOOK_PREVIOUS_SECRET'] as const;

/** Keys `profile set` accepts, with how to parse their value. */
export const SETTABLE_PROFILE_KEYS: Record<string, { describe: string; values?: readonly string[]; boolean?: boolean }> = {
  baseUrl: { describe: 'API base URL' },
  switch: { describe: 'path segment of the simulate endpoint' },
  output: { describe: 'default output format', values: ['table', 'json', 'ndjson', 'csv', 'raw'] },
  env: { describe: 'sandbox or production', values: ['sandbox', 'production'] },
  pinBlockFormat: { describe: 'PIN block format', values: ['iso-1', 'iso-0'] },
  pinCipher: { describe: 'PIN block cipher', values: ['rsa-oaep-sha256', 'rsa-oaep-sha1', 'rsa-pkcs1'] },
  tokenUrl: { describe: 'OAuth token endpoint (client credentials)' },
  clientId: { describe: 'OAuth client id (client credentials)' },
  privateKeyPath: { describe: 'private key file for client credentials' },
  requireExplicitProfile: { describe: 'refuse commands unless --profile is given', boolean: true },
  requireReason: { describe: 'require --reason for production deactivations', boolean: true },
};

export const DEFAULT_PROFILE = 'default';
const CONFIG_NAME = 'config';
/** A change takes milliseconds; a lock held longer than this was left behind. */
const LOCK_STALE_MS = 10_000;
/** How long a change waits for another process's. */
const LOCK_WAIT_MS = 15_000;

export class ConfigStore {
  readonly dir: string;
  readonly file: string;
  private data?: ConfigFile;
  /** Modes found too loose and tightened when the file was read (for `doctor`). */
  fixedModes?: { file?: number; dir?: number };

  constructor(private readonly env: Record<string, string | undefined>) {
    this.dir = configDir(env);
    this.file = join(this.dir, `${CONFIG_NAME}.json`);
  }

  /** The whole file, read once per process. */
  read(): ConfigFile {
    if (this.data) return this.data;
    if (!existsSync(this.file)) {
      this.assertDirectory();
      return (this.data = configFile(undefined));
    }
    this.tightenModes();
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      throw SetupError.fromFs('cannot read the config file', this.file, error, this.fixHint());
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`config file ${this.file} is not valid JSON`, {
        hint: 'fix or remove the file, then run `cardctl login` again',
        cause: error,
      });
    }
    this.data = configFile(parsed);
    return this.data;
  }

  profileNames(): string[] {
    return Object.keys(this.read().profiles).sort();
  }

  currentProfileName(): string {
    return this.read().currentProfile ?? DEFAULT_PROFILE;
  }

  getProfile(name: string): Profile | undefined {
    return this.read().profiles[name];
  }

  /**
   * Applies `change` to a copy of the file and writes it atomically with the right modes,
   * holding the lock from the read to the write.
   */
  async update(change: (config: ConfigFile) => void): Promise<void> {
    const release = await this.lock();
    try {
      // Start from the file as it is now, not as this process first read it: another cardctl
      // (a token renewal, a second terminal) may have written in between.
      this.data = undefined;
      const next = configFile(JSON.parse(JSON.stringify(this.read())));
      change(next);
      await this.write(next);
      this.data = next;
    } finally {
      release();
    }
  }

  /**
   * The lock of a change: `config.json.lock`, created only if absent, holding its owner's pid.
   * A lock whose owner has exited, or older than LOCK_STALE_MS, was left by a crash and is taken
   * over; waiting for a live one ends after LOCK_WAIT_MS with an error naming the file.
   */
  private async lock(): Promise<() => void> {
    this.assertDirectory();
    const path = `${this.file}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        const fd = openSync(path, 'wx', 0o600);
        try {
          writeSync(fd, String(process.pid));
        } finally {
          closeSync(fd);
        }
        return () => rmSync(path, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw SetupError.fromFs('cannot lock the config', path, error, this.fixHint());
        }
      }
      if (lockIsStale(path)) {
        rmSync(path, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new SetupError(`the config is locked by another cardctl (${path})`, {
          hint: `wait for it to finish; if no cardctl is running, remove ${path}`,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
    }
  }

  async setProfile(name: string, profile: Profile): Promise<void> {
    await this.update((config) => {
      config.profiles[name] = dropUndefined(profile);
    });
  }

  async removeProfile(name: string): Promise<void> {
    await this.update((config) => {
      delete config.profiles[name];
      if (config.currentProfile === name) delete config.currentProfile;
    });
  }

  private async write(next: ConfigFile): Promise<void> {
    this.assertDirectory();
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      chmodSync(this.dir, 0o700);
      const { default: Conf } = await import('conf');
      const conf = new Conf<ConfigFile>({
        cwd: this.dir,
        configName: CONFIG_NAME,
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        watch: false,
      });
      conf.store = next;
      // conf writes with the mode only when it creates the file; an existing file keeps its
      // old mode, so tighten it every time.
      chmodSync(this.file, 0o600);
    } catch (error) {
      if (error instanceof CliError) throw error;
      const path = (error as NodeJS.ErrnoException).path;
      throw SetupError.fromFs('cannot write the config', typeof path === 'string' ? path : this.file, error, this.fixHint());
    }
  }

  /** The config directory, when it exists, must be a directory (CARDCTL_CONFIG_DIR may name a file). */
  private assertDirectory(): void {
    try {
      if (!statSync(this.dir).isDirectory()) {
        throw new SetupError(`the config directory ${this.dir} is not a directory`, { hint: this.fixHint() });
      }
    } catch (error) {
      if (error instanceof CliError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      throw SetupError.fromFs('cannot use the config directory', this.dir, error, this.fixHint());
    }
  }

  private fixHint(): string {
    return this.env.CARDCTL_CONFIG_DIR
      ? `CARDCTL_CONFIG_DIR is ${this.env.CARDCTL_CONFIG_DIR}: point it at a directory you can read and write`
      : `fix the permissions of ${this.dir}, or set CARDCTL_CONFIG_DIR to a directory you can read and write`;
  }

  /**
   * The file holds secrets: a file or directory readable by others (an old version, a copy, a
   * restored backup) is tightened to 0600/0700 as soon as it is read, not only on the next write.
   */
  private tightenModes(): void {
    if (process.platform === 'win32') return;
    try {
      const dirMode = statSync(this.dir).mode & 0o777;
      const fileMode = statSync(this.file).mode & 0o777;
      if ((dirMode & 0o077) !== 0) {
        chmodSync(this.dir, 0o700);
        this.fixedModes = { ...this.fixedModes, dir: dirMode };
      }
      if ((fileMode & 0o077) !== 0) {
        chmodSync(this.file, 0o600);
        this.fixedModes = { ...this.fixedModes, file: fileMode };
      }
    } catch {
      // Not ours to change (another owner, read-only mount): `cardctl doctor` reports it.
    }
  }

  /** Whether the file and directory have modes no looser than 0600/0700 (for `doctor`). */
  permissionsOk(): { file?: number; dir?: number; ok: boolean } {
    const dirMode = existsSync(this.dir) ? statSync(this.dir).mode & 0o777 : undefined;
    const fileMode = existsSync(this.file) ? statSync(this.file).mode & 0o777 : undefined;
    const ok = (dirMode === undefined || (dirMode & 0o077) === 0) && (fileMode === undefined || (fileMode & 0o077) === 0);
    return { file: fileMode, dir: dirMode, ok };
  }
}

/**
 * The file's maps keyed by names users choose (profiles, aliases) without a prototype: a
 * profile or alias named constructor or toString is only what the file holds.
 */
function configFile(parsed: unknown): ConfigFile {
  const file = (parsed && typeof parsed === 'object' ? parsed : {}) as Partial<ConfigFile>;
  const map = <T>(value: Record<string, T> | undefined): Record<string, T> => Object.assign(Object.create(null) as Record<string, T>, value && typeof value === 'object' ? value : {});
  return { ...file, profiles: map(file.profiles), ...(file.aliases === undefined ? {} : { aliases: map(file.aliases) }) };
}

/** A lock file whose process has exited, or that is older than any change takes. */
function lockIsStale(path: string): boolean {
  try {
    if (Date.now() - statSync(path).mtimeMs > LOCK_STALE_MS) return true;
    const pid = Number(readFileSync(path, 'utf8'));
    // Empty: its owner is between creating and writing it.
    if (!Number.isSafeInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // ENOENT: released meanwhile (try again); ESRCH: no such process. EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'ESRCH' || (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
