// --jq: filters the JSON that `-o json` would print with real jq (jq-wasm: jq compiled to
// WebAssembly, shipped inside the package). Loaded only when the flag is used.
//
// jq runs in a worker thread, never on the main thread:
// - jq-wasm's own wrapper feeds stdin one byte per call, copying the rest of the input each time,
//   and appends stdout one byte at a time by copying everything so far: quadratic in the input and
//   in the output (100 cards took 8 s). The worker keeps jq-wasm's Emscripten runtime but serves
//   jq's reads of stdin and writes to stdout/stderr itself, straight from and into WebAssembly
//   memory: linear in both.
// - jq runs synchronously until it is done. On the main thread, nothing else could run until then:
//   not the Ctrl-C handler, not the EPIPE handler of stdout, and `repeat(1)` never ends. In a worker
//   the main thread stays free: output is streamed back as it is produced, Ctrl-C terminates the
//   worker (exit 130), and a reader that goes away (EPIPE) ends the process as for any output.
// - The worker waits (Atomics.wait) while more than WORKER_BACKLOG characters it sent are not
//   written yet, so a slow reader bounds the memory an endless filter can take.
import { InterruptedError, UsageError } from '../core/errors.js';
import { JQ_MEMORY, JQ_MOST_INPUT } from './jq-limits.js';

export { JQ_MEMORY, JQ_MOST_INPUT };

export interface JqOptions {
  /** Receives jq's output as it is produced; the next chunk waits for its promise. */
  out(text: string): void | Promise<void>;
  /** Messages jq writes to stderr in a run that succeeds (`debug`, `stderr`). */
  err?(text: string): void;
  /** Aborting it (Ctrl-C) terminates jq; the run rejects with an InterruptedError (exit 130). */
  signal?: AbortSignal;
  /** Each result as one line of compact JSON (`jq -c`): with `-o ndjson`. */
  compact?: boolean;
}

/** Characters sent by the worker and not yet written before it waits (bounds memory with a slow reader). */
const WORKER_BACKLOG = 1 << 20;
/** The worker sends its output in chunks of at most this many bytes ... */
const WORKER_CHUNK = 64 * 1024;
/** ... or sooner, when this many milliseconds have passed since the last one (slow filters on a terminal). */
const WORKER_FLUSH_MS = 50;

const USAGE_HINT = 'the expression is jq syntax, e.g. --jq \'.[].id\' or --jq \'.[] | select(.status == "active") | .id\'';

const OWN_JQ = 'pipe the records into a jq of your own: cardctl … --all -o ndjson | jq …';
const TOO_MUCH_HINT = `narrow the list (its filters, --limit), or ${OWN_JQ}`;

function tooMuchInput(what: string): UsageError {
  return new UsageError(`--jq: ${what} more JSON than jq can hold (at most ${JQ_MOST_INPUT / 1024 / 1024} MiB; it has ${JQ_MEMORY} of memory)`, { code: 'JQ_INPUT_TOO_LARGE', hint: TOO_MUCH_HINT });
}

/**
 * The JSON array of a list's records, built record by record for one jq run (`--jq` with
 * `--all`): refused as soon as it passes JQ_MOST_INPUT, so no more pages are read for nothing.
 */
export class JqArrayText {
  private readonly texts: string[] = [];
  private bytes = 2; // [ and ]

  add(text: string): void {
    this.bytes += Buffer.byteLength(text) + (this.texts.length > 0 ? 1 : 0);
    if (this.bytes > JQ_MOST_INPUT) throw tooMuchInput(`the list's first ${(this.texts.length + 1).toLocaleString('en-US')} records are`);
    this.texts.push(text);
  }

  text(): string {
    return `[${this.texts.join(',')}]`;
  }
}

/**
 * Runs `expression` the way `jq -r` does over `input`, a JSON text or several (jq runs the filter
 * on each): each result on its own line, strings printed raw (as gh does for --jq), everything else
 * as JSON. Output goes to `options.out` as it is produced. An error in the expression — at compile
 * or run time — is a usage error carrying jq's own message (results printed before a run-time error
 * stay printed, as with jq).
 */
export async function runJq(input: string, expression: string, options: JqOptions): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) throw new InterruptedError();
  const bytes = new TextEncoder().encode(input);
  if (bytes.length > JQ_MOST_INPUT) throw tooMuchInput(`the input, ${(bytes.length / 1e6).toFixed(1)} MB, is`);
  const worker = spare ?? (await startWorker());
  spare = undefined;
  worker.thread.ref();
  let writing: Promise<void> = Promise.resolve();
  // Once the run has failed or been interrupted, chunks still queued are not written.
  let stopped = false;
  let onAbort: (() => void) | undefined;
  try {
    const finished = await new Promise<WorkerDone>((resolve, reject) => {
      onAbort = () => reject(new InterruptedError());
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.listen((event) => {
        if (event.type === 'out') {
          const { text } = event;
          writing = writing.then(async () => {
            if (stopped) return;
            await options.out(text);
            Atomics.sub(worker.backlog, 0, text.length);
            Atomics.notify(worker.backlog, 0);
          });
          writing.catch(reject);
        } else {
          writing.then(() => resolve(event), reject);
        }
      });
      worker.thread.postMessage({ expression, input: bytes, compact: options.compact === true }, [bytes.buffer]);
    });
    if (finished.type === 'crash') {
      // What jq-wasm's runtime throws when jq needs more memory than it has (a huge value, endless recursion).
      if (finished.message.startsWith('Aborted(')) {
        throw new UsageError(`--jq: jq ran out of memory (it has ${JQ_MEMORY})`, { code: 'JQ_OUT_OF_MEMORY', hint: `a filter that builds smaller values, or fewer records; or ${OWN_JQ}` });
      }
      throw new Error(`jq failed: ${finished.message}`);
    }
    if (finished.status === 0) {
      if (finished.stderr) options.err?.(finished.stderr);
      return;
    }
    const message = finished.stderr.split('\n').map((line) => line.trimEnd()).filter(Boolean).join(' / ') || `jq stopped with status ${finished.status}`;
    throw new UsageError(`--jq: ${message}`, { code: 'USAGE_JQ', hint: USAGE_HINT });
  } finally {
    stopped = true;
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    // Also what stops a filter that is still running (Ctrl-C, a failed write).
    void worker.thread.terminate();
  }
}

/**
 * Checks a --jq expression before anything is sent: jq compiles it and then reads no input, so it
 * never runs. A syntax error, an unknown function or variable is the usage error runJq would give
 * (exit 2), in jq's own words.
 */
export async function checkJqExpression(expression: string, signal?: AbortSignal): Promise<void> {
  await runJq('', expression, { out: () => {}, signal });
}

/**
 * Starts a worker and loads jq into it in the background, for the next runJq to use: starting one
 * takes ~60 ms of CPU (the runtime and its 1 MB WebAssembly binary), which then overlaps the fetching
 * of the records. A spare worker does not keep the process alive.
 */
export async function prepareJq(): Promise<void> {
  if (spare) return;
  const worker = await startWorker();
  if (spare) void worker.thread.terminate();
  else spare = worker;
}

let spare: JqWorker | undefined;

interface JqWorker {
  thread: import('node:worker_threads').Worker;
  /** Characters sent by the worker and not written yet. */
  backlog: Int32Array;
  /** Takes the worker's events, those that came before included. */
  listen(handler: (event: WorkerMessage) => void): void;
}

async function startWorker(): Promise<JqWorker> {
  const [{ Worker }, { createRequire }] = await Promise.all([import('node:worker_threads'), import('node:module')]);
  // Resolved from node_modules at run time rather than bundled: its Emscripten loader needs the
  // CommonJS __dirname (and the worker loads it with require).
  const jqPath = createRequire(import.meta.url).resolve('jq-wasm/dist/build/jq.js');
  const backlog = new Int32Array(new SharedArrayBuffer(4));
  const thread = new Worker(`(${jqWorker.toString()})(require);`, {
    eval: true,
    workerData: { jqPath, backlog, chunk: WORKER_CHUNK, limit: WORKER_BACKLOG, flushMs: WORKER_FLUSH_MS } satisfies WorkerData,
    // Whatever the Emscripten runtime prints itself is not output (and is not read: reading the
    // worker's stdio would keep the process alive).
    stdout: true,
    stderr: true,
  });
  const early: WorkerMessage[] = [];
  let handler: ((event: WorkerMessage) => void) | undefined;
  let done = false;
  const emit = (event: WorkerMessage) => {
    if (event.type !== 'out') {
      if (done) return;
      done = true;
    }
    if (handler) handler(event);
    else early.push(event);
  };
  thread.on('message', emit);
  thread.on('error', (error) => emit({ type: 'crash', message: error.message }));
  thread.on('exit', (code) => emit({ type: 'crash', message: `the jq worker stopped (exit code ${code}) before it was done` }));
  // After the listeners: adding one refs the worker again.
  thread.unref();
  return {
    thread,
    backlog,
    listen(next) {
      handler = next;
      for (const event of early.splice(0)) next(event);
    },
  };
}

/** runJq over one JSON value, its whole output as a string (for tests and small values). */
export async function applyJq(value: unknown, expression: string, signal?: AbortSignal, compact = false): Promise<string> {
  const parts: string[] = [];
  await runJq(JSON.stringify(value ?? null), expression, { out: (text) => void parts.push(text), signal, compact });
  return parts.join('');
}

type WorkerDone = { type: 'done'; status: number; stderr: string } | { type: 'crash'; message: string };
type WorkerMessage = { type: 'out'; text: string } | WorkerDone;

/** The little of WebAssembly the worker uses (the project's TypeScript libs do not declare it). */
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  instantiate(binary: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }>;
};
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

interface WorkerData {
  jqPath: string;
  backlog: Int32Array;
  chunk: number;
  limit: number;
  flushMs: number;
}

/**
 * The worker's code. It is sent as source text (`toString()`), so it must not use anything from
 * this module: only its `require` argument and globals.
 *
 * It loads jq-wasm's Emscripten runtime with the `instantiateWasm` hook, wraps two of the
 * WebAssembly imports — `fd_read` for fd 0 and `fd_write` for fd 1 and 2, found by their function
 * names — then waits for its one run and calls jq's main with `-r -M EXPRESSION` (no file: jq
 * reads stdin).
 */
function jqWorker(require: NodeRequire): void {
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const { readFileSync } = require('node:fs') as typeof import('node:fs');
  const data = workerData as WorkerData;
  const port = parentPort!;
  const { backlog } = data;
  // The run: one message { expression, input }, taken however early it comes.
  const job = new Promise<{ expression: string; input: Uint8Array; compact: boolean }>((resolve) => port.once('message', resolve));
  let input: Uint8Array = new Uint8Array(0);
  let inputAt = 0;
  const pending = new Uint8Array(data.chunk);
  let pendingLength = 0;
  let lastFlush = Date.now();
  const decoder = new TextDecoder();
  const errors: Uint8Array[] = [];
  let errorBytes = 0;
  let memory: WasmMemory | undefined;

  const send = (text: string) => {
    if (!text) return;
    port.postMessage({ type: 'out', text });
    // Wait while the main thread has more than `limit` characters to write.
    for (let queued = Atomics.add(backlog, 0, text.length) + text.length; queued > data.limit; queued = Atomics.load(backlog, 0)) {
      Atomics.wait(backlog, 0, queued, 1000);
    }
  };
  const flush = () => {
    send(decoder.decode(pending.subarray(0, pendingLength), { stream: true }));
    pendingLength = 0;
    lastFlush = Date.now();
  };
  const write = (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length;) {
      const n = Math.min(bytes.length - at, pending.length - pendingLength);
      pending.set(bytes.subarray(at, at + n), pendingLength);
      pendingLength += n;
      at += n;
      if (pendingLength === pending.length) flush();
    }
    if (pendingLength > 0 && Date.now() - lastFlush >= data.flushMs) flush();
  };

  type Imports = Record<string, (...args: number[]) => number>;
  const wrap = (imports: Imports) => {
    const find = (name: string) => {
      const key = Object.keys(imports).find((k) => imports[k]!.name === name);
      if (key === undefined) throw new Error(`jq-wasm has no ${name} import; its runtime changed`);
      return key;
    };
    const readKey = find('_fd_read');
    const writeKey = find('_fd_write');
    const fdRead = imports[readKey]!;
    const fdWrite = imports[writeKey]!;
    // iovecs: [pointer, length] pairs of u32 in WebAssembly memory.
    imports[readKey] = (fd, iov, iovcnt, pnum) => {
      if (fd !== 0) return fdRead(fd, iov, iovcnt, pnum);
      const heap = new Uint8Array(memory!.buffer);
      const words = new Uint32Array(memory!.buffer);
      let total = 0;
      for (let i = 0; i < iovcnt; i++) {
        const pointer = words[(iov >> 2) + 2 * i]!;
        const length = words[(iov >> 2) + 2 * i + 1]!;
        const n = Math.min(length, input.length - inputAt);
        heap.set(input.subarray(inputAt, inputAt + n), pointer);
        inputAt += n;
        total += n;
        if (n < length) break;
      }
      words[pnum >> 2] = total;
      return 0;
    };
    imports[writeKey] = (fd, iov, iovcnt, pnum) => {
      if (fd !== 1 && fd !== 2) return fdWrite(fd, iov, iovcnt, pnum);
      const heap = new Uint8Array(memory!.buffer);
      const words = new Uint32Array(memory!.buffer);
      let total = 0;
      for (let i = 0; i < iovcnt; i++) {
        const pointer = words[(iov >> 2) + 2 * i]!;
        const length = words[(iov >> 2) + 2 * i + 1]!;
        const bytes = heap.subarray(pointer, pointer + length);
        if (fd === 1) write(bytes);
        else if (errorBytes < 16 * 1024) {
          errors.push(bytes.slice());
          errorBytes += length;
        }
        total += length;
      }
      words[pnum >> 2] = total;
      return 0;
    };
  };

  // The binary is a base64 data URI inside the runtime (the first match that is not the bare prefix).
  const embedded = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]{64,})/.exec(readFileSync(data.jqPath, 'utf8'));
  if (!embedded) throw new Error('jq-wasm: the WebAssembly binary was not found in its runtime');
  const binary = Buffer.from(embedded[1]!, 'base64');
  const factory = require(data.jqPath) as (module: object) => Promise<{ callMain(args: string[]): number }>;
  factory({
    instantiateWasm(info: { a: Imports }, receive: (instance: object) => void) {
      wrap(info.a);
      WebAssembly.instantiate(binary, info).then(({ instance }) => {
        memory = Object.values(instance.exports).find((value): value is WasmMemory => value instanceof WebAssembly.Memory);
        receive(instance);
      }, (error: unknown) => port.postMessage({ type: 'crash', message: String(error) }));
      return {};
    },
  }).then(async (jq) => {
    const { expression, input: bytes, compact } = await job;
    input = bytes;
    let status: number;
    try {
      status = jq.callMain(['-r', '-M', ...(compact ? ['-c'] : []), expression]);
    } catch (error) {
      port.postMessage({ type: 'crash', message: error instanceof Error ? error.message : String(error) });
      return;
    }
    flush();
    send(decoder.decode());
    const stderr = new TextDecoder().decode(Buffer.concat(errors)).trim();
    port.postMessage({ type: 'done', status, stderr });
  }, (error: unknown) => port.postMessage({ type: 'crash', message: String(error) }));
}
