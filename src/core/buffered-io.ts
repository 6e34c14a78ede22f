// IOStreams over memory, for running a command in-process (the demo's steps, tests). Apart
// from io.ts, which every command loads, so that node:stream is loaded only by what uses it.
import { PassThrough, Readable } from 'node:stream';
import { drained, type IOStreams } from './io.js';

/** IOStreams over memory: stdin from a string, stdout and stderr collected as text. */
export interface BufferedIO extends IOStreams {
  stdoutText(): string;
  stderrText(): string;
}

/**
 * For running a command in-process (the demo's steps, tests): TTY-ness, and with it colour and
 * prompting, is off unless asked for.
 */
export function bufferedIO(options: { stdin?: string; tty?: boolean; columns?: number } = {}): BufferedIO {
  const tty = options.tty ?? false;
  let out = '';
  let err = '';
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  return {
    stdin: Readable.from(options.stdin !== undefined ? [options.stdin] : []),
    stdout,
    stderr,
    stdinIsTTY: tty,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    colorEnabled: tty,
    canPrompt: tty,
    columns: tty ? options.columns ?? 120 : undefined,
    out: (text, written) => {
      out += typeof text === 'string' ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8');
      written?.();
    },
    drained: () => drained(stdout),
    err: (text) => void (err += text),
    stdoutText: () => out,
    stderrText: () => err,
  };
}
