// How cardctl loads undici, the client's transport behind a proxy from the environment or with a
// dispatcher handed in (tests' MockAgent), and the HTTP library of the commands that need its
// own API (doctor, webhook listen, scenarios). Never on the start-up path: a plain request goes
// through node:http (src/api/node-http.ts), so undici's public index is all cardctl loads.
import type { Dispatcher } from 'undici';
import { beginWork } from '../core/tuning.js';
import type { Transport } from './node-http.js';

/** undici's public index. It is CommonJS: once bundled, its exports may sit on `default`. */
export async function loadUndici(): Promise<typeof import('undici')> {
  beginWork('undici');
  const mod = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
  return typeof mod.request === 'function' ? mod : mod.default!;
}

/** The client's transport through `dispatcher`; closing the dispatcher is its owner's business. */
export async function undiciTransport(dispatcher: Dispatcher, { pipelined = false } = {}): Promise<Transport> {
  const { request } = await loadUndici();
  // undici's default (true but for HEAD) keeps a connection to one request until its answer's
  // headers are in: a pipelined client lets the next ones go out behind it.
  const blocking = pipelined ? { blocking: false } : {};
  return {
    async send({ url, method, headers, body, timeoutMs, signal }) {
      const res = await request(url, {
        method: method as Dispatcher.HttpMethod, headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal, dispatcher, ...blocking,
      });
      return { statusCode: res.statusCode, headers: res.headers, text: await res.body.text() };
    },
    close: async () => {},
  };
}
