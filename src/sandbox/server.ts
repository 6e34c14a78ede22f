// The fastify application: validation, the error envelope, the request log, and one route
// plugin per resource (routes/), typed by the TypeBox type provider. Routes call the services
// (services/, switch/), which own the rules and transactions and throw DomainErrors;
// the error handler here is the one place those become HTTP errors. Responses are serialised
// with JSON.stringify: the response schemas on each route document the API (GET /openapi.json)
// and are checked by the tests.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { SandboxDeps } from './deps.js';
import { ApiError, DomainError, httpErrorOf } from './errors.js';
import { isWriteFailure, noteWriteFailure } from './store/db.js';
import { emptyFaultSpec, faultRoutes, installFaults, type FaultController, type FaultSpec } from './faults.js';
import { attachScopeCheck, discloseToReader } from './auth.js';
import { installIngress } from './ingress.js';
import { collectRoute, type RouteDoc } from './openapi.js';
import { cardRoutes } from './routes/cards.js';
import { importRoutes } from './routes/import.js';
import { oauthApplicationRoutes } from './routes/oauth-applications.js';
import { oauthTokenRoutes } from './routes/oauth-token.js';
import { openapiRoutes } from './routes/openapi.js';
import { sandboxRoutes } from './routes/sandbox.js';
import { transactionRoutes } from './routes/transactions.js';
import { userRoutes } from './routes/users.js';
import { inspectorRoutes } from './routes/inspector.js';
import type { InspectorOptions } from './services/inspector.js';
import { simulateRoutes } from './routes/simulate.js';
import { createSwitchRuntime } from './switch/runtime.js';
import { webhookExchangeRoutes } from './routes/webhook-exchanges.js';
import { cardPoolRoutes } from './routes/card-pool.js';
import { createValidatorCompiler, validationFailure } from './validation.js';
import { installDialect, queryFieldNamer } from './dialect.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/**
 * The request line and headers Node's HTTP server reads (its default: 16 KiB). Beyond it Node
 * answers a bare 431 before any route runs; up to it an over-long list filter gets the 400
 * naming the parameter and its bound.
 */
export const HEADER_LIMIT_BYTES = 256 * 1024;

export interface ServerOptions {
  /** One line per request (method, path, status, ms); never headers or bodies. */
  log?: (line: string) => void;
  /** Fault injection (off when absent; PUT /sandbox/faults changes it at runtime). */
  faults?: FaultSpec;
  /** Seed of the fault injector's generator (default 1). */
  faultsSeed?: number;
  /** The live inspector's token and subject (no inspector when absent). */
  inspector?: InspectorOptions;
}

/** A route as registered: method and fastify URL (`:param` form). */
export interface RegisteredRoute {
  method: string;
  url: string;
}

export interface SandboxServer {
  app: FastifyInstance;
  /** Every route registered, hidden ones (the inspector's) included: what the boundary tests sweep. */
  routes: readonly RegisteredRoute[];
  faults: FaultController;
  /** Resolves when no route handler is running (the store may be closed then). */
  whenIdle(): Promise<void>;
  /** How many route handlers are running now. */
  runningHandlers(): number;
}

export async function buildServer(deps: SandboxDeps, options: ServerOptions = {}): Promise<SandboxServer> {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    http: { maxHeaderSize: HEADER_LIMIT_BYTES },
    exposeHeadRoutes: false,
    return503OnClosing: true,
    // Node's server.close() closes the sockets idle at that moment, once (fastify 5.12 does not
    // call closeIdleConnections() itself for 'idle' unless there is a serverFactory). A keep-alive socket busy with a request then would stay open after its response
    // until keepAliveTimeout (72 s): the closing hooks below end those sockets.
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();
  const routes: RouteDoc[] = [];
  const registered: RegisteredRoute[] = [];
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => collectRoute(routes, route));
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) registered.push({ method, url: route.url });
  });
  // Every authenticated route requires its scope (src/sandbox/scopes.ts), checked after its authentication hook.
  app.addHook('onRoute', attachScopeCheck);
  // What a caller may read of an answer's webhook URLs depends on its scopes (auth.ts).
  app.addHook('preSerialization', discloseToReader);

  // Handlers still awaiting (a PIN hash, a webhook) when the server closes must not touch a
  // closed database: count them, and let close() wait for the count to reach zero.
  let running = 0;
  let idle: Array<() => void> = [];
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = async function trackedHandler(this: FastifyInstance, request, reply) {
      running++;
      try {
        return await handler.call(this, request, reply);
      } finally {
        if (--running === 0) { idle.forEach((resolve) => resolve()); idle = []; }
      }
    };
  });
  const whenIdle = () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve)));

  // Once close() has begun, requests that were already past routing finish, but their sockets
  // must not stay open for another request: the response says `Connection: close` (Node ends the
  // socket once it is written), and a socket whose response headers went out before closing
  // began is closed as soon as that response has finished.
  let closing = false;
  app.addHook('preClose', async () => { closing = true; });
  // Callback hooks, not async ones: they run on every request and must cost next to nothing.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing && !reply.raw.headersSent) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) app.server.closeIdleConnections();
    done();
  });

  // Bodies are JSON (and form fields at /oauth/token only): fastify's default text/plain
  // parser would let a text body reach validation instead of answering 415.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(createValidatorCompiler());
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  const errorFields = deps.dialect.errors;
  app.setErrorHandler((error: FastifyError | ApiError | DomainError, request, reply) => {
    // A database that cannot be written (full disk, read-only, I/O error): 503 with the reason,
    // and /sandbox/health says so until a write succeeds again.
    noteWriteFailure(deps.store.db, error);
    const apiError = isWriteFailure(error)
      ? new ApiError(503, 'STORAGE_UNAVAILABLE', `the sandbox cannot write its database: ${error.message} (${error.code}); GET /sandbox/health says when it can again`)
      : toApiError(error, queryFieldNamer(deps.dialect, request));
    if (apiError.statusCode >= 500) options.log?.(`error: ${request.method} ${pathOf(request.url)}: ${isWriteFailure(error) ? apiError.message : (error as Error).stack ?? error}`);
    if (apiError.code === 'RATE_LIMITED') reply.header('retry-after', '1');
    if (apiError.statusCode === 401) reply.header('www-authenticate', request.url.startsWith('/util/') ? 'ApiKey header="x-api-key"' : 'Bearer');
    return reply.code(apiError.statusCode).type('application/json').send(apiError.toBody(errorFields));
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new ApiError(404, 'NOT_FOUND', `no such endpoint: ${request.method} ${pathOf(request.url)}`);
    return reply.code(404).type('application/json').send(error.toBody(errorFields));
  });

  if (options.log) {
    const log = options.log;
    app.addHook('onResponse', async (request, reply) => {
      log(`${request.method} ${pathOf(request.url)} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`);
    });
  }

  // Who may talk to the sandbox, for every route and the 404 answer alike (ingress.ts): first of
  // the request hooks, so nothing else (an injected fault, authentication) answers a caller it refuses.
  installIngress(app, deps.settings);
  // Before the routes, so every route gets the hooks (exempt paths are skipped inside).
  const faults = installFaults(app, options.faults ?? emptyFaultSpec(), options.faultsSeed ?? 1, errorFields);
  // Also before the routes: their list queries are renamed as they are added.
  installDialect(app, deps.dialect);
  await app.register(faultRoutes, { controller: faults });

  await app.register(cardRoutes, deps);
  await app.register(transactionRoutes, deps);
  await app.register(oauthApplicationRoutes, deps);
  await app.register(userRoutes, deps);
  await app.register(importRoutes, deps);
  await app.register(oauthTokenRoutes, deps);
  // The switch's webhook pool, clock and background work live as long as the server.
  const switchRuntime = createSwitchRuntime(deps);
  app.addHook('onClose', () => switchRuntime.close());
  await app.register(simulateRoutes, { deps, runtime: switchRuntime });
  await app.register(webhookExchangeRoutes, { deps, runtime: switchRuntime });
  await app.register(cardPoolRoutes, { deps, runtime: switchRuntime });
  await app.register(sandboxRoutes, deps);
  if (options.inspector) await app.register(inspectorRoutes, { deps, runtime: switchRuntime, inspector: options.inspector });
  await app.register(openapiRoutes, { routes, deps });
  return { app, routes: registered, whenIdle, faults, runningHandlers: () => running };
}

/** The path alone: query strings may carry search terms and ids, so they stay out of the log. */
function pathOf(url: string): string {
  const question = url.indexOf('?');
  return question === -1 ? url : url.slice(0, question);
}

function toApiError(error: FastifyError | ApiError | DomainError, rename: ((field: string) => string) | undefined): ApiError {
  if (error instanceof DomainError) return httpErrorOf(error);
  if (error instanceof ApiError) return error;
  if (error.validation) return validationFailure(error.validation, error.validationContext, error.validationContext === 'querystring' ? rename : undefined);
  // A body too large (413) or of another media type (415) is answered by its status below.
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'VALIDATION_ERROR', error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
        ? 'body is empty although Content-Type is application/json'
        : 'body is not valid JSON', [{ field: 'body', message: 'is not valid JSON' }]);
  }
  if (error instanceof SyntaxError || (error as { statusCode?: number }).statusCode === 400 && /JSON/i.test(error.message)) {
    return new ApiError(400, 'VALIDATION_ERROR', 'body is not valid JSON', [{ field: 'body', message: 'is not valid JSON' }]);
  }
  const status = error.statusCode ?? 500;
  if (status === 415) return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'request bodies must be Content-Type: application/json');
  if (status === 413) return new ApiError(413, 'PAYLOAD_TOO_LARGE', `request body is larger than ${BODY_LIMIT_BYTES} bytes`);
  if (status >= 400 && status < 500) return new ApiError(status, status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR', error.message);
  return new ApiError(500, 'INTERNAL', 'internal sandbox error; the sandbox log on stderr has the details');
}
