// Builds a Context over in-memory streams, so run() and renderer tests need no terminal.
import type { Dispatcher } from 'undici';
import { ConfigStore } from '../../src/config/store.js';
import { createContext } from '../../src/app/context.js';
import type { Context, GlobalOptions } from '../../src/contract/context.js';
import { bufferedIO, type BufferedIO } from '../../src/core/buffered-io.js';
import { ScriptedPrompter, type Prompter } from '../../src/core/prompter.js';
import { isolatedDirs, scratchDir } from './dirs.js';

export { isolatedDirs, scratchDirs } from './dirs.js';

export type TestIO = BufferedIO;

export function testIO(options: { tty?: boolean; stdin?: string; columns?: number } = {}): TestIO {
  return bufferedIO(options);
}

export interface TestContextOptions {
  tty?: boolean;
  /** Terminal width when tty (default 120). */
  columns?: number;
  stdin?: string;
  env?: Record<string, string | undefined>;
  globals?: GlobalOptions;
  answers?: unknown[];
  prompter?: Prompter;
  dispatcher?: Dispatcher;
  configDir?: string;
}

export function testContext(options: TestContextOptions = {}): Context & { io: TestIO } {
  const io = testIO({ tty: options.tty, stdin: options.stdin, columns: options.columns });
  // Config and data (audit journal) go to the test's directory, or a fresh one: never the user's.
  const dir = options.configDir ?? scratchDir();
  const env = { ...isolatedDirs(dir), ...options.env };
  const ctx = createContext({
    io,
    env,
    globals: { color: options.tty ? undefined : false, ...options.globals },
    prompter: options.prompter ?? (options.answers ? new ScriptedPrompter(options.answers) : undefined),
    dispatcher: options.dispatcher,
    config: new ConfigStore(env),
  });
  return ctx as Context & { io: TestIO };
}
