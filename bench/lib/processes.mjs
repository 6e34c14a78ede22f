// The processes around a benchmark: a temporary work directory, the child processes it starts
// (a sandbox, a listener, the clients it measures), and the clean-up of both when it exits.
//
//   import { BIN, makeWorkDir, startSandbox } from './lib/processes.mjs';
//   const work = makeWorkDir('cards');   // removed when this process exits
//   const sandbox = await startSandbox({ CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work, CI: '1' });
//   // sandbox.baseUrl, sandbox.token, sandbox.cardProgramId, …: the first line `sandbox serve --json` prints
//
// Every child started here, or handed to track(), is killed with SIGKILL when this process exits
// (process.exit included), and every work directory is removed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The CLI's entry point (needs the built bundle, dist/). */
export const BIN = fileURLToPath(new URL('../../bin/cardctl.js', import.meta.url));

const children = new Set();
const workDirs = [];
process.on('exit', () => {
  stopChildren('SIGKILL');
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory under the system's temp dir, `cardctl-bench-<name>-…`, removed on exit. */
export function makeWorkDir(name) {
  const dir = mkdtempSync(join(tmpdir(), `cardctl-bench-${name}-`));
  workDirs.push(dir);
  return dir;
}

/** Kills `child` on exit unless it has exited by then; returns it. */
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Sends `signal` to every child still running. */
export function stopChildren(signal = 'SIGTERM') {
  for (const child of children) child.kill(signal);
}

/**
 * Starts `command argv` (stdout piped, stderr inherited unless `stderr` says otherwise, `env` on top
 * of this process's environment) and resolves with its first line on stdout; later lines are
 * read and dropped. Rejects when it exits first. `onChild` gets the child process (its pid).
 */
export function startProcess(command, argv, { env = {}, stderr = 'inherit', onChild } = {}) {
  const child = track(spawn(command, argv, { stdio: ['ignore', 'pipe', stderr], env: { ...process.env, ...env } }));
  onChild?.(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${command} ${argv.join(' ')} exited with ${code}`)));
  });
}

/**
 * Starts `cardctl sandbox serve --port 0 --memory --json --quiet-log [...args]` with `env` on top of
 * this process's environment, and resolves with the first line it prints, parsed: baseUrl, token,
 * apiKey, cardProgramId, institutionId, pinKeyFingerprint, ….
 */
export async function startSandbox(env, { args = [], stderr = 'inherit', onChild } = {}) {
  // A benchmark never touches the user's cardctl directories.
  if (!env.CARDCTL_CONFIG_DIR || !env.CARDCTL_DATA_DIR) throw new Error('startSandbox: give CARDCTL_CONFIG_DIR and CARDCTL_DATA_DIR');
  const line = await startProcess(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--memory', '--json', '--quiet-log', ...args], { env, stderr, onChild });
  return JSON.parse(line);
}

/** CPU time (user + system) a process has used so far, ms, from /proc (Linux); undefined elsewhere. */
export function cpuMs(pid) {
  try {
    // Fields after the command name: state is the 1st, utime the 12th, stime the 13th (clock ticks, 100 a second).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
