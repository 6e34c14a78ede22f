// What the operator-safety e2e files (safety.test.ts, doctor.test.ts) share: throwaway directories
// and workspaces with a runner bound to them, and a profile, a card and a card count on the file's sandbox.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Card } from '../../src/api/schemas.js';
import type { JournalEntry } from '../../src/audit/journal.js';
import { cardctl, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';

/**
 * The helpers, bound to the sandbox process the calling file starts in its beforeAll (read when a
 * test runs). Registers an afterEach that removes the test's workspaces.
 */
export function safetyHelpers(sandbox: () => RunningSandbox) {
  const dirs: Array<{ path: string; remove(): void }> = [];
  afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

  /** A throwaway directory, removed after the test. */
  function scratch(prefix: string): { path: string; remove(): void } {
    const dir = tempDir(prefix);
    dirs.push(dir);
    return dir;
  }

  /** A throwaway config and data directory, and a runner bound to them. */
  function workspace(extraEnv: Record<string, string> = {}) {
    const config = scratch('cardctl-e2e-safety-cfg-');
    const data = scratch('cardctl-e2e-safety-data-');
    const baseEnv = { CARDCTL_DATA_DIR: data.path, ...extraEnv };
    const journalFile = join(data.path, 'journal', 'journal.ndjson');
    return {
      config: config.path,
      data: data.path,
      journalFile,
      run: (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
        cardctl(args, { configDir: config.path, input: options.input, env: { ...baseEnv, ...options.env } }),
      journal(): JournalEntry[] {
        if (!existsSync(journalFile)) return [];
        return readFileSync(journalFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
      },
      journalText: () => (existsSync(journalFile) ? readFileSync(journalFile, 'utf8') : ''),
    };
  }

  const sandboxEnv = () => ({ CARDCTL_BASE_URL: sandbox().info.baseUrl, CARDCTL_TOKEN: sandbox().info.token, CARDCTL_API_KEY: sandbox().info.apiKey });

  function cardFlags(extra: string[] = []): string[] {
    return [
      'cards', 'create', '--program', sandbox().info.cardProgramId, '--first-name', 'Ada', '--last-name', 'Obi',
      '--email', 'ada@example.com', '--phone', '+2348012345678', '--birth-date', '1990-05-17', '--city', 'Lagos',
      '--account-number', '0123456789', '--account-type', 'savings', '--pin-stdin', ...extra,
    ];
  }

  /** Logs a profile in against the sandbox (token on stdin); a production one gets the sandbox's PIN key unless told not to. */
  async function profileAt(ws: ReturnType<typeof workspace>, name: string, env: 'sandbox' | 'production', extra: Array<[string, string]> = [], options: { pinKey?: boolean } = {}) {
    const args = ['login', '-p', name, '--base-url', sandbox().info.baseUrl, '--token-stdin', '--env', env];
    if (env === 'production' && options.pinKey !== false) {
      const pem = ((await (await fetch(`${sandbox().info.baseUrl}/sandbox/pin-key`)).json()) as { publicKey: string }).publicKey;
      writeFileSync(join(ws.data, 'pin.pem'), pem);
      args.push('--pin-key', join(ws.data, 'pin.pem'));
    }
    const login = await ws.run(args, { input: sandbox().info.token });
    expect(login.exitCode, login.stderr).toBe(0);
    for (const [key, value] of extra) {
      const set = await ws.run(['profile', 'set', key, value, '-p', name]);
      expect(set.exitCode, set.stderr).toBe(0);
    }
  }

  async function createCard(ws: ReturnType<typeof workspace>, pin = '4821', env: Record<string, string> = sandboxEnv(), extra: string[] = []) {
    const created = await ws.run([...cardFlags(extra), '-o', 'json'], { input: `${pin}\n`, env });
    expect(created.exitCode, created.stderr).toBe(0);
    return JSON.parse(created.stdout) as Card;
  }

  async function cardCount(): Promise<number> {
    const res = await fetch(`${sandbox().info.baseUrl}/institutions/cards?limit=1`, { headers: { authorization: `Bearer ${sandbox().info.token}` } });
    const body = (await res.json()) as { pagination?: { total: number } };
    return body.pagination!.total;
  }

  return { scratch, workspace, sandboxEnv, cardFlags, profileAt, createCard, cardCount };
}

/** The calling file's sandbox process (started before its tests, stopped after) and the helpers bound to it. */
export function useSafetySandbox() {
  let sandbox: RunningSandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandboxProcess();
  }, 30_000);
  afterAll(async () => {
    await sandbox?.stop();
  });
  const running = () => {
    if (!sandbox) throw new Error('the sandbox process has not started');
    return sandbox;
  };
  return { sandbox: running, ...safetyHelpers(running) };
}
