// POST /institutions/{switch}/simulate — the switch simulator (see ../switch/service.ts), and
// GET /institutions/transactions/{id} — a sandbox extension the reference does not have
// (it only lists transactions); `cardctl tx show` uses it and falls back to scanning the list
// where a deployment answers 404 for the route.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Agent } from 'undici';
import { Envelope, SimulateBody, SimulateEnvelope, SwitchParams, Transaction } from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { transactionService } from '../services/transactions.js';
import { recoverAbandoned, simulate } from '../switch/service.js';
import { switchStore } from '../switch/store.js';
import { envelope } from './common.js';

const TransactionIdParams = Type.Object({ id: Type.String({ minLength: 1 }) });

export const simulateRoutes: FastifyPluginAsyncTypebox<SandboxDeps> = async (app, deps) => {
  const auth = requireBearer(deps);
  const transactions = transactionService(deps);
  // One keep-alive pool per server for webhook calls, closed with it.
  const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 128 });
  const switchDeps = { store: switchStore(deps.store), now: () => deps.clock.now(), webhook: { dispatcher } };
  app.addHook('onClose', async () => dispatcher.close());
  // Transactions a stopped sandbox left awaiting their answer fail (96) now rather than never.
  recoverAbandoned(switchDeps.store, deps.clock.now());

  app.post('/institutions/:switch/simulate', {
    onRequest: auth,
    schema: {
      summary: 'Simulate Switch Transaction', tags: ['simulate'], auth: 'bearer',
      description: 'Sandbox only. Builds an ISO 8583 request (authorization 0100, financial 0200, reversal 0420), runs the service checks '
        + '(unknown card 14, expired 54, card not active 62, channel disabled 57, daily amount limit 61, daily count limit 65, per card, '
        + 'channel and UTC day), then approves (responseMode `stub`, the default) or POSTs the message to the card program\'s '
        + 'webHookConfig.url (`forward`; signed with X-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>, and the '
        + 'secret in the webHookConfig.header header when set; 5 s for the whole exchange; a reply over 64 KiB is not read further; a reply '
        + 'that is not a 2xx application/json response message with a valid field 39, the response MTI and fields 2, 3, 4, 7, 11, 37, 41, 42, 49 '
        + 'and 90 of the request echoed unchanged fails the transaction with 96, the reason recorded on it). '
        + 'Answers 200 with status `success` (approved) or `failed` (declined or failed) and stores the Transaction. Reversing an unknown '
        + 'transaction is a 404; reversing a reversal, or a transaction still awaiting its webhook answer, declined or failed, being '
        + 'reversed or reversed, a 409. A reversal may be for part of what remains of its original (more than 0, at most the rest, in the '
        + "original's currency, else a 400): only that part goes back to the daily limits, and the original shows `remainingAmount` and "
        + 'stays pending/completed until the whole amount is reversed. A transaction a stopped sandbox left awaiting its answer for over '
        + '60 s fails with 96. Any `{switch}` segment is accepted.',
      params: SwitchParams,
      body: SimulateBody,
      response: { 200: SimulateEnvelope },
    },
  }, async (request) => simulate(switchDeps, principalOf(request).institutionId, request.body));

  app.get('/institutions/transactions/:id', {
    onRequest: auth,
    schema: {
      summary: 'Get Transaction (sandbox extension)', tags: ['transactions'], auth: 'bearer',
      description: 'Not in the reference, which only lists transactions: one transaction of the caller\'s institution by id. '
        + 'An unknown id (or another institution\'s) is a 404 whose message reads "transaction <id> not found".',
      params: TransactionIdParams,
      response: { 200: Envelope(Transaction) },
    },
  }, async (request) => envelope('Transaction retrieved successfully', transactions.get(principalOf(request).institutionId, request.params.id)));
};
