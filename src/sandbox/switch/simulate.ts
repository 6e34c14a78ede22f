// The simulator: POST /institutions/{switch}/simulate. Resolves the card and the original
// (reversals), builds the request message, runs the service checks, then approves (stub) or
// asks the program's webhook (forward), and stores the full Transaction record. The
// request is planned in plan.ts, recorded and answered in record.ts, sent in exchange.ts;
// advices.ts delivers what the network sends on its own after it.
//
// Concurrency: the checks and the ledger's rules (ledger.ts: every amount held, captured,
// released, refunded or reversed) read what they need and the new transaction is inserted
// (state `awaiting`) in ONE synchronous SQLite transaction (no await in between), so N parallel
// simulations on a card can never take more than its daily count; only then is the webhook
// awaited, and its answer is applied in a second one. Every change of state goes through the
// table of states.ts with a conditional write: an answer only settles a transaction still
// awaiting one, and a reversal moves its original approved → reversing when it starts and on
// when it is answered, so a transaction awaiting its answer, declined, already reversed or
// being reversed cannot be reversed (409), and two reversals never overlap.
import type { Institution, LifecycleBody, ResponseMode, SimulateBody, SimulateEnvelope, Transaction } from '../../api/schemas.js';
import { isApproved, PROCESSING_CODES } from '../../iso8583/codes.js';
import { minorToMajor, toField4 } from '../../iso8583/amount.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { PARTIAL_APPROVAL_CODE } from '../../webhook-protocol/reply.js';
import { DomainError } from '../errors.js';
import type { StoredTransaction } from '../store/transactions.js';
import { adviceOf, afterStandIn, awaitingAcknowledgement, recordAdviceDelivery } from './advices.js';
import { checkCard, checkChannel } from './checks.js';
import type { SwitchDeps } from './deps.js';
import { exchangeWithWebhook, standInDecision, type Exchange } from './exchange.js';
import { subjectOf } from './exchange-record.js';
import { settleAbandonedAround } from './expiry.js';
import * as ledger from './ledger.js';
import { buildRequest, buildResponse, dayOf, retrievalReferenceNumber } from '../../webhook-protocol/request.js';
import { isAdvice, kindOf, planDebit, planLinked, planReversal, requestMtiOf, reversalStands, type Plan } from './plan.js';
import { answerOf, applyAnswer, approvalCode, buildRecord, hop, repeatEntry, settle } from './record.js';
import type { SwitchStore } from './store-port.js';
import { redactUrlCredentials } from '../../core/redact.js';

export async function simulate(deps: SwitchDeps, institutionId: string, body: SimulateBody): Promise<SimulateEnvelope> {
  const receivedAt = deps.now();
  const institution = institutionOf(deps.store, institutionId);
  const plan = body.intent === 'reversal' ? planReversal(deps.store, institutionId, body, receivedAt) : planDebit(deps.store, institutionId, body, receivedAt);
  return run(deps, institution, plan, body.responseMode ?? 'stub', body.overrides);
}

/** A lifecycle message (sandbox extension, POST /sandbox/switch/messages): see LifecycleBody. */
export async function simulateLifecycle(deps: SwitchDeps, institutionId: string, body: LifecycleBody): Promise<SimulateEnvelope> {
  const receivedAt = deps.now();
  const institution = institutionOf(deps.store, institutionId);
  const plan = planLinked(deps.store, institutionId, body, receivedAt);
  return run(deps, institution, plan, body.responseMode ?? 'stub', body.overrides);
}

function institutionOf(store: SwitchStore, institutionId: string): Institution {
  const institution = store.institution(institutionId);
  if (!institution) throw new DomainError('not-found', `institution ${institutionId} not found`);
  return institution;
}

async function run(deps: SwitchDeps, institution: Institution, plan: Plan, mode: ResponseMode, overrides: SwitchMessage | undefined): Promise<SimulateEnvelope> {
  const now = deps.now;
  const receivedAt = now();
  const started = performance.now();
  const { store } = deps;
  const institutionId = institution.id;

  // An answer that will never come (the original's own, or that of a reversal of it) is settled
  // first, in its own transaction: it stands whatever becomes of this message.
  if (plan.original) store.atomically(() => settleAbandonedAround(store, institutionId, plan.original!.id, now()));

  // In forward mode this commit is not the last before the answer (the webhook's answer is
  // applied by a second, durable one), so it does not wait for the disk: one fsync a message
  // instead of two on a file database.
  const forward = mode === 'forward';
  const admitted = store.atomically(() => admit(deps, { institution, plan, mode, overrides, receivedAt, started }), { durable: !forward });
  // Declined by the service in forward mode: answered now, so made durable now.
  if (forward && !admitted.sendToWebhook) store.sync();
  if (!admitted.sendToWebhook) return answerOf(admitted.record);

  // ---- forward: ask the institution, then apply its answer ----
  const subject = subjectOf(institutionId, admitted.record, 1, admitted.request['0'] ?? '', admitted.row.originalId);
  const exchange = await exchangeWithWebhook(deps, plan.program, admitted.request, admitted.record.id, institutionId, subject);
  if (isAdvice(plan)) {
    const record = store.atomically(() => recordAdviceDelivery(store, institutionId, admitted.record.id, exchange, now()));
    if (!record.advice?.acknowledged) deps.onAdvicePending?.();
    return answerOf(record, { exchange });
  }
  return applyWebhookAnswer(deps, institutionId, plan, admitted, exchange, started);
}

interface Admission {
  institution: Institution;
  plan: Plan;
  mode: ResponseMode;
  overrides: SwitchMessage | undefined;
  receivedAt: Date;
  /** performance.now() when the message arrived (the record's duration). */
  started: number;
}

/** A message admitted: inserted (and, unless the webhook decides it, answered). */
interface Admitted {
  record: Transaction;
  /** The row as inserted: its answer is applied to it without reading it back. */
  row: StoredTransaction;
  /** The request in the clear, as the webhook gets it. */
  request: SwitchMessage;
  sendToWebhook: boolean;
  entry: ledger.Entry;
  day: string;
}

/**
 * Inside the store transaction: the request built, the checks and the ledger's rules applied,
 * the transaction inserted, and answered unless the webhook is to decide it.
 */
function admit(deps: SwitchDeps, { institution, plan, mode, overrides, receivedAt, started }: Admission): Admitted {
  const now = deps.now;
  const { store } = deps;
  const institutionId = institution.id;
  // The day the daily limits and the stand-in budget count against is the switch's (its clock,
  // which POST /sandbox/switch/clock moves), never the caller's transactionDate: dating messages
  // on other days does not make room. STANs run per day of the message's own date (field 7, the RRN).
  const day = dayOf(receivedAt);
  const stanNumber = ((store.nextStan(institutionId, dayOf(plan.date)) - 1) % 999_999) + 1;
  const stan = String(stanNumber).padStart(6, '0');
  let request = buildRequest({
    intent: plan.intent,
    flow: plan.flow,
    amountField4: toField4(plan.amountMinor),
    currency: plan.currency,
    card: plan.cardData,
    channel: plan.channel,
    method: plan.method,
    merchantId: plan.merchantId,
    terminalId: plan.terminalId,
    stan,
    rrn: retrievalReferenceNumber(plan.date, stan),
    date: plan.date,
    original: plan.original?.originalMessage,
  });
  request['0'] = requestMtiOf(plan);
  if (plan.kind === 'refund') request['3'] = PROCESSING_CODES.refund;
  if (overrides) request = { ...request, ...overrides };
  // The ledger's entry is the message as sent; which of its rules apply, the plan's.
  const originalId = plan.original?.id;
  const entry = ledger.entryOf(kindOf(plan), plan.flow, request, overrides, originalId ? store.get(institutionId, originalId) : undefined);
  const { amountMinor } = entry;

  let code: string | undefined;
  if (plan.intent === 'reversal') {
    ledger.startReversal(store, institutionId, originalId!, entry, now());
  } else if (isAdvice(plan)) {
    if (plan.kind === 'completion') ledger.captureCompletion(store, institutionId, originalId!, entry, now());
    code = plan.networkCode ?? '00';
    request = adviceOf(request, code);
  } else {
    if (plan.kind === 'increment') ledger.requireHold(store, institutionId, originalId!, entry);
    if (plan.kind === 'refund') ledger.reserveRefund(store, institutionId, originalId!, entry, now());
    code = checkCard(plan.card, plan.given, plan.date)
      ?? checkChannel(plan.program, plan.channel)
      ?? ledger.checkDailyLimits(store, plan.card!.id, plan.program, plan.channel, entry, day);
  }
  const record = buildRecord({ plan: { ...plan, currency: entry.currency, digits: entry.digits }, institution, request, amountMinor, receivedAt, mode });
  const columns = ledger.columnsOf(entry);
  store.insert(record, { channel: plan.channel, day, amountMinor: Number(amountMinor), state: 'awaiting', ...(originalId ? { originalId } : {}), ...columns });
  const row: StoredTransaction = { record, state: 'awaiting', amountMinor: Number(amountMinor), reversedMinor: 0, capturedMinor: 0, refundedMinor: 0, ...(originalId ? { originalId } : {}), ...columns };
  // An advice carries the network's decision, recorded now in either mode; in forward mode it
  // then goes to the webhook, which only acknowledges it. A request is decided here by a
  // failed check or the stub, else by the webhook.
  const advice = isAdvice(plan);
  const sendToWebhook = mode === 'forward' && (advice || code === undefined);
  if (advice) {
    record.advice = sendToWebhook
      ? { acknowledged: false, attempts: 0, lastResult: 'not yet delivered' }
      : { acknowledged: true, attempts: 0, lastResult: 'not sent: acknowledged by the sandbox stub' };
  }
  if (advice || !sendToWebhook) {
    const at = now();
    const why = advice ? (sendToWebhook ? 'the network decided; the advice goes to the webhook' : 'not sent: advice acknowledged by the sandbox stub')
      : code !== undefined ? `not sent: declined by the service (${code})` : 'not sent: approved by the sandbox stub';
    settle(record, buildResponse(request, code ?? '00', approvalCode()), at, at, started, why);
    return { record: applyAnswer(store, institutionId, row, plan, amountMinor, amountMinor, now()), row, request, sendToWebhook, entry, day };
  }
  return { record, row, request, sendToWebhook, entry, day };
}

/**
 * A request in forward mode: the webhook's answer, or when it gave none the network's stand-in
 * (a plain reversal stands), applied to the transaction; what follows a stand-in runs in the
 * background (advices.ts).
 */
async function applyWebhookAnswer(deps: SwitchDeps, institutionId: string, plan: Plan, admitted: Admitted, exchange: Exchange, started: number): Promise<SimulateEnvelope> {
  const now = deps.now;
  const { store } = deps;
  const { request: clearRequest, entry } = admitted;
  const { amountMinor } = entry;
  const { outcome } = exchange;
  const repliedAt = now();
  let response = outcome.ok ? outcome.reply : buildResponse(clearRequest, '96');
  let approvedMinor = amountMinor;
  let standIn: { decision: string; reason: string } | undefined;
  if (!outcome.ok) {
    standIn = reversalStands(plan) ? { decision: '00', reason: outcome.reason } : store.atomically(() => standInDecision(store, plan, entry, admitted.day, outcome.reason));
    if (standIn && isApproved(standIn.decision)) response = buildResponse(clearRequest, standIn.decision, approvalCode());
  } else if (response['39'] === PARTIAL_APPROVAL_CODE) {
    approvedMinor = BigInt(response['4'] ?? toField4(amountMinor));
  }
  const sent = admitted.record;
  const record = store.atomically(() => {
    sent.timestamps.serviceToInstitution = hop(exchange.sentAt, 'outbound', `service to institution: POST ${plan.program?.webHookConfig?.url ? redactUrlCredentials(plan.program.webHookConfig.url) : '(no webhook)'}`);
    if (exchange.faults.length > 0) sent.webhookFaults = exchange.faults;
    if (exchange.duplicateAgreed !== undefined) sent.repeats = [repeatEntry(now(), clearRequest['0'] ?? '', exchange.duplicateAgreed)];
    if (standIn) sent.standIn = standIn;
    if (standIn && reversalStands(plan)) sent.advice = awaitingAcknowledgement(1, outcome.ok ? '' : outcome.reason);
    if (approvedMinor !== amountMinor) {
      sent.requestedAmount = minorToMajor(amountMinor, entry.digits);
      sent.approvedAmount = minorToMajor(approvedMinor, entry.digits);
    }
    settle(sent, response, repliedAt, now(), started, outcome.ok ? `institution to service: replied ${response['39']}`
      : `institution to service: ${outcome.reason}${standIn ? `; the network stood in (${standIn.decision})` : ''}`);
    return applyAnswer(store, institutionId, admitted.row, plan, amountMinor, approvedMinor, now());
  });
  if (record.advice && !record.advice.acknowledged) deps.onAdvicePending?.();
  else if (standIn) deps.background?.(afterStandIn(deps, institutionId, record, plan, clearRequest, exchange, standIn));
  return answerOf(record, { exchange, failure: outcome.ok ? undefined : outcome.reason });
}
