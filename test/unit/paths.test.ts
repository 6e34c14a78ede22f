// This user's folders (src/config/paths.ts): the one rule, which bin/cardctl.js reads too.
import { homedir, platform } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, dataDir, userFolder } from '../../src/config/paths.js';

describe.runIf(platform() === 'linux')('user folders on Linux', () => {
  it('an absolute $XDG_*_HOME is used, a relative one ignored as the XDG rules say', () => {
    expect(userFolder('cache', { XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/cardctl');
    expect(userFolder('cache', { XDG_CACHE_HOME: 'relative' })).toBe(join(homedir(), '.cache', 'cardctl'));
    expect(userFolder('config', { XDG_CONFIG_HOME: 'relative' })).toBe(join(homedir(), '.config', 'cardctl'));
    expect(userFolder('data', {})).toBe(join(homedir(), '.local', 'share', 'cardctl'));
  });

  it("cardctl's own variables win", () => {
    expect(configDir({ CARDCTL_CONFIG_DIR: '/c', XDG_CONFIG_HOME: '/x' })).toBe('/c');
    expect(dataDir({ CARDCTL_DATA_DIR: '/d', XDG_DATA_HOME: '/x' })).toBe('/d');
    expect(dataDir({ XDG_DATA_HOME: '/x' })).toBe('/x/cardctl');
  });
});
