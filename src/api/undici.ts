// How cardctl loads undici, the client's transport behind a proxy from the environment or with a
// dispatcher handed in (tests' MockAgent), and the HTTP library of the commands that need its
// own API (doctor, webhook listen, scenarios). Never on the start-up path: a plain request goes
// through node:http (src/api/node-http.ts), so undici's public index is all cardctl loads.
import type { Dispatcher } from 'undici';
import type { Transport, TransportResponse } from './node-http.js';

/** undici's public index. It is CommonJS: once bundled, its exports may sit on `default`. */
export async function loadUndici(): Promise<typeof import('undici')> {
  const mod = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
  return typeof mod.request === 'function' ? mod : mod.default!;
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
  const blocking = pipelined ? false : undefined;
  return {
    send: ({ url, method, headers, body, timeoutMs, signal }) => new Promise<TransportResponse>((resolve, reject) => {
      // Aborted as `request()` is: with the signal's reason (an AbortError), or one of its own.
      const abortReason = () => signal?.reason ?? Object.assign(new Error('request aborted'), { name: 'AbortError' });
      if (signal?.aborted) return reject(abortReason());
      let controller: Dispatcher.DispatchController | undefined;
      let settled = false;
      const onAbort = () => {
        const reason = abortReason();
        controller?.abort(reason);
        finish(reason);
      };
      const finish = (error: unknown, response?: TransportResponse) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        if (response) resolve(response);
        else reject(error);
      };
      let statusCode = 0;
      let responseHeaders: TransportResponse['headers'] = {};
      let chunks: Buffer[] = [];
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        dispatcher.dispatch({
        origin: url.origin, path: `${url.pathname}${url.search}`, method: method as Dispatcher.HttpMethod, headers, body,
          headersTimeout: timeoutMs, bodyTimeout: timeoutMs, ...(blocking === undefined ? {} : { blocking }),
        }, {
          onRequestStart(started) {
            controller = started;
            if (signal?.aborted) started.abort(abortReason());
          },
          onResponseStart(_controller, status, received) {
            statusCode = status;
            responseHeaders = received;
            chunks = [];
          },
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            finish(undefined, { statusCode, headers: responseHeaders, text: utf8Text(chunks) });
          },
          onResponseError(_controller, error) {
            finish(error);
          },
        });
      } catch (error) {
        // Options undici refuses (a header it cannot send): thrown here rather than handed to the handler.
        finish(error);
      }
    }),
    close: async () => {},
  };
}

/** The answer's bytes as text, a byte-order mark dropped (as undici's `body.text()` reads them). */
function utf8Text(chunks: Buffer[]): string {
  const buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const bom = buffer.length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf;
  return buffer.toString('utf8', bom ? 3 : 0);
}
