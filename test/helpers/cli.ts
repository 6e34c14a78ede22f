// End-to-end helpers: run the built binary with execa, with a throwaway config directory,
// and start a sandbox process on a free port.
import { execa, type Options, type ResultPromise } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SandboxAnnouncement } from '../../src/commands/sandbox/serve.js';
import { isolatedDirs } from './dirs.js';

export { isolatedDirs };

export const BIN = fileURLToPath(new URL('../../bin/cardctl.js', import.meta.url));

/**
 * Environment without anything from the developer's shell that would change cardctl's behaviour.
 * A test that names one of CARDCTL_CONFIG_DIR / CARDCTL_DATA_DIR must name both: the other would
 * fall back to a directory under HOME (the fake home of test/setup/isolated-home.ts, which fails
 * the run when anything of cardctl's appears there).
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  if (Boolean(extra.CARDCTL_CONFIG_DIR) !== Boolean(extra.CARDCTL_DATA_DIR)) {
    throw new Error('cleanEnv: set CARDCTL_CONFIG_DIR and CARDCTL_DATA_DIR together (isolatedDirs)');
  }
  const env: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('CARDCTL_') || key === 'NO_COLOR' || key === 'FORCE_COLOR' || /_proxy$/i.test(key)) delete env[key];
  }
  return { ...env, CI: '1', ...extra };
}

export function tempDir(prefix = 'cardctl-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface RunOptions {
  configDir: string;
  env?: Record<string, string | undefined>;
  input?: string;
  timeout?: number;
}

/** Runs `cardctl ...args`; never throws on a non-zero exit (assert on exitCode). */
export async function cardctl(args: string[], options: RunOptions) {
  return execa('node', [BIN, ...args], {
    // The audit journal goes to the test's directory too, never the user's data directory.
    env: cleanEnv({ ...isolatedDirs(options.configDir), ...options.env }),
    extendEnv: false,
    input: options.input ?? '',
    reject: false,
    timeout: options.timeout ?? 60_000,
    stripFinalNewline: false,
  });
}

/** The first line `sandbox serve --json` prints. */
export type SandboxInfo = SandboxAnnouncement;

export interface RunningSandbox {
  info: SandboxInfo;
  process: ResultPromise<Options>;
  /** Everything the sandbox wrote to stderr (its request log). */
  log(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `cardctl sandbox serve --port 0 --json` (in memory unless --db is given) and reads its first line. */
export async function startSandboxProcess(extraArgs: string[] = [], options: { configDir?: string; env?: Record<string, string | undefined> } = {}): Promise<RunningSandbox> {
  const args = ['sandbox', 'serve', '--port', '0', '--json', ...extraArgs];
  if (!extraArgs.includes('--db')) args.push('--memory');
  const dir = options.configDir ?? tempDir().path;
  const child = execa('node', [BIN, ...args], {
    env: cleanEnv({ ...isolatedDirs(dir), ...options.env }),
    extendEnv: false,
    reject: false,
    buffer: false,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start in 20 s: ${stderr}`)), 20_000);
    lines.once('line', (line) => { clearTimeout(timer); resolve(line); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`sandbox exited with ${code}: ${stderr}`)); });
  });
  const info = JSON.parse(first) as SandboxInfo;
  return {
    info,
    process: child,
    log: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) {
        child.kill(signal);
        await child.catch(() => undefined);
      }
    },
  };
}

/** A running `cardctl webhook listen --json`: its URL (the first line) and every line it printed. */
export interface WebhookListener {
  url: string;
  process: ResultPromise;
  lines: string[];
  /** SIGTERM, then its exit (nothing when it has exited already). */
  stop(): Promise<void>;
}

/**
 * Starts `cardctl webhook listen --json` on `port` (0: a free one) with `args`, the secret on
 * stdin when one is given, and resolves once it has printed its URL.
 */
export async function startWebhookListener(options: { configDir: string; port?: number; args?: string[]; secret?: string }): Promise<WebhookListener> {
  const secretArgs = options.secret === undefined ? [] : ['--secret-stdin'];
  const child = execa('node', [BIN, 'webhook', 'listen', '--port', String(options.port ?? 0), '--json', ...secretArgs, ...(options.args ?? [])], {
    env: cleanEnv({ ...isolatedDirs(options.configDir) }), extendEnv: false, reject: false, buffer: false,
    ...(options.secret === undefined ? {} : { input: `${options.secret}\n` }),
  });
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('webhook listen did not start')), 20_000);
    reader.on('line', (line) => {
      lines.push(line);
      if (lines.length === 1) { clearTimeout(timer); resolve(line); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`webhook listen exited with ${code}`)); });
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await child.catch(() => undefined);
  };
  return { url: JSON.parse(first).url, process: child, lines, stop };
}
