// POST /institutions/{switch}/simulate — the switch simulator (see ../switch/simulate.ts), and
// GET /institutions/transactions/{id} — a sandbox extension the reference does not have
// (it only lists transactions); `cardctl tx show` uses it and falls back to scanning the list
// where a deployment answers 404 for the route. Then the lifecycle extensions (docs/switch.md):
// lifecycle messages, repeats, expiry and the switch's clock, advice delivery, a transaction's
// lifecycle, and the faults on the webhook path. What runs behind them (the webhook pool, the
// clock, retries) is the switch runtime (../switch/runtime.ts), which the server owns.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { Envelope, Lifecycle, LifecycleBody, ResponseMode, SimulateBody, SimulateEnvelope, SwitchParams, Transaction } from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { DomainError } from '../errors.js';
import { transactionService } from '../services/transactions.js';
import { deliverPendingAdvices } from '../switch/advices.js';
import { expireHold } from '../switch/expiry.js';
import { lifecycleOf } from '../switch/lifecycle.js';
import { simulateRepeat } from '../switch/repeats.js';
import type { SwitchRuntime } from '../switch/runtime.js';
import { simulate, simulateLifecycle } from '../switch/simulate.js';
import type { WebhookFaultScope } from '../switch/webhook-faults.js';
import { envelope } from './common.js';

const TransactionIdParams = Type.Object({ id: Type.String({ minLength: 1 }) });

export const simulateRoutes: FastifyPluginAsyncTypebox<{ deps: SandboxDeps; runtime: SwitchRuntime }> = async (app, { deps, runtime }) => {
  const auth = requireBearer(deps);
  const transactions = transactionService(deps);
  const switchDeps = runtime.deps;
  const tags = ['sandbox'];

  app.post('/institutions/:switch/simulate', {
    onRequest: auth,
    schema: {
      summary: 'Simulate Switch Transaction', tags: ['simulate'], auth: 'bearer',
      description: 'Sandbox only. Builds an ISO 8583 request (authorization 0100, financial 0200, reversal 0420), runs the service checks '
        + '(unknown card 14, expired 54, card not active 62, channel disabled 57, daily amount limit 61, daily count limit 65, per card, '
        + 'channel and UTC day), then approves (responseMode `stub`, the default) or POSTs the message to the card program\'s '
        + 'webHookConfig.url (`forward`; signed in the scheme of webHookConfig.type: X-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, '
        + 't + "." + body)> for `http`, the Standard Webhooks headers for `standard-webhooks` (docs/webhook-protocol.md), and the '
        + 'secret in the webHookConfig.header header when set; 5 s for the whole exchange; a reply over 64 KiB is not read further; a reply '
        + 'that is not a 2xx application/json response message with a valid field 39, the response MTI and fields 2, 3, 4, 7, 11, 37, 41, 42, 49 '
        + 'and 90 of the request echoed unchanged fails the transaction with 96, the reason recorded on it; a reversal without such a reply '
        + 'stands instead: the network approves it in stand-in and repeats it as 0421 until the webhook acknowledges it). '
        + 'Answers 200 with status `success` (approved) or `failed` (declined or failed) and stores the Transaction. Reversing an unknown '
        + 'transaction is a 404; reversing a reversal, or a transaction still awaiting its webhook answer, declined or failed, being '
        + 'reversed or reversed, a 409. A reversal may be for part of what remains of its original (more than 0, at most the rest, in the '
        + "original's currency, else a 400); the rest is what the original authorized less what was released and refunded. Only that part "
        + 'goes back to the daily limits (per currency), and the original shows `remainingAmount` and stays pending/completed until the whole '
        + 'amount is reversed. A balance inquiry has amount 0; a malformed field 4 in `overrides` is a 400; overrides never change which '
        + 'rules apply. A transaction a stopped sandbox left awaiting its answer for over '
        + '60 s fails with 96. Any `{switch}` segment is accepted.',
      params: SwitchParams,
      body: SimulateBody,
      response: { 200: SimulateEnvelope },
    },
  }, async (request) => simulate(switchDeps, principalOf(request).institutionId, request.body));

  app.post('/sandbox/switch/messages', {
    onRequest: auth,
    schema: {
      summary: 'Simulate a lifecycle message (sandbox extension)', tags, auth: 'bearer',
      description: 'Not in the reference. `increment` (0100 with field 90) raises the hold of an approved authorization; `completion` '
        + '(0220, an advice) captures an authorization for its amount, less (the rest released) or more (over-clearing, at most 20% over '
        + 'what it holds); `refund` (0200, processing code 200000) of a purchase only, refunds and reversals together never more than it '
        + 'captured (400); `advice` (0120) records an authorization '
        + 'the network already decided (`networkResponseCode`, default 00): the webhook acknowledges it and cannot decline it. Increments '
        + 'and refunds are checked like a simulate request (card, expiry, status, channel, limits); advices are not (the network decided). '
        + 'The answer has the shape of the simulate answer.',
      body: LifecycleBody,
      response: { 200: SimulateEnvelope },
    },
  }, async (request) => simulateLifecycle(switchDeps, principalOf(request).institutionId, request.body));

  app.post('/sandbox/transactions/:id/repeat', {
    onRequest: auth,
    schema: {
      summary: 'Repeat a message (sandbox extension)', tags, auth: 'bearer',
      description: 'The network resends the message (0101, 0201, 0421, …; same STAN and RRN) because it did not see the answer. The '
        + 'sandbox answers as the first time: no second hold, same outcome. In forward mode the webhook gets the repeat; whether its '
        + 'answer agreed with its first is recorded in the transaction\'s `repeats`.',
      params: TransactionIdParams,
      body: Type.Object({ responseMode: Type.Optional(ResponseMode) }, { additionalProperties: false }),
      response: { 200: SimulateEnvelope },
    },
    preValidation: async (request) => { request.body ??= {}; },
  }, async (request) => simulateRepeat(switchDeps, principalOf(request).institutionId, request.params.id, request.body.responseMode ?? 'stub'));

  app.post('/sandbox/transactions/:id/expire', {
    onRequest: auth,
    schema: {
      summary: "Expire an authorization's hold now (sandbox extension)", tags, auth: 'bearer',
      description: 'Releases what an approved authorization holds, as its hold period ending would: it becomes `reversed` with '
        + '`releaseReason: "expiry"`. An authorization that holds nothing (declined, completed, reversed, being reversed) is a 409.',
      params: TransactionIdParams,
      response: { 200: Envelope(Transaction) },
    },
  }, async (request) => envelope('Authorization expired', expireHold(switchDeps.store, principalOf(request).institutionId, request.params.id, runtime.now())));

  app.get('/sandbox/transactions/:id/lifecycle', {
    onRequest: auth,
    schema: {
      summary: 'Transaction lifecycle (sandbox extension)', tags, auth: 'bearer',
      description: 'The original of the transaction (itself, or the one a linked message names) and every linked message in order, '
        + 'with the amounts authorized, held, captured, released and refunded.',
      params: TransactionIdParams,
      response: { 200: Envelope(Lifecycle) },
    },
  }, async (request) => envelope('Lifecycle retrieved successfully', lifecycleOf(switchDeps.store, principalOf(request).institutionId, request.params.id)));

  const ClockState = Type.Object({ now: Type.String({ format: 'date-time' }), offsetSeconds: Type.Number(), expired: Type.Integer({ description: 'holds released by this call' }) });
  app.get('/sandbox/switch/clock', {
    schema: { summary: "The switch's clock", tags, auth: 'none', response: { 200: ClockState } },
  }, async () => ({ ...runtime.clock(), expired: 0 }));
  app.post('/sandbox/switch/clock', {
    schema: {
      summary: "Move the switch's clock forward", tags, auth: 'none',
      description: 'Advances the clock the switch stamps and expires by (tokens keep the real one), then releases every approved '
        + "authorization older than its program's `holdPeriodHours` (default 168).",
      body: Type.Object({ advanceSeconds: Type.Number({ minimum: 0, maximum: 31_536_000 }) }, { additionalProperties: false }),
      response: { 200: ClockState },
    },
  }, async (request) => {
    const expired = runtime.advanceClock(request.body.advanceSeconds);
    return { ...runtime.clock(), expired };
  });

  app.post('/sandbox/switch/advices/deliver', {
    schema: {
      summary: 'Deliver pending advices now', tags, auth: 'none',
      description: 'One delivery attempt of every advice, and every reversal that stands, the webhook has not acknowledged (as a repeat: 0121, 0221, 0421; they are also retried on their own, backing off to 30 s). '
        + 'The body is `{}`: a state-changing helper takes JSON (docs/sandbox-api.md).',
      body: Type.Object({}, { additionalProperties: false }),
      response: { 200: Type.Object({ delivered: Type.Integer(), pending: Type.Integer() }) },
    },
  }, async () => deliverPendingAdvices(switchDeps));

  // Faults are the caller's: its institution's traffic, or one of its programs' (programId).
  const ScopedFaults = Type.Object({ spec: Type.String({ description: 'the spec in its text form' }), seed: Type.Integer() });
  const WebhookFaultState = Type.Composite([ScopedFaults, Type.Object({
    own: Type.Optional(Type.Boolean({ description: 'with programId: the program has faults of its own (false: its institution\'s apply)' })),
    programs: Type.Optional(Type.Array(Type.Composite([Type.Object({ programId: Type.String() }), ScopedFaults]), { description: 'without programId: the institution\'s programs with faults of their own' })),
  })]);
  const FaultScopeQuery = Type.Object({ programId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false });
  const scopeOf = (request: FastifyRequest, programId: unknown): WebhookFaultScope => {
    const { institutionId } = principalOf(request);
    if (programId === undefined) return { institutionId };
    // Another institution's program is not found, as everywhere.
    const program = typeof programId === 'string' ? deps.store.cardPrograms.get(institutionId, programId) : undefined;
    if (!program) throw new DomainError('not-found', `card program ${String(programId)} not found`);
    return { institutionId, programId: program.id };
  };
  app.get('/sandbox/webhook-faults', {
    onRequest: auth,
    schema: {
      summary: 'Current faults on the webhook path', tags, auth: 'bearer',
      description: 'The faults of the caller\'s institution (and its programs that have their own), or with `programId` those a message of that program gets.',
      querystring: FaultScopeQuery,
      response: { 200: WebhookFaultState },
    },
  }, async (request) => runtime.webhookFaults(scopeOf(request, request.query.programId)));
  app.put('/sandbox/webhook-faults', {
    onRequest: auth,
    schema: {
      summary: 'Replace the faults on the webhook path', tags, auth: 'bearer',
      description: 'Keys as in `sandbox serve --webhook-faults`: delay (MS or MIN-MAX ms), deadline (the network\'s timeout, default 5 s), '
        + 'duplicate, reset, reply-lost, garbage (probabilities); or `spec` (the text form); `seed` reseeds the generator. `{}` turns them off. '
        + 'They apply to the caller\'s institution\'s messages only; with `programId` (a program of the caller\'s) to that program\'s only, '
        + 'which then ignores its institution\'s faults until `{"programId": …, "inherit": true}`.',
      body: Type.Object({}, { additionalProperties: true }),
      response: { 200: WebhookFaultState },
    },
  }, async (request) => {
    const { programId, ...body } = (request.body ?? {}) as Record<string, unknown>;
    return runtime.replaceWebhookFaults(scopeOf(request, programId), body);
  });

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
