// Builds a Context over in-memory streams, so run() and renderer tests need no terminal.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { ConfigStore } from '../../src/config/store.js';
import { createContext, type Context, type GlobalOptions } from '../../src/core/context.js';
import { bufferedIO, type BufferedIO } from '../../src/core/io.js';
import { ScriptedPrompter, type Prompter } from '../../src/core/prompter.js';

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
  // The audit journal of mutating calls goes to the test's directory, never the user's.
  const env = {
    CARDCTL_JOURNAL_DIR: join(options.configDir ?? tmpdir(), 'cardctl-test-journal'),
    ...(options.configDir ? { CARDCTL_CONFIG_DIR: options.configDir } : {}),
    ...options.env,
  };
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
