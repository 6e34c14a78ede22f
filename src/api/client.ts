// The HTTP client: requests, retries and the transport they take (Node's http underneath, or
// undici behind a proxy or with a dispatcher handed in: tests' MockAgent); every answer goes
// through interpret() (responses.ts), so each failure is a typed CliError. It returns data and never
// prints (logging goes through the injected logger, which writes to stderr only when -v/--debug
// asked for it).
import type { Dispatcher } from 'undici';
import { AuthError, CliError, UsageError } from '../core/errors.js';
import { redactBodyText, redactHeaders, redactUrl } from '../core/redact.js';
import { isMutation } from './mutation.js';
import { DryRunStop, describeDryRun, type DryRunRequest } from './dry-run.js';
import { maskCardData } from './mask.js';
import { parseBaseUrl } from './base-url.js';
import { DEFAULT_DIALECT, type Dialect } from './dialect.js';
import type { Transport, TransportResponse } from './node-http.js';
import type { ApiRequest, HttpMethod } from './request.js';
import { interpret, retryAfterMs, toNetworkError, type ApiResponse } from './responses.js';
import { loadUndici, undiciTransport } from './undici.js';
import { RawResponse } from './received.js';
import type { ExchangeFacts } from '../core/exchange-facts.js';

// What the rest of the CLI imports from the client, wherever it is defined.
export { loadUndici } from './undici.js';
export { parseBaseUrl } from './base-url.js';
export { interpret, retryAfterMs, toNetworkError } from './responses.js';
export type { ApiRequest, AuthMode, HttpMethod } from './request.js';
export type { ApiResponse, Pagination } from './responses.js';

/** Keep-alive connections per origin, at most. */
const CONNECTIONS = 64;

export interface HttpLogger {
  /** -v: one line per request. */
  verbose(line: string): void;
  /** --debug: headers and bodies, already redacted. */
  debug(line: string): void;
  readonly verboseEnabled: boolean;
  readonly debugEnabled: boolean;
}

export interface ClientOptions {
  baseUrl: string;
  /** Returns the bearer token, renewing it when needed; `force` after a 401. */
  getToken?: (force?: boolean) => Promise<string | undefined>;
  apiKey?: string;
  timeoutMs?: number;
  /** Retries after the first attempt, for idempotent requests. */
  retries?: number;
  /** Allow plain http:// to a non-loopback host. */
  insecure?: boolean;
  dispatcher?: Dispatcher;
  logger?: HttpLogger;
  userAgent?: string;
  /** Injectable sleep for tests (backoff, Retry-After). */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Aborts every request of this client (Ctrl-C). */
  signal?: AbortSignal;
  /** Where HTTPS_PROXY/HTTP_PROXY/NO_PROXY are read from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Called once per mutating request (after retries, success or failure), for the audit journal. */
  onExchange?: (exchange: Exchange) => void;
  /** --dry-run: mutations are shown through this callback and not sent (DryRunStop is thrown). */
  onDryRun?: (request: DryRunRequest) => void;
  /** How the deployment names list parameters, pages lists and shapes errors (default DEFAULT_DIALECT). */
  dialect?: Dialect;
}

/** How a run connects, whatever the base URL and credentials: what every client of one run shares. */
export type Connection = Pick<ClientOptions, 'timeoutMs' | 'retries' | 'insecure' | 'logger' | 'signal' | 'env' | 'userAgent'>;

/** One logical mutating request as the audit journal sees it (core/exchange-facts.ts), its method one of ours. */
export interface Exchange extends ExchangeFacts {
  method: HttpMethod;
}

/** What a caller found after a lost answer or a conflict (ApiClient.note): one journal line. */
export interface FoundNote {
  method: HttpMethod;
  path: string;
  /** `done`: the write had applied (its answer was lost); `already`: an earlier run's; `refused`: another's, nothing written. */
  outcome: 'done' | 'already' | 'refused';
  ids: string[];
  reference?: string;
  message?: string;
}

/**
 * Requests in flight on one connection of a pipelined client (pipelined()). Bulk deactivation at
 * --concurrency 8, on one connection instead of eight: 15% less CPU per row in the CLI (130 →
 * 113 µs, interleaved runs of 30,000 rows), and the server reads several requests at a time.
 */
const PIPELINE_DEPTH = 8;

// 500 too: a request that is safe to repeat loses nothing by asking again, and a proxy or a
// crashed worker answers 500 as often as 502.
const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

export class ApiClient {
  readonly baseUrl: URL;
  /** The deployment dialect: what the list functions and paginate() name and read. */
  readonly dialect: Dialect;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  /** The keep-alive pools, shared with the clients made by withReason. */
  private pool: { dispatcher?: Promise<Dispatcher>; transport?: Promise<Transport> } = {};
  /** Set by pipelined(): requests in flight its pool is made for, and the pool it falls back on. */
  private pipelinedInFlight?: number;
  private plainPool?: { dispatcher?: Promise<Dispatcher>; transport?: Promise<Transport> };
  /** The reason every mutation of this client carries unless the request gives its own. */
  private reason?: string;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = parseBaseUrl(options.baseUrl, options.insecure ?? false);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 2;
    this.sleep = options.sleep ?? ((ms) => abortableDelay(ms, options.signal));
    this.random = options.random ?? Math.random;
    this.dialect = options.dialect ?? DEFAULT_DIALECT;
  }

  /** An undici keep-alive pool for this client's settings (proxy-aware), for callers that need undici itself. */
  dispatcher(): Promise<Dispatcher> {
    this.pool.dispatcher ??= (async () => {
      if (this.options.dispatcher) return this.options.dispatcher;
      // Custom CAs: undici connects through node:tls, whose default trust store already holds
      // NODE_EXTRA_CA_CERTS (read by Node at start-up), so no `connect.ca` is needed.
      const pipelined = this.pipelinedInFlight;
      const common = pipelined === undefined
        ? { connect: { timeout: this.timeoutMs }, keepAliveTimeout: 10_000, connections: CONNECTIONS }
        : { connect: { timeout: this.timeoutMs }, keepAliveTimeout: 10_000, connections: Math.ceil(pipelined / PIPELINE_DEPTH), pipelining: PIPELINE_DEPTH };
      const proxy = proxySettings(this.options.env ?? process.env);
      const { Agent, EnvHttpProxyAgent } = await loadUndici();
      return proxy ? new EnvHttpProxyAgent({ ...common, ...proxy }) : new Agent(common);
    })();
    return this.pool.dispatcher;
  }

  /**
   * How this client's requests travel: undici where its features are needed (a proxy from the
   * environment, a dispatcher handed in, pipelining), else Node's own http (src/api/node-http.ts
   * says why).
   */
  private transport(): Promise<Transport> {
    const pipelined = this.pipelinedInFlight !== undefined;
    this.pool.transport ??= pipelined || this.options.dispatcher || proxySettings(this.options.env ?? process.env)
      ? this.dispatcher().then((dispatcher) => undiciTransport(dispatcher, { pipelined }))
      : import('./node-http.js').then(({ nodeTransport }) => nodeTransport(this.baseUrl, CONNECTIONS));
    return this.pool.transport;
  }

  async close(): Promise<void> {
    if (this.pool.transport) await (await this.pool.transport).close();
    if (this.pool.dispatcher && !this.options.dispatcher) await (await this.pool.dispatcher).close();
  }

  /**
   * This client for the calls of a command that says why it changes something (--reason):
   * each mutation it sends carries the reason to the audit journal. Same settings and connection
   * pool; this client is left as it was.
   */
  withReason(reason: string | undefined): ApiClient {
    const scoped = new ApiClient(this.options);
    scoped.pool = this.pool;
    scoped.pipelinedInFlight = this.pipelinedInFlight;
    scoped.plainPool = this.plainPool;
    scoped.reason = reason;
    return scoped;
  }

  /**
   * This client for putting back what a run changed once it was interrupted (Ctrl-C, SIGTERM,
   * SIGHUP): the same settings and credentials, but not bound to the run's signal, which has
   * fired; its own pool (the run's may hold aborted connections); one attempt bounded by
   * `timeoutMs`, so it ends before the process is made to. Close it when done.
   */
  forCleanup(timeoutMs: number): ApiClient {
    return new ApiClient({ ...this.options, signal: undefined, timeoutMs: Math.min(timeoutMs, this.timeoutMs), retries: 0 });
  }

  /**
   * This client for many idempotent requests sent at once (`inFlight` at a time, as the bulk
   * status changes send them), pipelined: up to PIPELINE_DEPTH share a connection, each sent
   * without waiting for the answers before it. A connection lost with several in flight fails
   * them all and each is sent again, so only requests that are safe to repeat go through it
   * (undici never pipelines one that is not idempotent anyway). Its own pool; same settings.
   * After the first connection lost or answer timed out, it sends like the plain client: on a
   * service that drops or holds answers, one of them would hold up every request behind it on
   * its connection (2,000 deactivations under the sandbox's faults took 20 s pipelined
   * throughout, 10.7 s plain).
   */
  pipelined(inFlight: number): ApiClient {
    const scoped = new ApiClient(this.options);
    scoped.reason = this.reason;
    scoped.pipelinedInFlight = inFlight;
    scoped.plainPool = this.pool;
    return scoped;
  }

  /** A pipelined client from now on sends like the plain one (its pool closes once its requests are done). */
  private stopPipelining(): void {
    if (this.pipelinedInFlight === undefined || !this.plainPool) return;
    const pipelinedPool = this.pool;
    this.pipelinedInFlight = undefined;
    this.pool = this.plainPool;
    // A dispatcher given in the options (tests) is the caller's to close.
    if (!this.options.dispatcher) void pipelinedPool.dispatcher?.then((dispatcher) => dispatcher.close()).catch(() => undefined);
  }

  url(path: string, query?: ApiRequest['query']): URL {
    if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
      // Credentials must only ever go to the configured base URL.
      throw new UsageError(`request path must be relative to the base URL, not "${path}"`);
    }
    const base = this.baseUrl.href.endsWith('/') ? this.baseUrl.href : `${this.baseUrl.href}/`;
    const url = new URL(path.replace(/^\/+/, ''), base);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
    }
    return url;
  }

  /**
   * One GET answered as is: status and body text, no envelope, no error thrown for a 4xx or 5xx,
   * no retry (a network failure is thrown as undici's error: toNetworkError explains it). For
   * `doctor --deployment`, which reads the bodies the API's own calls would refuse.
   */
  async getAsIs(path: string, query?: ApiRequest['query'], signal?: AbortSignal): Promise<{ status: number; text: string }> {
    const { status, text } = await this.send({ method: 'GET', path, query, signal });
    return { status, text };
  }

  /** Sends a request (retrying where safe); mutations are journalled, or only shown under --dry-run. */
  async request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    if (!isMutation(req.method, req.path)) return this.exchange<T>(req);
    if (this.options.onDryRun) {
      const shown = describeDryRun(req.method, this.url(req.path, req.query), req.body, req.rawBody);
      this.options.onDryRun(shown);
      throw new DryRunStop(shown);
    }
    if (!this.options.onExchange) return this.exchange<T>(req);
    const started = performance.now();
    const reason = req.reason ?? this.reason;
    const { ids, reference } = namedByBody(req.body);
    const record = (phase: 'intent' | 'outcome', status: number | null, message: string, data?: unknown) => {
      this.options.onExchange!({ method: req.method, path: req.path, status, message, data, durationMs: Math.round(performance.now() - started), reason, phase, ids, reference });
    };
    // The intent first: a write whose answer never comes (a crash, SIGKILL) is still in the journal.
    record('intent', null, 'sending');
    try {
      const response = await this.exchange<T>(req);
      record('outcome', response.status, response.message ?? '', response.data);
      return response;
    } catch (error) {
      const failure = error instanceof CliError ? error : undefined;
      if (!(req.conflictNoted && failure?.status === 409)) record('outcome', failure?.status ?? null, error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  /** Journals what a look-up after a lost answer or a conflict found (nothing is sent). */
  note(found: FoundNote): void {
    const message = found.message ?? (found.outcome === 'done' ? 'applied; its answer was lost, found by a look-up' : found.outcome === 'already' ? 'already there' : 'refused');
    this.options.onExchange?.({ method: found.method, path: found.path, status: null, message, durationMs: 0, reason: this.reason, phase: 'found', ids: found.ids, reference: found.reference });
  }

  private async exchange<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    const idempotent = req.idempotent ?? req.method === 'GET';
    let renewedAfter401 = false;
    for (let attempt = 0; ; attempt++) {
      let response: RawResponse;
      try {
        response = await this.send(req);
      } catch (error) {
        const failure = toNetworkError(error, this.timeoutMs);
        if (idempotent && attempt < this.retries && !req.signal?.aborted && !this.options.signal?.aborted) {
          await this.backoff(attempt, undefined, `${failure.message}`);
          continue;
        }
        throw failure;
      }
      if (response.status === 401 && !renewedAfter401 && (req.auth ?? 'bearer') === 'bearer' && this.options.getToken) {
        // A token that expired early, or was revoked: renew once (client credentials) and retry.
        // A static token (profile, CARDCTL_TOKEN) comes back unchanged: no point asking again.
        const renewed = await this.options.getToken(true).catch(() => undefined);
        if (renewed && renewed !== response.token) {
          renewedAfter401 = true;
          attempt--;
          continue;
        }
      }
      if (RETRYABLE_STATUS.has(response.status) && idempotent && attempt < this.retries) {
        await this.backoff(attempt, retryAfterMs(response.headers['retry-after']), `HTTP ${response.status}`);
        continue;
      }
      // Full card numbers never reach a command, whatever the server sends (but the card pool, see ApiRequest).
      const answer = interpret<T>(req, response, this.dialect);
      return req.clearCardData ? answer : maskCardData(answer);
    }
  }

  /** Retries after the first attempt (--retries, 0 with --no-retry), for callers with their own retry loop. */
  get retryLimit(): number {
    return this.retries;
  }

  /** The wait before retry `attempt + 2` (jittered backoff, or Retry-After), for callers with their own retry loop. */
  pause(attempt: number, retryAfter: number | undefined, why: string): Promise<void> {
    return this.backoff(attempt, retryAfter, why);
  }

  private async backoff(attempt: number, retryAfter: number | undefined, why: string) {
    // Full jitter: a random wait up to 250 ms × 2^attempt, capped at 5 s; Retry-After wins when given.
    const ms = retryAfter ?? Math.round(this.random() * Math.min(5_000, 250 * 2 ** attempt));
    this.options.logger?.verbose(`retrying in ${ms} ms after ${why} (attempt ${attempt + 2} of ${this.retries + 1})`);
    await this.sleep(ms);
    // Ctrl-C during the wait: stop here rather than send another attempt.
    this.options.signal?.throwIfAborted();
  }

  private async send(req: ApiRequest): Promise<RawResponse> {
    const url = this.url(req.path, req.query);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...req.headers,
      'user-agent': this.options.userAgent ?? 'cardctl',
    };
    const auth = req.auth ?? 'bearer';
    let token: string | undefined;
    if (auth === 'bearer') {
      token = await this.options.getToken?.();
      if (!token) {
        throw new AuthError('not logged in: no access token for this profile', {
          hint: 'run `cardctl login`, or set CARDCTL_TOKEN',
        });
      }
      headers.authorization = `Bearer ${token}`;
    } else if (auth === 'apiKey') {
      if (!this.options.apiKey) {
        throw new AuthError('no API key for this profile', {
          hint: 'run `cardctl login --api-key-stdin`, or set CARDCTL_API_KEY',
        });
      }
      headers['x-api-key'] = this.options.apiKey;
    }
    let body: string | undefined;
    if (req.rawBody !== undefined) {
      body = req.rawBody;
      headers['content-type'] = req.contentType ?? 'application/x-www-form-urlencoded';
    } else if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }

    const logger = this.options.logger;
    if (logger?.debugEnabled) {
      logger.debug(`> ${req.method} ${redactUrl(url)}`);
      for (const [name, value] of Object.entries(redactHeaders(headers))) logger.debug(`> ${name}: ${value}`);
      if (body !== undefined) logger.debug(`> ${redactBodyText(body)}`);
    }
    const transport = await this.transport();
    const started = performance.now();
    let res: TransportResponse;
    try {
      res = await transport.send({ url, method: req.method, headers, body, timeoutMs: this.timeoutMs, signal: req.signal ?? this.options.signal });
    } catch (error) {
      if (!(req.signal ?? this.options.signal)?.aborted) this.stopPipelining();
      if (logger?.verboseEnabled) {
        const failure = toNetworkError(error, this.timeoutMs);
        logger.verbose(`${req.method} ${redactUrl(url)} → ${failure.code} (${Math.round(performance.now() - started)} ms)`);
      }
      throw error;
    }
    const durationMs = Math.round(performance.now() - started);
    const response = new RawResponse(res.statusCode, res.headers, res.body, durationMs, req.method, url, token);
    if (logger?.verboseEnabled) logger.verbose(`${req.method} ${redactUrl(url)} → ${res.statusCode} (${durationMs} ms)`);
    if (logger?.debugEnabled) {
      logger.debug(`< HTTP ${res.statusCode}`);
      for (const [name, value] of Object.entries(redactHeaders(res.headers))) logger.debug(`< ${name}: ${value}`);
      if (response.text) logger.debug(`< ${redactBodyText(response.text)}`);
    }
    return response;
  }
}

function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Proxy settings from the environment (either case), or undefined when no proxy is set. */
export function proxySettings(env: Record<string, string | undefined>): { httpProxy?: string; httpsProxy?: string; noProxy?: string } | undefined {
  const httpProxy = env.HTTP_PROXY || env.http_proxy || undefined;
  const httpsProxy = env.HTTPS_PROXY || env.https_proxy || undefined;
  if (!httpProxy && !httpsProxy) return undefined;
  return { httpProxy, httpsProxy: httpsProxy ?? httpProxy, noProxy: env.NO_PROXY ?? env.no_proxy ?? '' };
}

/** The ids and reference a request's body names: a simulation's card, a create's reference. */
function namedByBody(body: unknown): { ids?: string[]; reference?: string } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const record = body as Record<string, unknown>;
  const ids = typeof record.cardId === 'string' && record.cardId ? [record.cardId] : undefined;
  const reference = typeof record.referenceCode === 'string' && record.referenceCode ? record.referenceCode : undefined;
  return { ...(ids ? { ids } : {}), ...(reference ? { reference } : {}) };
}
