// The live inspector (loopback only: ../ingress.ts; behind the token of the link `sandbox serve` prints): its
// page and assets, its event stream, and the reads and the replay the page makes. The page reads
// transactions, lifecycles and the exchange log from what their routes call (no injected faults:
// /institutions/* may have them), in the inspected institution's name, so the page answers
// exactly what `cardctl webhook exchanges` and `webhook replay` would.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListWebhookExchangesQuery } from '../../api/schemas.js';
import type { onRequestHookHandler } from 'fastify';
import type { SandboxDeps } from '../deps.js';
import { ApiError, unauthenticated } from '../errors.js';
import { INSPECTOR_ASSETS, INSPECTOR_PAGE } from '../inspector/assets.js';
import { INSPECTOR_LIMITS, createInspectorFeed, inspectorView, type InspectorOptions } from '../services/inspector.js';
import { transactionService } from '../services/transactions.js';
import { lifecycleOf } from '../switch/lifecycle.js';
import { replayExchange } from '../switch/replay.js';
import type { SwitchRuntime } from '../switch/runtime.js';
import { switchStore } from '../switch/store.js';
import { envelope } from './common.js';
import { listExchanges } from './webhook-exchanges.js';

/** The page and its assets: nothing but this origin, never framed, no referrer (the link has the token). */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
const hide = true;
const RecentQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const ExchangesQuery = Type.Composite([ListWebhookExchangesQuery, Type.Object({ token: Type.Optional(Type.String()) })], { additionalProperties: false });

export const inspectorRoutes: FastifyPluginAsyncTypebox<{ deps: SandboxDeps; runtime: SwitchRuntime; inspector: InspectorOptions }> = async (app, { deps, runtime, inspector }) => {
  const { access, subject } = inspector;
  const limits = inspector.limits ?? INSPECTOR_LIMITS;
  const transactions = transactionService(deps);
  const store = switchStore(deps.store);
  const feed = createInspectorFeed(deps.events, {
    transaction: (transaction) => transaction.institution.id === subject.institutionId,
    exchange: (exchange) => exchange.cardId === null || deps.store.cards.get(subject.institutionId, exchange.cardId) !== undefined,
  }, limits);
  app.addHook('preClose', async () => feed.close());

  // The page and the event stream carry the token in the query (a link; EventSource sends no
  // headers), the page's reads in x-inspector-token. The request log prints paths only.
  const token: onRequestHookHandler = async (request) => {
    if (!access.admits(request.headers['x-inspector-token'] ?? queryToken(request.url))) {
      throw unauthenticated('the inspector needs the token of the link `cardctl sandbox serve` printed');
    }
  };
  const guarded = { onRequest: token };
  // Every JSON answer of the inspector is disclosed by the one rule (inspectorView), whichever
  // route wrote it and however (an object, or the stored records' text).
  app.addHook('onSend', async (_request, reply, payload) => {
    if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
    const parsed: unknown = JSON.parse(payload);
    const shown = JSON.stringify(inspectorView(parsed));
    return shown === JSON.stringify(parsed) ? payload : shown;
  });

  app.get('/sandbox/inspector', { schema: { hide } }, async (request, reply) => {
    reply.headers(PAGE_HEADERS);
    if (!access.admits(queryToken(request.url))) {
      return reply.code(401).type('text/plain; charset=utf-8').send('401 Unauthorized: open the inspector with the link `cardctl sandbox serve` printed (it carries the token).\n');
    }
    return reply.type('text/html; charset=utf-8').send(INSPECTOR_PAGE);
  });

  // The assets are the same for everyone and hold no data: no token.
  for (const asset of INSPECTOR_ASSETS) {
    app.get(`/sandbox/inspector/${asset.name}`, { schema: { hide } }, async (_request, reply) => reply.headers(PAGE_HEADERS).type(asset.type).send(asset.text));
  }

  app.get('/sandbox/inspector/events', { ...guarded, schema: { hide } }, async (_request, reply) => {
    if (!feed.accepts()) throw new ApiError(429, 'RATE_LIMITED', `at most ${limits.maxStreams} inspector pages may be open at once`);
    // The stream outlives the handler: fastify lets go of the response, the feed ends it.
    reply.hijack();
    feed.open(reply.raw);
  });

  app.get('/sandbox/inspector/transactions', { ...guarded, schema: { hide, querystring: RecentQuery } }, async (request) => {
    const listed = transactions.list({ institutionId: subject.institutionId, limit: request.query.limit ?? 50, offset: 0 });
    return { data: listed.records, total: listed.total };
  });

  app.get('/sandbox/inspector/transactions/:id/lifecycle', { ...guarded, schema: { hide, params: IdParams } }, async (request) => ({
    data: lifecycleOf(store, subject.institutionId, request.params.id),
  }));

  // The exchange log's own query, and the link's token beside it (the inspector's, not the log's).
  app.get('/sandbox/inspector/webhook-exchanges', { ...guarded, schema: { hide, querystring: ExchangesQuery } }, async (request) => {
    const { token: _token, ...query } = request.query;
    return listExchanges(deps, subject.institutionId, query);
  });
  // A replay goes only to the program's webhook: no `to` here.
  app.post('/sandbox/inspector/webhook-exchanges/:id/replay', {
    ...guarded,
    preValidation: async (request) => { request.body ??= {}; },
    schema: { hide, params: IdParams, body: Type.Object({ keepTimestamp: Type.Optional(Type.Boolean()) }, { additionalProperties: false }) },
  }, async (request, reply) => {
    const replayed = await replayExchange(runtime.deps, subject.institutionId, request.params.id, request.body, { allowRemote: false, mayRedirect: false });
    return reply.code(201).send(envelope('Webhook exchange replayed', replayed));
  });
};

/** The `token` query parameter of a URL (before the route's schema has run). */
function queryToken(url: string): string | null {
  const question = url.indexOf('?');
  return question === -1 ? null : new URLSearchParams(url.slice(question)).get('token');
}

