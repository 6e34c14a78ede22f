// The HTTP client: Node's http underneath, or undici behind a proxy or with a dispatcher handed
// in (tests' MockAgent); the API's envelope unwrapped in exactly one place, every failure turned
// into a typed CliError. It returns data and never prints (logging goes
// through the injected logger, which writes to stderr only when -v/--debug asked for it).
import type { Dispatcher } from 'undici';
import {
  AuthError,
  CliError,
  NetworkError,
  NotFoundError,
  RejectedError,
  ServerError,
  UsageError,
  exitCodeForStatus,
  ExitCode,
  forbiddenHint,
} from '../core/errors.js';
import { redactBodyText, redactHeaders, redactUrl } from '../core/redact.js';
import { isScope } from '../core/validate.js';
import { isMutation } from '../audit/mutation.js';
import { DryRunStop, describeDryRun, type DryRunRequest } from '../audit/dry-run.js';
import { maskCardData } from '../audit/mask.js';
import { bodyText } from './body.js';
import { DEFAULT_DIALECT, listOfPath, listQuery, readPath, type Dialect, type ListName } from './dialect.js';
import type { Transport, TransportResponse } from './node-http.js';
import { loadUndici, undiciTransport } from './undici.js';
import { isObject } from '../core/is-object.js';
import { LIST_BOUNDS } from './list-bounds.js';

/**
 * Milliseconds on a monotonic clock, for request durations. Not performance.now(): the first use
 * of the `performance` global loads perf_hooks (10 built-in modules, ~1.5 ms on Node 24).
 */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

export { loadUndici } from './undici.js';

/** Keep-alive connections per origin, at most. */
const CONNECTIONS = 64;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type AuthMode = 'bearer' | 'apiKey' | 'none';

/** A list's paging metadata: the page count and total where the dialect has them; page and limit when the body says. */
export interface Pagination {
  page?: number;
  limit?: number;
  total?: number;
  pages: number;
}

export interface ApiRequest {
  method: HttpMethod;
  /** Path relative to the base URL, e.g. `/institutions/cards`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Raw body text (already serialised), e.g. a form body for the token endpoint. */
  rawBody?: string;
  contentType?: string;
  /** Extra request headers (If-Match; `cardctl api -H`, already checked); the client's own headers win. */
  headers?: Record<string, string>;
  auth?: AuthMode;
  /** May this request be retried after a network error or 429/500/502/503/504? Defaults to GET only. */
  idempotent?: boolean;
  /**
   * Skip envelope unwrapping (token endpoint, simulator answers): false. 'any' (`cardctl api`):
   * an envelope is unwrapped, any other JSON is the data, a body that is not JSON comes back in
   * `raw` only (data undefined); error statuses are errors as always.
   */
  envelope?: boolean | 'any';
  signal?: AbortSignal;
  /** Why this mutation is made (a command's --reason): recorded with it in the audit journal. */
  reason?: string;
}

export interface ApiResponse<T = unknown> {
  status: number;
  /** The envelope's `data` (or the whole parsed body when `envelope: false`). */
  data: T;
  message?: string;
  pagination?: Pagination;
  /** The body exactly as received (for `-o raw`). */
  raw: string;
  headers: Record<string, string | string[] | undefined>;
  durationMs: number;
}

/** A page of a list as paginate() yields it: the answer, parsed and masked, and its records. */
export interface ListPageResponse<T> extends ApiResponse<T[]> {
  /** How many records the page holds. */
  count: number;
  /** What tells the first record apart, its id (else its whole text): paginate() compares it with the previous page's. */
  firstKey: string | undefined;
  /** The page's records (`data` when it is an array, else none). */
  records(): Iterable<T>;
}

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

/** One logical mutating request as the audit journal sees it: no headers, no bodies. */
export interface Exchange {
  method: HttpMethod;
  path: string;
  /** null when no answer arrived (network failure). */
  status: number | null;
  message: string;
  data?: unknown;
  durationMs: number;
  /** The request's reason, when it gave one. */
  reason?: string;
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
const MAX_RETRY_AFTER_MS = 60_000;

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
    const started = monotonicMs();
    const reason = req.reason ?? this.reason;
    const record = (status: number | null, message: string, data?: unknown) => {
      this.options.onExchange!({ method: req.method, path: req.path, status, message, data, durationMs: Math.round(monotonicMs() - started), reason });
    };
    try {
      const response = await this.exchange<T>(req);
      record(response.status, response.message ?? '', response.data);
      return response;
    } catch (error) {
      const failure = error instanceof CliError ? error : undefined;
      record(failure?.status ?? null, error instanceof Error ? error.message : String(error));
      throw error;
    }
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
      // Full card numbers never reach a command, whatever the server sends.
      return maskCardData(interpret<T>(req, response, this.dialect));
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
    const started = monotonicMs();
    let res: TransportResponse;
    try {
      res = await transport.send({ url, method: req.method, headers, body, timeoutMs: this.timeoutMs, signal: req.signal ?? this.options.signal });
    } catch (error) {
      if (!(req.signal ?? this.options.signal)?.aborted) this.stopPipelining();
      if (logger?.verboseEnabled) {
        const failure = toNetworkError(error, this.timeoutMs);
        logger.verbose(`${req.method} ${redactUrl(url)} → ${failure.code} (${Math.round(monotonicMs() - started)} ms)`);
      }
      throw error;
    }
    const durationMs = Math.round(monotonicMs() - started);
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

/** An answer as received, its text decoded when first read. */
class RawResponse {
  private decoded?: string;

  constructor(
    readonly status: number,
    readonly headers: Record<string, string | string[] | undefined>,
    /** The body's bytes as received. */
    readonly bytes: Buffer,
    readonly durationMs: number,
    readonly method: string,
    readonly url: URL,
    /** The bearer token the request carried (to tell a renewed token from the same one). */
    readonly token: string | undefined,
  ) {}

  /** The body as text (src/api/body.ts). */
  get text(): string {
    return (this.decoded ??= bodyText(this.bytes));
  }
}

/**
 * Turns a received response into data or a typed error: an error body's message, code and field
 * errors, and a list's paging metadata, are read where the dialect has them. Exported for the
 * fuzz tests.
 */
export function interpret<T>(
  req: Pick<ApiRequest, 'method' | 'path' | 'envelope'>,
  response: Pick<RawResponse, 'status' | 'text' | 'headers' | 'durationMs'>,
  dialect: Dialect = DEFAULT_DIALECT,
): ApiResponse<T> {
  const { status, text, headers, durationMs } = response;
  const where = `${req.method} ${req.path}`;
  let body: unknown;
  let parsed = false;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
      parsed = true;
    } catch {
      parsed = false;
    }
  }

  if (status >= 400) {
    const envelope = parsed && isObject(body) ? body : undefined;
    const message = errorMessage(envelope, dialect)
      ?? (envelope ? `HTTP ${status}, with no message at "${dialect.errors.message}" of the error body (errors.message)` : describeNonJson(status, text, headers));
    throw apiError(status, message, envelope, where, headers, dialect);
  }
  if (!parsed && req.envelope === 'any') return { status, data: undefined as T, raw: text, headers, durationMs };
  if (!parsed && (status === 204 || status === 205) && text.trim() === '') {
    // No Content is a complete answer, not a broken one.
    return { status, data: undefined as T, raw: text, headers, durationMs };
  }
  if (!parsed) {
    if (text.trim() === '') {
      throw new ServerError(`${where}: the server answered ${status} with an empty body`, {
        hint: 'check the base URL (`cardctl auth status`); a proxy may be answering instead of the API',
        status,
      });
    }
    throw notJson(where, status, text, headers);
  }
  if (req.envelope === false) {
    return { status, data: body as T, raw: text, headers, durationMs };
  }
  if (!isObject(body) || !('data' in body || 'statusCode' in body || 'message' in body)) {
    if (req.envelope === 'any') return { status, data: body as T, raw: text, headers, durationMs };
    throw new ServerError(`${where}: the response is not in the API's envelope ({statusCode, message, data})`, { status });
  }
  const envelopeStatus = typeof body.statusCode === 'number' ? body.statusCode : status;
  if (envelopeStatus >= 400) {
    // A 200 whose envelope carries an error: believe the envelope.
    const message = errorMessage(body, dialect) ?? `error ${envelopeStatus}`;
    throw apiError(envelopeStatus, message, body, where, headers, dialect);
  }
  if (body.statusCode !== undefined && typeof body.statusCode !== 'number') {
    throw new ServerError(`${where}: the envelope's statusCode is not a number`, { status });
  }
  if (body.message !== undefined && typeof body.message !== 'string') {
    throw new ServerError(`${where}: the envelope's message is not a string`, { status });
  }
  return {
    status,
    data: body.data as T,
    message: body.message as string | undefined,
    pagination: paginationOf(body, dialect.paging),
    raw: text,
    headers,
    durationMs,
  };
}

/**
 * A member of an error body: at the dialect's path, else where the default dialect has it (a
 * deployment's gateway or proxy may answer some errors in the default shape).
 */
function errorMember(envelope: Record<string, unknown> | undefined, dialect: Dialect, member: keyof Dialect['errors']): unknown {
  if (!envelope) return undefined;
  const value = readPath(envelope, dialect.errors[member]);
  return value !== undefined ? value : readPath(envelope, DEFAULT_DIALECT.errors[member]);
}

function errorMessage(envelope: Record<string, unknown> | undefined, dialect: Dialect): string | undefined {
  const message = errorMember(envelope, dialect, 'message');
  return typeof message === 'string' && message ? message : undefined;
}

/** The paging metadata of a list body, where the dialect has it; none in the short-page style. */
function paginationOf(body: Record<string, unknown>, paging: Dialect['paging']): Pagination | undefined {
  if (paging.style !== 'metadata') return undefined;
  const pages = readPath(body, paging.pages);
  if (typeof pages !== 'number') return undefined;
  const total = readPath(body, paging.total);
  // page and limit: beside the page count, where the default dialect has them.
  const parent = paging.pages.split('.').slice(0, -1).join('.');
  const beside = parent ? readPath(body, parent) : body;
  const number = (key: string) => (isObject(beside) && typeof beside[key] === 'number' ? beside[key] as number : undefined);
  return { page: number('page'), limit: number('limit'), total: typeof total === 'number' ? total : undefined, pages };
}

function apiError(
  status: number,
  message: string,
  envelope: Record<string, unknown> | undefined,
  where: string,
  headers: Record<string, string | string[] | undefined>,
  dialect: Dialect,
): CliError {
  const codeValue = errorMember(envelope, dialect, 'code');
  const code = typeof codeValue === 'string' ? codeValue : undefined;
  // Field errors and other details (e.g. a PIN_MISMATCH's attemptsLeft) may come together:
  // keep both then. Alone, each keeps its own shape (the field list, or the details object).
  const fieldValue = errorMember(envelope, dialect, 'fields');
  const fieldErrors = Array.isArray(fieldValue) ? (fieldValue as unknown[]) : undefined;
  const otherDetails = envelope?.details;
  const details = fieldErrors && isObject(otherDetails)
    ? { ...otherDetails, errors: fieldErrors }
    : fieldValue ?? otherDetails ?? undefined;
  const base = { status, code, details, apiMessage: message };
  const exitCode = exitCodeForStatus(status);
  if (exitCode === ExitCode.Auth) {
    if (status === 403) {
      const missingScope = requiredScopeOf(otherDetails);
      return new AuthError(`forbidden: ${message}`, { ...base, code: code ?? 'FORBIDDEN', missingScope, hint: forbiddenHint(missingScope) });
    }
    return new AuthError(`unauthorized: ${message}`, {
      ...base,
      code: code ?? 'UNAUTHORIZED',
      hint: 'your token is missing, expired or revoked: run `cardctl login` (or `cardctl auth status` to see which profile is used)',
    });
  }
  if (exitCode === ExitCode.NotFound) return new NotFoundError(`not found: ${message}`, { ...base, code: code ?? 'NOT_FOUND' });
  if (exitCode === ExitCode.Rejected) {
    // For callers with their own retry loop (cards create): how long the server asked to wait.
    const retryAfter = status === 429 ? retryAfterMs(headers['retry-after']) : undefined;
    return new RejectedError(`rejected (${status}): ${message}${fieldSummary(fieldErrors, message)}`, {
      ...base,
      code: code ?? (status === 429 ? 'RATE_LIMITED' : 'REJECTED'),
      retryAfterMs: retryAfter,
      hint: status === 429 ? `rate limited; try again${retryAfter ? ` in ${Math.ceil(retryAfter / 1000)} s` : ' later'}`
        : TOO_LARGE_STATUSES.has(status) ? `the request line or headers are larger than the server takes: shorten the filters (at most ${LIST_BOUNDS.maxText} characters each) or the path`
        : undefined,
    });
  }
  return new ServerError(`server error (${status}) on ${where}: ${message}`, {
    ...base,
    code: code ?? 'SERVER_ERROR',
    hint: 'the service failed; try again later, and rerun with -v to see each attempt',
  });
}

/** URI Too Long and Request Header Fields Too Large: answered by the HTTP server itself, with no body. */
const TOO_LARGE_STATUSES = new Set([414, 431]);

/**
 * The scope a 403 names in `details.requiredScope` (the sandbox does; other deployments may
 * not), when it is a well-formed scope: it goes into the hint.
 */
function requiredScopeOf(details: unknown): string | undefined {
  const scope = isObject(details) ? details.requiredScope : undefined;
  return typeof scope === 'string' && isScope(scope) ? scope : undefined;
}

/** Up to three field errors after the message, leaving out what the message already says. */
function fieldSummary(fieldErrors: unknown[] | undefined, message: string): string {
  if (!fieldErrors?.length) return '';
  const described = fieldErrors
    .filter((d): d is { field: string; message: string } => isObject(d) && typeof d.field === 'string')
    .map((d) => `${d.field} ${d.message}`);
  const news = described.filter((part) => !message.includes(part));
  if (news.length === 0) return '';
  const parts = news.slice(0, 3);
  const more = fieldErrors.length - (described.length - news.length) - parts.length;
  return ` [${parts.join('; ')}${more > 0 ? ` (+${more} more)` : ''}]`;
}

/** The error for an answer (or a record of a streamed page, `text`) that is not JSON. */
function notJson(where: string, status: number, text: string, headers: Record<string, string | string[] | undefined>): ServerError {
  return new ServerError(`${where}: the server answered ${status} with a body that is not JSON (${describeNonJson(status, text, headers)})`, {
    hint: 'check the base URL (`cardctl auth status`); a proxy or load balancer may be answering instead of the API',
    status,
  });
}

function describeNonJson(status: number, text: string, headers: Record<string, string | string[] | undefined>): string {
  const type = String(headers['content-type'] ?? '');
  if (text.trim() === '') return `HTTP ${status} with an empty body`;
  if (/html/i.test(type) || /^\s*</.test(text)) {
    const title = /<title>([^<]{0,80})<\/title>/i.exec(text)?.[1]?.trim();
    return `HTTP ${status}, an HTML page${title ? ` ("${title}")` : ''}`;
  }
  if (/^\s*[{[]/.test(text)) return `HTTP ${status} with truncated or invalid JSON`;
  return `HTTP ${status}: ${text.trim().slice(0, 80).replace(/\s+/g, ' ')}`;
}

export function toNetworkError(error: unknown, timeoutMs: number): CliError {
  if (error instanceof CliError) return error;
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err?.code ?? err?.cause?.code ?? '';
  const name = err?.name ?? '';
  if (name === 'AbortError') return new NetworkError('request aborted', { code: 'ABORTED', cause: error });
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || name === 'TimeoutError') {
    return new NetworkError(`no answer within ${Math.round(timeoutMs / 1000)} s (timeout)`, {
      code: 'TIMEOUT',
      hint: 'the service is slow or unreachable; raise --timeout or check your network and proxy',
      cause: error,
    });
  }
  if (code === 'ECONNREFUSED') return new NetworkError('connection refused', { code, hint: 'is the base URL right, and is the server running? (`cardctl auth status`)', cause: error });
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new NetworkError('host not found (DNS)', { code, hint: 'check the base URL and your DNS/proxy settings', cause: error });
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return new NetworkError('connection reset before an answer arrived', { code: 'ECONNRESET', cause: error });
  if (/CERT|SSL|TLS|self.signed|UNABLE_TO_VERIFY/i.test(`${code} ${err?.message ?? ''}`)) {
    return new NetworkError(`TLS verification failed: ${err?.message ?? code}`, {
      code: 'TLS',
      hint: 'if the server uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate',
      cause: error,
    });
  }
  return new NetworkError(`network error: ${err?.message ?? String(error)}`, { code: code || 'NETWORK', cause: error });
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

/** Parses Retry-After (seconds or an HTTP date) into milliseconds, capped. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(text);
  if (Number.isFinite(date)) return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
  return undefined;
}

/** Proxy settings from the environment (either case), or undefined when no proxy is set. */
export function proxySettings(env: Record<string, string | undefined>): { httpProxy?: string; httpsProxy?: string; noProxy?: string } | undefined {
  const httpProxy = env.HTTP_PROXY || env.http_proxy || undefined;
  const httpsProxy = env.HTTPS_PROXY || env.https_proxy || undefined;
  if (!httpProxy && !httpsProxy) return undefined;
  return { httpProxy, httpsProxy: httpsProxy ?? httpProxy, noProxy: env.NO_PROXY ?? env.no_proxy ?? '' };
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

export function parseBaseUrl(value: string, insecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`invalid base URL "${value}"`, { hint: 'use a full URL such as https://api.example.com' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`unsupported base URL scheme "${url.protocol}" (use https://)`);
  }
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname) && !insecure) {
    throw new UsageError(`refusing plain http:// to ${url.hostname}: tokens, API keys and PIN blocks would cross the network unencrypted`, {
      hint: 'use https://, or pass --insecure if you really mean it (e.g. a test host on a private network)',
    });
  }
  return url;
}



/**
 * Streams every page of a list endpoint (`path`, one of LIST_PATHS; `query` by the API's default
 * option names), as the client's dialect pages it: with `metadata`, up to the page count the
 * body gives (a body without one ends at the first page shorter than `limit`); with
 * `short-page`, up to the first page shorter than `limit`. A page that starts with the record
 * the previous page started with means the page parameter is not the deployment's: that stops
 * with an error naming the setting, rather than reading the same page forever. One page is
 * asked for at a time, once the caller is done with the one before, so memory holds one page.
 */
export async function* paginate<T>(
  client: ApiClient,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  limit = 100,
  signal?: AbortSignal,
): AsyncGenerator<ListPageResponse<T>> {
  const list = listOfPath(path);
  const names = (params: Record<string, unknown>) => (list ? listQuery(client.dialect, list, params) : params) as ApiRequest['query'];
  let previousFirst: string | undefined;
  for (let page = 1; ; page++) {
    const response = await client.request<T[]>({ method: 'GET', path, query: names({ ...query, page, limit }), signal });
    const records = Array.isArray(response.data) ? response.data : [];
    const firstKey = records.length > 0 ? recordKey(records[0]) : undefined;
    if (firstKey !== undefined && firstKey === previousFirst) throw pageNotFollowed(list, page);
    previousFirst = firstKey;
    yield { ...response, count: records.length, firstKey, records: () => records };
    const pages = response.pagination?.pages;
    if (pages !== undefined ? page >= pages : records.length < limit) return;
    if (records.length === 0) return;
  }
}

/** What tells records apart: the id, else the whole record. */
function recordKey(record: unknown): string {
  const id = isObject(record) ? record.id ?? record._id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : JSON.stringify(record);
}

function pageNotFollowed(list: ListName | undefined, page: number): ServerError {
  const setting = `params.${list ?? '<list>'}.page`;
  return new ServerError(`page ${page} of the list started with the same record as page ${page - 1}: the deployment does not take the page number as this profile sends it (${setting})`, {
    code: 'PAGING_MISMATCH',
    hint: `set the deployment's name for it with \`cardctl profile set ${setting} NAME\` (\`cardctl doctor --deployment\` checks every list setting)`,
  });
}
