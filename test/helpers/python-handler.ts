// The Python standard-library webhook handler of examples/webhook-handler (written from
// docs/webhook-protocol.md alone), started on a free port: `python3 handler.py --port 0
// [--scheme S] [--variant V]` with the secret in WEBHOOK_SECRET; its first stdout line is
// `listening http://127.0.0.1:PORT`.
import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import type { SignatureScheme } from '../../src/webhook-protocol/signature.js';

export const PYTHON_HANDLER = fileURLToPath(new URL('../../examples/webhook-handler/handler.py', import.meta.url));

/** Why the Python handler cannot run here, or undefined when python3 is there. */
export const pythonMissing: string | undefined = spawnSync('python3', ['--version']).status === 0 ? undefined : 'python3 is not installed';

export type HandlerVariant = 'none' | 'no-signature-check' | 'refuse-advices' | 'repeat-0111' | BrokenVariant;

/** The variants every example handler (Python, Perl, Java) has: each a false green certify must catch. */
export type BrokenVariant = 'keep-hold' | 'echo-secrets' | 'retired-forever' | 'one-signature' | 'decline-all' | 'garbage-1-in-10' | 'http-500';

export interface PythonHandler {
  url: string;
  stop(): Promise<void>;
}

export async function startPythonHandler(options: { secret?: string; scheme?: SignatureScheme; variant?: HandlerVariant; previousSecret?: string; previousSecretUntil?: number }): Promise<PythonHandler> {
  const args = [PYTHON_HANDLER, '--port', '0', '--scheme', options.scheme ?? 'cardctl', '--variant', options.variant ?? 'none'];
  const child = execa('python3', args, {
    env: {
      PATH: process.env.PATH ?? '', WEBHOOK_SECRET: options.secret ?? '', WEBHOOK_PREVIOUS_SECRET: options.previousSecret ?? '',
      WEBHOOK_PREVIOUS_SECRET_UNTIL: options.previousSecretUntil === undefined ? '' : String(options.previousSecretUntil),
    },
    extendEnv: false, reject: false, buffer: false, stdin: 'ignore', stderr: 'ignore',
  });
  return listening(child, 'handler.py', 20_000);
}

/**
 * A handler process once it printed its first line, `listening http://127.0.0.1:PORT`: its URL, and
 * how to stop it. Refused when it exits first, prints anything else, or says nothing for `timeoutMs`.
 */
export async function listening(child: ResultPromise, name: string, timeoutMs: number): Promise<PythonHandler> {
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start`)), timeoutMs);
    createInterface({ input: child.stdout! }).once('line', (line) => { clearTimeout(timer); resolve(line); });
    void child.then((done) => { clearTimeout(timer); reject(new Error(`${name} exited with ${done.exitCode}`)); });
  });
  const match = /^listening (http:\/\/\S+)$/.exec(first);
  if (!match) throw new Error(`${name}'s first line is not "listening URL": ${first}`);
  return {
    url: match[1]!,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await child.catch(() => undefined);
    },
  };
}
