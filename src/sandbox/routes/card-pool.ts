// POST /sandbox/card-pool (sandbox extension): the test cards of a load run in the clear, for
// `simulate load --export artillery` (../switch/card-pool.ts). Who may call: ../ingress.ts; the
// institution's bearer token holding read:card_program (scopes.ts): the scope that reads the
// card programs' webhook settings, without which no full card number leaves the sandbox.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CardPool, CardPoolBody, Envelope } from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { cardPool } from '../switch/card-pool.js';
import type { SwitchRuntime } from '../switch/runtime.js';
import { envelope } from './common.js';

export const cardPoolRoutes: FastifyPluginAsyncTypebox<{ deps: SandboxDeps; runtime: SwitchRuntime }> = async (app, { deps, runtime }) => {
  app.post('/sandbox/card-pool', {
    onRequest: requireBearer(deps),
    schema: {
      summary: 'The test cards of a load run, in the clear (sandbox extension)', tags: ['sandbox'], auth: 'bearer',
      description: 'For `simulate load --export artillery`: each card as the switch puts it into a webhook message (PAN, expiry YYMM, '
        + 'service code, account), in the order given, and the webhook settings of their card programs without the secrets. '
        + 'Needs read:card_program, the scope that reads a program\'s webhook settings: full card numbers go only to a caller '
        + 'that may already read where and how they are sent. An unknown card is a 404.',
      body: CardPoolBody,
      response: { 200: Envelope(CardPool) },
    },
  }, async (request) => envelope('Card pool retrieved', cardPool(runtime.deps.store, principalOf(request).institutionId, request.body.cardIds)));
};
