// The suite's own isolation (test/setup/isolated-home.ts, test/helpers/dirs.ts): no test resolves
// cardctl's directories under the real user's home.
import { execa } from 'execa';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { configDir, dataDir } from '../../src/config/paths.js';
import { Journal } from '../../src/audit/journal.js';
import { findCardctlEntries, HOME_VARIABLES } from '../setup/isolated-home.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { testContext } from '../helpers/context.js';

const fakeHome = inject('isolatedEnv').HOME;

describe('test isolation', () => {
  it('HOME and every XDG/Windows base directory point into a fresh temporary directory, in this worker and its children', async () => {
    expect(fakeHome.startsWith(tmpdir())).toBe(true);
    expect(homedir()).toBe(fakeHome);
    for (const name of Object.keys(HOME_VARIABLES)) expect(process.env[name], name).toContain(fakeHome);
    for (const name of ['CARDCTL_CONFIG_DIR', 'CARDCTL_DATA_DIR', 'CARDCTL_JOURNAL_DIR']) expect(process.env[name], name).toBeUndefined();
    const child = await execa('node', ['-e', 'console.log(require("node:os").homedir(), process.env.XDG_DATA_HOME)'], { env: cleanEnv(), extendEnv: false });
    expect(child.stdout).toBe(`${fakeHome} ${join(fakeHome, '.local/share')}`);
    // What cardctl would resolve without the test directories: inside the fake home.
    expect(configDir(process.env).startsWith(fakeHome)).toBe(true);
    expect(dataDir(process.env).startsWith(fakeHome)).toBe(true);
  });

  it("temporary files go under the run's own directory, removed at the end: in this worker and its children", async () => {
    const runTemp = inject('runTemp');
    expect(tmpdir()).toBe(runTemp);
    expect(fakeHome.startsWith(runTemp)).toBe(true);
    expect(tempDir().path.startsWith(runTemp)).toBe(true);
    const child = await execa('node', ['-p', 'require("node:os").tmpdir()'], { env: cleanEnv(), extendEnv: false });
    expect(child.stdout).toBe(runTemp);
  });

  it('a test context sets both directories (config and data), outside any home', () => {
    for (const ctx of [testContext(), testContext({ configDir: tempDir().path })]) {
      expect(ctx.env.CARDCTL_CONFIG_DIR).toBeTruthy();
      expect(ctx.env.CARDCTL_DATA_DIR).toBeTruthy();
      expect(ctx.env.CARDCTL_DATA_DIR!.startsWith(fakeHome)).toBe(false);
      expect(new Journal(ctx.env).dir.startsWith(ctx.env.CARDCTL_DATA_DIR!)).toBe(true);
      expect(ctx.config.dir).toBe(ctx.env.CARDCTL_CONFIG_DIR);
    }
    // Two contexts never share a directory.
    expect(testContext().env.CARDCTL_DATA_DIR).not.toBe(testContext().env.CARDCTL_DATA_DIR);
  });

  it('cleanEnv refuses one of CARDCTL_CONFIG_DIR / CARDCTL_DATA_DIR without the other', () => {
    expect(() => cleanEnv({ CARDCTL_CONFIG_DIR: '/tmp/x' })).toThrow(/together/);
    expect(() => cleanEnv({ CARDCTL_DATA_DIR: '/tmp/x' })).toThrow(/together/);
    expect(cleanEnv({ CARDCTL_CONFIG_DIR: '/tmp/x', CARDCTL_DATA_DIR: '/tmp/y' }).CARDCTL_DATA_DIR).toBe('/tmp/y');
  });

  it('the end-of-run check finds cardctl entries at any depth of a home directory', () => {
    const home = tempDir();
    try {
      expect(findCardctlEntries(home.path)).toEqual([]);
      mkdirSync(join(home.path, '.local', 'share', 'cardctl', 'journal'), { recursive: true });
      writeFileSync(join(home.path, '.cardctl-history'), '');
      mkdirSync(join(home.path, 'other'));
      expect(findCardctlEntries(home.path).sort()).toEqual([join(home.path, '.cardctl-history'), join(home.path, '.local', 'share', 'cardctl')]);
    } finally {
      home.remove();
    }
  });
});
