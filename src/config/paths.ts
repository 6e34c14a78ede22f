// Where cardctl keeps things: the one rule for this user's folders. XDG on Linux (an absolute
// $XDG_*_HOME, else its default under HOME), the platform conventions elsewhere; computed here
// (not via env-paths) so the start-up path stays small. bin/cardctl.js reads the cache folder
// from this same source (built apart as dist/paths.cjs), before it loads the CLI.
import { homedir, platform } from 'node:os';
import { isAbsolute, join } from 'node:path';

type Env = Record<string, string | undefined>;

/** config: config.json; data: the sandbox database and the audit journal; cache: Node's compile cache. */
export type UserFolder = 'config' | 'data' | 'cache';

const XDG: Record<UserFolder, { variable: string; fallback: string[] }> = {
  config: { variable: 'XDG_CONFIG_HOME', fallback: ['.config'] },
  data: { variable: 'XDG_DATA_HOME', fallback: ['.local', 'share'] },
  cache: { variable: 'XDG_CACHE_HOME', fallback: ['.cache'] },
};

/** This user's folder of `kind` for cardctl. */
export function userFolder(kind: UserFolder, env: Env): string {
  const home = homedir();
  switch (platform()) {
    case 'darwin': return join(home, 'Library', { config: 'Preferences', data: 'Application Support', cache: 'Caches' }[kind], 'cardctl');
    case 'win32': {
      const base = kind === 'config' ? env.APPDATA || join(home, 'AppData', 'Roaming') : env.LOCALAPPDATA || join(home, 'AppData', 'Local');
      return join(base, 'cardctl', { config: 'Config', data: 'Data', cache: 'Cache' }[kind]);
    }
    default: {
      const { variable, fallback } = XDG[kind];
      const given = env[variable];
      return join(given && isAbsolute(given) ? given : join(home, ...fallback), 'cardctl');
    }
  }
}

/** Directory of config.json: $CARDCTL_CONFIG_DIR, else the user's config directory. */
export function configDir(env: Env): string {
  return env.CARDCTL_CONFIG_DIR || userFolder('config', env);
}

/** Directory for data (sandbox database, audit journal): $CARDCTL_DATA_DIR, else the user's data directory. */
export function dataDir(env: Env): string {
  return env.CARDCTL_DATA_DIR || userFolder('data', env);
}
