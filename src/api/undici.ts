// How cardctl loads undici, the client's transport behind a proxy from the environment or with a
// dispatcher handed in (tests' MockAgent), and the HTTP library of the commands that need its
// own API (doctor, webhook listen, scenarios). Never on the start-up path: a plain request goes
// through node:http (src/api/node-http.ts), so undici's public index is all cardctl loads.
import type { Dispatcher } from 'undici';
import { loopbackTarget, pinnedLookup, type LoopbackTarget, type Resolver } from '../core/loopback.js';
import type { Transport, TransportResponse } from './node-http.js';
import { OwnBody } from './body.js';

/** undici's public index. It is CommonJS: once bundled, its exports may sit on `default`. */
export async function loadUndici(): Promise<typeof import('undici')> {
  const mod = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
  return typeof mod.request === 'function' ? mod : mod.default!;
}

/**
 * `url` checked as on this machine (src/core/loopback.ts: a loopback literal, or localhost resolved
 * once), and a dispatcher that connects to the checked addresses only, so a second DNS answer
 * cannot send the call elsewhere: what every sender to a loopback-only URL uses. The caller closes it.
 */
export async function connectToLoopback(url: string | URL, resolve?: Resolver): Promise<{ target: LoopbackTarget; dispatcher: Dispatcher }> {
  const target = await loopbackTarget(url, resolve);
  const { Agent } = await loadUndici();
  return { target, dispatcher: new Agent({ connect: { lookup: pinnedLookup(target) } }) };
}

/**
 * The client's transport through `dispatcher`; closing the dispatcher is its owner's business.
 * Each request is handed to `dispatcher.dispatch` with a handler that gathers the answer's bytes,
 * not to undici's `request()`, whose answer is a stream (with an async resource) read back whole
 * anyway: a minimal pipelined loop spent 21-27 µs of CPU a request so against 32-39 µs through
 * `request()` (30,000 deactivations, interleaved, 2026-11-24), and a bulk run's rows pay the same.
 */
export async function undiciTransport(dispatcher: Dispatcher, { pipelined = false } = {}): Promise<Transport> {
  // undici's default (true but for HEAD) keeps a connection to one request until its answer's
  // headers are in: a pipelined client lets the next ones go out behind it.
  const blocking = pipelined ? { blocking: false } : {};
  return {
    send: ({ url, method, headers, body, timeoutMs, signal }) => new Promise<TransportResponse>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const answer = new Answer(resolve, reject, signal);
      signal?.addEventListener('abort', answer, { once: true });
      try {
        dispatcher.dispatch({
          origin: url.origin, path: `${url.pathname}${url.search}`, method: method as Dispatcher.HttpMethod, headers, body,
          headersTimeout: timeoutMs, bodyTimeout: timeoutMs, ...blocking,
        }, answer);
      } catch (error) {
        // Options undici refuses (a header it cannot send): thrown here rather than handed to the handler.
        answer.finish(error);
      }
    }),
    close: async () => {},
  };
}

/** Aborted as `request()` is: with the signal's reason (an AbortError), or one of its own. */
function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? Object.assign(new Error('request aborted'), { name: 'AbortError' });
}

/**
 * One request's handler: gathers the answer, settles the request's promise once, and listens to
 * its abort signal (handleEvent). One object a request, where closures were six.
 */
class Answer implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private settled = false;
  private statusCode = 0;
  private headers: TransportResponse['headers'] = {};
  private readonly received = new OwnBody();

  constructor(
    private readonly resolve: (response: TransportResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
  ) {}

  finish(error: unknown, response?: TransportResponse): void {
    if (this.settled) return;
    this.settled = true;
    this.signal?.removeEventListener('abort', this);
    if (response) this.resolve(response);
    else this.reject(error);
  }

  /** The signal's abort. */
  handleEvent(): void {
    const reason = abortReason(this.signal);
    this.controller?.abort(reason as Error);
    this.finish(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(abortReason(this.signal) as Error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: TransportResponse['headers']): void {
    this.statusCode = statusCode;
    this.headers = headers;
    this.received.begin();
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.received.append(chunk);
  }

  onResponseEnd(): void {
    this.finish(undefined, { statusCode: this.statusCode, headers: this.headers, body: this.received.bytes() });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.finish(error);
  }
}
