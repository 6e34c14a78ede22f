// How cardctl loads undici: the one place that knows undici's file layout. Loaded on first
// request only, never on the start-up path.
//
// An API call needs an Agent and `request`. undici's index also evaluates fetch, WebSocket, the
// cookie, cache and mock modules and, through `globalThis.Headers`, Node's own copy of undici:
// 15-25 ms of every command that makes a request (BENCHMARKS.md, "One-request commands"), which
// scripts calling cardctl in a loop pay each time. So the two are loaded from their own files,
// which are not undici's public API: test/unit/undici-parts.test.ts fails when an undici upgrade
// moves or changes them. Their types are in undici-parts.d.ts.
import type { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';

/** undici's public index. It is CommonJS: once bundled, its exports may sit on `default`. */
export async function loadUndici(): Promise<typeof import('undici')> {
  const mod = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
  return typeof mod.request === 'function' ? mod : mod.default!;
}

/** A CommonJS module's single export, whether the loader put it on `default` or not. */
const single = <T>(mod: { default: T }): T => mod.default ?? (mod as unknown as T);

/**
 * The dispatcher class: undici's Agent from its own file, or, behind a proxy, EnvHttpProxyAgent
 * from the index (it calls the `connect` that the index puts on every dispatcher).
 */
export async function loadAgentClass(proxy: boolean): Promise<typeof Agent | typeof EnvHttpProxyAgent> {
  return proxy ? (await loadUndici()).EnvHttpProxyAgent : single(await import('undici/lib/dispatcher/agent.js'));
}

type RequestFunction = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
let requestFunction: Promise<RequestFunction> | undefined;

/**
 * `Dispatcher.prototype.request` from its own file: call it with the dispatcher as `this`. Looked
 * up once: a dynamic import() per request went through the module loader each time, for every
 * row of a bulk run.
 */
export function loadRequest(): Promise<RequestFunction> {
  requestFunction ??= import('undici/lib/api/api-request.js').then(single);
  return requestFunction;
}
