// The exchange log (sandbox extension): every webhook call of the switch as recorded
// (../exchange-log.ts), and its replay (../switch/replay.ts). The institution's bearer token (who
// may call: ../ingress.ts); an institution sees only its own exchanges.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { Envelope, ListEnvelope, ListWebhookExchangesQuery, ReplayWebhookExchangeBody, WebhookExchange } from '../../api/schemas.js';
import { hasScope, principalOf, requireBearer } from '../auth.js';
import { REPLAY_ELSEWHERE_SCOPE } from '../scopes.js';
import type { SandboxDeps } from '../deps.js';
import { DomainError } from '../errors.js';
import { replayExchange } from '../switch/replay.js';
import type { SwitchRuntime } from '../switch/runtime.js';
import { envelope, listEnvelope, pagination, paging } from './common.js';

/** A page of an institution's exchanges in the list envelope (this route's answer, and the inspector's). */
export function listExchanges(deps: SandboxDeps, institutionId: string, query: Static<typeof ListWebhookExchangesQuery>) {
  const { page, limit, offset } = paging(query);
  const { transactionId, failed, since } = query;
  const listed = deps.exchanges.list({ institutionId, transactionId, failed, limit, offset, ...(since ? { since: new Date(since) } : {}) });
  return listEnvelope(deps.dialect, 'Webhook exchanges retrieved', listed.records, pagination(page, limit, listed.total));
}

const ExchangeParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const tags = ['sandbox'];

export const webhookExchangeRoutes: FastifyPluginAsyncTypebox<{ deps: SandboxDeps; runtime: SwitchRuntime }> = async (app, { deps, runtime }) => {
  const guard = requireBearer(deps);

  app.get('/sandbox/webhook-exchanges', {
    onRequest: guard,
    schema: {
      summary: 'List webhook exchanges (sandbox extension)', tags, auth: 'bearer',
      description: 'Every HTTP call of the switch to the webhook, newest first: the request as sent (signature and secret header redacted, '
        + 'card number masked, card secrets redacted), the reply (status, headers, body up to 64 KiB, masked), latency, the verdict '
        + '(accepted, refused, no-answer) and its reason, the faults injected, the attempt. Kept in memory, bounded in count and bytes '
        + '(`sandbox serve --exchanges-max`, `--exchanges-max-bytes`), the oldest dropped first; lost when the sandbox stops.',
      querystring: ListWebhookExchangesQuery,
      response: { 200: ListEnvelope(WebhookExchange) },
    },
  }, async (request) => listExchanges(deps, principalOf(request).institutionId, request.query));

  app.get('/sandbox/webhook-exchanges/:id', {
    onRequest: guard,
    schema: { summary: 'Get a webhook exchange (sandbox extension)', tags, auth: 'bearer', params: ExchangeParams, response: { 200: Envelope(WebhookExchange) } },
  }, async (request) => {
    const entry = deps.exchanges.get(principalOf(request).institutionId, request.params.id);
    if (!entry) throw new DomainError('not-found', `webhook exchange ${request.params.id} not found`);
    return envelope('Webhook exchange retrieved', entry.record);
  });

  app.post('/sandbox/webhook-exchanges/:id/replay', {
    onRequest: guard,
    preValidation: async (request) => { request.body ??= {}; },
    schema: {
      summary: 'Replay a webhook exchange (sandbox extension)', tags, auth: 'bearer',
      description: 'Sends the recorded request again as it was, signed afresh with the card program\'s current secret and scheme '
        + '(`keepTimestamp`: with the original\'s timestamp, which a handler checking freshness refuses once it is older than its '
        + 'tolerance), to the program\'s webhook or `to`. `to` other than the program\'s webhook also needs `read:card_program` (403 naming '
        + 'it), is on this machine unless the sandbox is published, and gets the signature but never the program\'s secret header. '
        + 'Answers 201 with the new exchange, linked by `replayOf`, whatever the webhook answered (its `verdict` says). No transaction or '
        + 'amount changes.',
      params: ExchangeParams,
      body: ReplayWebhookExchangeBody,
      response: { 201: Envelope(WebhookExchange) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request);
    const replayed = await replayExchange(runtime.deps, principal.institutionId, request.params.id, request.body, {
      allowRemote: deps.settings.allowRemoteSandboxHelpers, mayRedirect: hasScope(principal, REPLAY_ELSEWHERE_SCOPE),
    });
    return reply.code(201).send(envelope('Webhook exchange replayed', replayed));
  });
};
