// Where cardctl keeps things. XDG on Linux, the platform conventions elsewhere; computed here
// (not via env-paths) so the start-up path stays small.
import { homedir, platform } from 'node:os';
import { join } from 'node:path';

type Env = Record<string, string | undefined>;

/** Directory of config.json: $CARDCTL_CONFIG_DIR, else the user's config directory. */
export function configDir(env: Env): string {
  if (env.CARDCTL_CONFIG_DIR) return env.CARDCTL_CONFIG_DIR;
  const home = homedir();
  switch (platform()) {
    case 'darwin': return join(home, 'Library', 'Preferences', 'cardctl');
    case 'win32': return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'cardctl', 'Config');
    default: return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'cardctl');
  }
}

/** Directory for data (sandbox database, audit journal): $CARDCTL_DATA_DIR, else the user's data directory. */
export function dataDir(env: Env): string {
  if (env.CARDCTL_DATA_DIR) return env.CARDCTL_DATA_DIR;
  const home = homedir();
  switch (platform()) {
    case 'darwin': return join(home, 'Library', 'Application Support', 'cardctl');
    case 'win32': return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'cardctl', 'Data');
    default: return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'cardctl');
  }
}
