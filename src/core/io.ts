// IOStreams: the only door to stdin/stdout/stderr. Commands write through it so tests can
// swap in buffers and toggle TTY-ness, the way gh's iostreams package works.
import type { Readable, Writable } from 'node:stream';
import { fstatSync } from 'node:fs';
import { InterruptedError, OutputError, UsageError } from './errors.js';

export interface IOStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour on stdout (and stderr when it is a TTY too). */
  colorEnabled: boolean;
  /** True only when prompts are allowed: TTYs on both ends, no --no-input, no CI. */
  canPrompt: boolean;
  /** Terminal width in columns, or undefined when stdout is not a terminal. */
  columns?: number;
  /**
   * Writes to stdout: text, or bytes already encoded as UTF-8 (a streamed list's rows).
   * `written` is called once stdout is done with them: bytes must not change before.
   */
  out(text: string | Uint8Array, written?: () => void): void;
  err(text: string): void;
  /** Resolves when stdout's buffer has room again: at once when it has room now, is gone, or was not made. */
  drained(): Promise<void>;
}

export interface ColorInputs {
  env: Record<string, string | undefined>;
  stdoutIsTTY: boolean;
  /** false when --no-color was given. */
  colorFlag?: boolean;
}

/**
 * The usual conventions: --no-color and NO_COLOR switch it off; FORCE_COLOR (not "0")
 * switches it on even when piped; otherwise colour only on a TTY with a terminal that can.
 */
export function decideColor({ env, stdoutIsTTY, colorFlag }: ColorInputs): boolean {
  if (colorFlag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (!stdoutIsTTY) return false;
  return env.TERM !== 'dumb';
}

export interface PromptInputs {
  env: Record<string, string | undefined>;
  /** Or a function that asks, called only when the rest allows prompting. */
  stdinIsTTY: boolean | (() => boolean);
  stdoutIsTTY: boolean;
  /** false when --no-input was given. */
  inputFlag?: boolean;
}

export function decideCanPrompt({ env, stdinIsTTY, stdoutIsTTY, inputFlag }: PromptInputs): boolean {
  if (inputFlag === false) return false;
  if (env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI !== 'false') return false;
  return stdoutIsTTY && (typeof stdinIsTTY === 'function' ? stdinIsTTY() : stdinIsTTY);
}

/**
 * The process's streams. A reader that went away (EPIPE: `cardctl cards list | head -1`) ends
 * the run quietly with the exit code it has so far (0), as a pipe's writer conventionally does.
 * Any other failure of stdout (ENOSPC, EIO: `> /dev/full`) is given to `onOutputError` (the entry
 * reports it, exit 2), never a stack trace. A stderr that fails is ignored: nothing is left to
 * tell, and the exit code still says how the run went.
 */
export function systemIO(process: NodeJS.Process, onOutputError: (failure: OutputError) => void = (failure) => {
  process.stderr.write(`error: ${failure.message}\n`);
  process.exit(failure.exitCode);
}): IOStreams {
  // The three streams are made on first use, their TTY-ness asked of the descriptor: making one
  // for a pipe loads Node's net and stream modules, and process.stdin its file streams with
  // fs/promises and readline; ~2.5 ms of CPU on Node 24 for each command that never uses them.
  const stdoutIsTTY = isTerminal(1);
  let stdinIsTTY: boolean | undefined;
  let stdout: NodeJS.WriteStream | undefined;
  let stderr: NodeJS.WriteStream | undefined;
  let failed = false;
  const useStdout = (): NodeJS.WriteStream => {
    if (stdout) return stdout;
    stdout = process.stdout;
    stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (failed) return;
      failed = true;
      if (error.code === 'EPIPE') return void process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      onOutputError(new OutputError(error));
    });
    return stdout;
  };
  const useStderr = (): NodeJS.WriteStream => {
    if (stderr) return stderr;
    stderr = process.stderr;
    stderr.on('error', () => {});
    return stderr;
  };
  return {
    get stdin() { return process.stdin; },
    get stdout() { return useStdout(); },
    get stderr() { return useStderr(); },
    // Asked when read: prompting needs a terminal on stdout first (decideCanPrompt).
    get stdinIsTTY() { return (stdinIsTTY ??= isTerminal(0)); },
    stdoutIsTTY,
    stderrIsTTY: isTerminal(2),
    colorEnabled: decideColor({ env: process.env, stdoutIsTTY }),
    get canPrompt() { return decideCanPrompt({ env: process.env, stdoutIsTTY, stdinIsTTY: () => this.stdinIsTTY }); },
    columns: stdoutIsTTY ? useStdout().columns : undefined,
    out: (text, written) => void useStdout().write(text, written),
    err: (text) => void useStderr().write(text),
    drained: () => (stdout ? drained(stdout) : Promise.resolve()),
  };
}

/** Resolves when `stream`'s buffer has room again (at once when it has room now, or is gone). */
export function drained(stream: Writable): Promise<void> {
  if (!stream.writableNeedDrain || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/**
 * Whether descriptor `fd` is a terminal. node:tty is asked only of a character device (a
 * terminal, or /dev/null): loading it loads net too, which a command that prints into a pipe or a
 * file needs no more than the stream it never makes.
 */
function isTerminal(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice() && (process.getBuiltinModule('node:tty') as typeof import('node:tty')).isatty(fd);
  } catch {
    return false;
  }
}

/**
 * Reads all of stdin (or any stream) as strict UTF-8 text, at most 16 MiB (a usage error naming
 * the line of bad bytes, or the bound); with a signal, Ctrl-C stops the wait (exit 130).
 */
export async function readAll(stream: Readable, signal?: AbortSignal): Promise<string> {
  const reading = (async () => {
    const { readBoundedText, TextDecodeError, TextTooLargeError } = await import('./text.js');
    try {
      return await readBoundedText(stream);
    } catch (error) {
      if (error instanceof TextDecodeError || error instanceof TextTooLargeError) throw new UsageError(`stdin: ${error.message}`);
      throw error;
    }
  })();
  if (!signal) return reading;
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => {
      reject(new InterruptedError());
      // Let go of stdin so the process can end now rather than wait for EOF.
      reading.catch(() => {});
      stream.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([reading, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}

/** Longest line lineReader accepts (PINs, secrets: far shorter). */
const MAX_LINE_CHARS = 64 * 1024;

/**
 * Reads stdin line by line on demand (for `--pin-stdin`: old PIN line, new PIN line) without
 * consuming more than the lines asked for from the caller's point of view. Strict UTF-8; a line
 * longer than 64 Ki characters is a usage error.
 */
export function lineReader(stream: Readable): { next(): Promise<string | undefined> } {
  let buffered = '';
  let ended = false;
  let iterator: AsyncIterator<string> | undefined;
  let lineNumber = 0;
  return {
    async next() {
      for (;;) {
        const newline = buffered.indexOf('\n');
        if (newline >= 0) {
          const line = buffered.slice(0, newline).replace(/\r$/, '');
          buffered = buffered.slice(newline + 1);
          lineNumber++;
          return line;
        }
        if (buffered.length > MAX_LINE_CHARS) throw new UsageError(`stdin: line ${lineNumber + 1} is longer than ${MAX_LINE_CHARS.toLocaleString('en-US')} characters`);
        if (ended) {
          if (buffered === '') return undefined;
          const line = buffered.replace(/\r$/, '');
          buffered = '';
          lineNumber++;
          return line;
        }
        const { decodeChunks, TextDecodeError } = await import('./text.js');
        iterator ??= decodeChunks(stream)[Symbol.asyncIterator]();
        let result: IteratorResult<string>;
        try {
          result = await iterator.next();
        } catch (error) {
          if (error instanceof TextDecodeError) throw new UsageError(`stdin: ${error.message}`);
          throw error;
        }
        if (result.done) ended = true;
        else buffered += result.value;
      }
    },
  };
}
