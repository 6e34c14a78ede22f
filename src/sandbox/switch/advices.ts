// Messages the network sends the webhook to tell it, not to ask it: advices (0120, 0220: the
// network's decision in field 39; a stand-in advice also says in field 44 why the network stood
// in) and reversals that stand (0420: a reversal the webhook did not answer, a timeout
// reversal). The webhook acknowledges them with any valid reply and cannot change them; until it
// does, each is sent again as a repeat (0121, 0221, 0421: same STAN, RRN and fields), on the
// schedule of runtime.ts. The record's `advice` tracks the deliveries.
import type { Transaction } from '../../api/schemas.js';
import { isField4 } from '../../iso8583/amount.js';
import { isApproved } from '../../iso8583/codes.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { repeatMtiOf } from '../../webhook-protocol/reply.js';
import type { SwitchDeps } from './deps.js';
import type { Exchange } from './exchange.js';
import { recordCall, subjectOf } from './exchange-record.js';
import { buildResponse, dayOf, originalDataElements } from '../../webhook-protocol/request.js';
import { cardAndProgramOf, type Plan } from './plan.js';
import { approvalCode, buildRecord, resentMessage, rewrite, settle } from './record.js';
import type { SwitchStore } from './store-port.js';
import { callWebhook, causeOf, messageIdOf, type NoAnswerCause, type WebhookOutcome, type WireCapture } from './webhook.js';

/** The field of a stand-in advice naming why the network stood in (ISO 8583: additional response data). */
export const STAND_IN_CAUSE_FIELD = '44';

/** An advice of the network's decision: field 39 (unless overrides set one), and 44 after a stand-in. */
export function adviceOf(message: SwitchMessage, decision: string, standInCause?: NoAnswerCause): SwitchMessage {
  return { ...message, '39': message['39'] ?? decision, ...(standInCause ? { [STAND_IN_CAUSE_FIELD]: standInCause } : {}) };
}

export type Delivery = NonNullable<Transaction['advice']>;

/** A message the webhook has yet to acknowledge: `attempts` made so far, the last one's result. */
export function awaitingAcknowledgement(attempts: number, lastResult: string): Delivery {
  return { acknowledged: false, attempts, lastResult };
}

/**
 * What a delivery attempt sends: the message as recorded, as a repeat once an attempt was made
 * (0120 → 0121, 0420 → 0421), with the clear PAN and without the card secrets.
 */
export function deliveryMessage(record: Transaction, delivery: Delivery, pan: string | undefined): SwitchMessage {
  const message = resentMessage(record.originalMessage, pan);
  if (delivery.attempts > 0) message['0'] = repeatMtiOf(message['0'] ?? record.mti);
  return message;
}

/**
 * After a stand-in: an approval is delivered to the webhook as an advice, with the decision
 * (39) and why the network stood in (44); a decline whose webhook approved after all (late, or
 * its reply lost) is reversed at the webhook (a timeout reversal). Either stands, and is
 * repeated until the webhook acknowledges it.
 */
export async function afterStandIn(deps: SwitchDeps, institutionId: string, record: Transaction, plan: Plan, request: SwitchMessage, exchange: Exchange, standIn: { decision: string }): Promise<void> {
  const now = deps.now;
  if (isApproved(standIn.decision)) {
    const mti = record.mti.startsWith('02') ? '0220' : '0120';
    const cause = exchange.outcome.ok ? undefined : causeOf(exchange.outcome);
    const advice = insertNetworkMessage(deps.store, institutionId, plan, record, adviceOf({ ...request, '0': mti }, standIn.decision, cause), 'stand-in-advice', now());
    await deliverAdvice(deps, institutionId, advice.id);
    return;
  }
  const late = exchange.late ? await exchange.late : undefined;
  if (!late?.ok || !isApproved(late.reply['39'] ?? '')) return;
  const approved = late.reply['4'] ?? request['4'] ?? '';
  const reversalRequest: SwitchMessage = { ...request, '0': '0420', '4': approved, '90': originalDataElements(request) };
  const reversal = insertNetworkMessage(deps.store, institutionId, plan, record, reversalRequest, 'timeout-reversal', now());
  await deliverAdvice(deps, institutionId, reversal.id);
}

/**
 * Records a message the network sends on its own, linked to `original`, as decided: a stand-in
 * advice (the original's code), a timeout reversal (00: it stands). It awaits the webhook's
 * acknowledgement; the caller delivers it.
 */
function insertNetworkMessage(store: SwitchStore, institutionId: string, plan: Plan, original: Transaction, message: SwitchMessage, kind: 'stand-in-advice' | 'timeout-reversal', at: Date): Transaction {
  return store.atomically(() => {
    const amountMinor = isField4(message['4']) ? BigInt(message['4']) : 0n;
    const linkedPlan: Plan = { ...plan, kind, intent: kind === 'timeout-reversal' ? 'reversal' : plan.intent, original };
    const record = buildRecord({ plan: linkedPlan, institution: original.institution, request: message, amountMinor, receivedAt: at, mode: 'forward' });
    record.advice = awaitingAcknowledgement(0, 'not yet delivered');
    const response = kind === 'stand-in-advice' ? buildResponse(message, original.responseCode, original.response['38']) : buildResponse(message, '00', approvalCode());
    settle(record, response, at, at, performance.now(), kind === 'stand-in-advice' ? 'the network stood in; the advice goes to the webhook'
      : 'the webhook approved after the network declined; the network reverses it, and the reversal goes to the webhook');
    store.insert(record, {
      channel: plan.channel, day: dayOf(at), amountMinor: Number(amountMinor), state: 'approved', originalId: original.id,
      kind, flow: plan.flow, currency: message['49'] ?? plan.currency,
    });
    return record;
  });
}

/** A delivery of an advice or a standing reversal: acknowledged by any valid reply (the webhook cannot decline it). */
export function recordAdviceDelivery(store: SwitchStore, institutionId: string, id: string, exchange: Pick<Exchange, 'outcome' | 'faults'>, at: Date): Transaction {
  return rewrite(store, institutionId, id, at, (record) => {
    const previous = record.advice ?? { acknowledged: false, attempts: 0, lastResult: '' };
    const { outcome } = exchange;
    record.advice = {
      acknowledged: previous.acknowledged || outcome.ok,
      attempts: previous.attempts + 1,
      lastResult: outcome.ok ? `acknowledged (${outcome.reply['39']})` : outcome.reason,
    };
    if (exchange.faults.length > 0) record.webhookFaults = exchange.faults;
  })!;
}

/**
 * One delivery attempt of an unacknowledged advice or standing reversal (advices.ts): a repeat
 * (0121, 0421) after the first; true when it is acknowledged now.
 */
export async function deliverAdvice(deps: SwitchDeps, institutionId: string, id: string): Promise<boolean> {
  const now = deps.now;
  const stored = deps.store.get(institutionId, id);
  if (!stored?.record.advice || stored.record.advice.acknowledged) return true;
  const { card, program } = cardAndProgramOf(deps.store, institutionId, stored.record);
  const config = program?.webHookConfig;
  const message = deliveryMessage(stored.record, stored.record.advice, card?.pan);
  let outcome: WebhookOutcome = { ok: false, cause: 'no-url', reason: 'the card program has no webHookConfig.url' };
  if (config?.url) {
    const wire: WireCapture = {};
    const at = now();
    const started = performance.now();
    outcome = await (deps.callWebhook ?? callWebhook)(config, message, { ...deps.webhook, messageId: messageIdOf(id), wire }).catch((error: Error) => ({ ok: false as const, reason: `the webhook call failed: ${error.message}` }));
    const subject = subjectOf(institutionId, stored.record, stored.record.advice.attempts + 1, message['0'] ?? '', stored.originalId);
    recordCall(deps.exchanges, { subject, config, message, wire, outcome, at, latencyMs: performance.now() - started, faults: [] });
  }
  const record = deps.store.atomically(() => recordAdviceDelivery(deps.store, institutionId, id, { outcome, faults: [] }, now()));
  const acknowledged = record.advice?.acknowledged ?? false;
  if (!acknowledged) deps.onAdvicePending?.();
  return acknowledged;
}

/** One delivery attempt of every unacknowledged advice and standing reversal; how many remain unacknowledged. */
export async function deliverPendingAdvices(deps: SwitchDeps): Promise<{ delivered: number; pending: number }> {
  let delivered = 0;
  let pending = 0;
  for (const { institutionId, id } of deps.store.unacknowledgedAdvices()) {
    if (await deliverAdvice(deps, institutionId, id)) delivered += 1;
    else pending += 1;
  }
  return { delivered, pending };
}
