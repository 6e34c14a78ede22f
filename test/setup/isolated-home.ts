// Global setup of the test suite: no test, helper or child process may touch the real user's
// cardctl config or data. Before any worker starts, HOME and the XDG/Windows base directories
// point at a fresh temporary directory (workers and every process they spawn inherit it), and
// the CARDCTL_* directory variables of the developer's shell are dropped. At the end the run
// fails if anything named cardctl appeared under that fake home (a test resolved a path without
// CARDCTL_CONFIG_DIR/CARDCTL_DATA_DIR), or if the real home's cardctl directories changed.
// Every temporary file of the run (the tests', the helpers', the processes they start) goes under
// one directory of the system's temp dir (TMPDIR, TMP, TEMP), removed at the end: a run leaves
// nothing there (test/unit/test-isolation.test.ts checks a worker and its children use it).
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { configDir, dataDir } from '../../src/config/paths.js';

/** Variables that decide where a user's files live, each pointed into the fake home. */
export const HOME_VARIABLES = {
  HOME: '',
  USERPROFILE: '',
  XDG_CONFIG_HOME: '.config',
  XDG_DATA_HOME: '.local/share',
  XDG_CACHE_HOME: '.cache',
  XDG_STATE_HOME: '.local/state',
  APPDATA: 'AppData/Roaming',
  LOCALAPPDATA: 'AppData/Local',
} as const;

/** Variables that name the temporary directory (os.tmpdir(), and what child processes use). */
const TEMP_VARIABLES = ['TMPDIR', 'TMP', 'TEMP'];

/** Variables that would send cardctl's files somewhere else than where a test put them. */
const DIRECTORY_VARIABLES = ['CARDCTL_CONFIG_DIR', 'CARDCTL_DATA_DIR', 'CARDCTL_JOURNAL_DIR'];

declare module 'vitest' {
  export interface ProvidedContext {
    isolatedEnv: Record<string, string>;
    /** The run's temporary directory (TMPDIR, TMP, TEMP), removed at the end. */
    runTemp: string;
  }
}

type Snapshot = Map<string, string>;

export default function setup(project: TestProject): () => void {
  const realEnv = { ...process.env };
  // The real user's cardctl directories, as cardctl would resolve them from the shell's environment.
  const realDirs = [...new Set([
    configDir({ ...realEnv, CARDCTL_CONFIG_DIR: undefined }),
    dataDir({ ...realEnv, CARDCTL_DATA_DIR: undefined }),
    configDir({ XDG_CONFIG_HOME: undefined }),
    dataDir({ XDG_DATA_HOME: undefined }),
    ...DIRECTORY_VARIABLES.map((name) => realEnv[name]).filter((dir): dir is string => Boolean(dir)),
  ])];
  const before = new Map(realDirs.map((dir) => [dir, snapshot(dir)]));

  const runTemp = mkdtempSync(join(tmpdir(), 'cardctl-tests-'));
  const fakeHome = mkdtempSync(join(runTemp, 'home-of-tests-'));
  const isolated: Record<string, string> = Object.fromEntries(TEMP_VARIABLES.map((name) => [name, runTemp]));
  for (const [name, sub] of Object.entries(HOME_VARIABLES)) isolated[name] = sub ? join(fakeHome, sub) : fakeHome;
  Object.assign(process.env, isolated);
  for (const name of DIRECTORY_VARIABLES) delete process.env[name];
  if (homedir() !== fakeHome) throw new Error(`global setup: os.homedir() still answers ${homedir()}, not ${fakeHome}`);
  project.provide('isolatedEnv', isolated);
  project.provide('runTemp', runTemp);

  return () => {
    const problems: string[] = [];
    // Node's compile cache (bin/cardctl.js) belongs in the user's cache directory: the one cardctl entry allowed there.
    const compileCache = join(isolated.XDG_CACHE_HOME!, 'cardctl');
    const strays = findCardctlEntries(fakeHome).filter((path) => path !== compileCache);
    if (strays.length > 0) {
      problems.push(`cardctl files were written under the tests' fake HOME (a test or helper resolved a path without CARDCTL_CONFIG_DIR and CARDCTL_DATA_DIR):\n  ${strays.join('\n  ')}`);
    }
    for (const [dir, was] of before) {
      const changed = difference(was, snapshot(dir));
      if (changed.length > 0) problems.push(`the real cardctl directory ${dir} was modified during the tests:\n  ${changed.join('\n  ')}`);
    }
    rmSync(runTemp, { recursive: true, force: true });
    for (const name of [...Object.keys(HOME_VARIABLES), ...TEMP_VARIABLES]) {
      if (realEnv[name] === undefined) delete process.env[name];
      else process.env[name] = realEnv[name];
    }
    if (problems.length > 0) {
      // Vitest reports an error thrown here but keeps the exit code of the tests: set it too.
      process.exitCode = 1;
      throw new Error(`test isolation: ${problems.join('\n')}`);
    }
  };
}

/** Every path under `root` with a name containing "cardctl". */
export function findCardctlEntries(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (/cardctl/i.test(name)) found.push(path);
      else if (lstatSync(path).isDirectory()) walk(path);
    }
  };
  walk(root);
  return found;
}

/** Path → "size mtime" of everything under `dir` (empty when it does not exist). */
function snapshot(dir: string): Snapshot {
  const entries: Snapshot = new Map();
  const walk = (path: string): void => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return;
    }
    entries.set(path, `${stat.isDirectory() ? 'dir' : stat.size} ${stat.mtimeMs}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  if (existsSync(dir)) walk(dir);
  return entries;
}

function difference(before: Snapshot, after: Snapshot): string[] {
  const changes: string[] = [];
  for (const [path, was] of before) {
    const now = after.get(path);
    if (now === undefined) changes.push(`removed ${path}`);
    else if (now !== was) changes.push(`changed ${path} (${was} → ${now})`);
  }
  for (const path of after.keys()) if (!before.has(path)) changes.push(`added ${path}`);
  return changes;
}
