// The simulator: POST /institutions/{switch}/simulate. Resolves the card and the original
// (reversals), builds the request message, runs the service checks, then approves (stub) or
// asks the program's webhook (forward), and stores the full Transaction record.
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
import { randomInt, randomUUID } from 'node:crypto';
import type { Card, CardProgram, Institution, Lifecycle, LifecycleBody, LifecycleKind, ResponseMode, SimulateBody, SimulateEnvelope, SimulateResult, Transaction } from '../../api/schemas.js';
import { AmountError, amountToMinor, cardCurrency, currencyInfo, isField4, minorToMajor, toField4 } from '../../iso8583/amount.js';
import { isApproved, MTI, PROCESSING_CODES, paymentMethodOf, processingFlowOf, responseMessage, type Channel, type Intent, type PaymentMethod } from '../../iso8583/codes.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { maskPan } from '../../core/redact.js';
import { cardExpiryYYMM, checkCard, checkChannel, toYYMM } from './checks.js';
import * as ledger from './ledger.js';
import { buildRequest, buildResponse, dayOf, originalDataElements, DEFAULT_CHANNEL, DEFAULT_MERCHANT, DEFAULT_METHOD, DEFAULT_TERMINAL, isPhysical, retrievalReferenceNumber, type CardData } from './message.js';
import { DomainError, invalidField } from '../errors.js';
import { newId } from '../ids.js';
import { PARTIAL_APPROVAL_CODE, repeatMtiOf } from '../../webhook-protocol/reply.js';
import { callWebhook, causeOf, WEBHOOK_TIMEOUT_MS, type WebhookCallOptions, type WebhookOutcome } from './webhook.js';
import { adviceOf, awaitingAcknowledgement, deliveryMessage } from './advices.js';
import { describeDraw, type WebhookFaultController } from './webhook-faults.js';
import type { StateChange, StoredTransaction, TransactionIndex } from '../store/transactions.js';
import { applyEvent } from './states.js';
import type { SwitchStore } from './store-port.js';


export type { StateChange, StoredTransaction, TransactionIndex } from '../store/transactions.js';
export type { SwitchStore } from './store-port.js';

export interface SwitchDeps {
  store: SwitchStore;
  now?: () => Date;
  webhook?: WebhookCallOptions;
  /** Replaces the webhook call (tests). */
  callWebhook?: typeof callWebhook;
  /** Faults on the webhook path (none when absent). */
  webhookFaults?: WebhookFaultController;
  /**
   * Runs work that outlives the simulate call (advice delivery, a late reply read for a timeout
   * reversal); the owner awaits it before closing the store. Without it there is no such work.
   */
  background?: (work: Promise<void>) => void;
  /** Told when an advice delivery was not acknowledged (the owner schedules another). */
  onAdvicePending?: () => void;
}


interface Plan {
  intent: Intent;
  card: Card | undefined;
  cardData: CardData;
  given: { expiry?: string; account?: string };
  program: CardProgram | undefined;
  channel: Channel;
  method: PaymentMethod;
  currency: string;
  digits: number;
  amountMinor: bigint;
  merchantId: string;
  terminalId: string;
  date: Date;
  original?: Transaction;
  flow: SimulateBody['processingFlow'];
  /** A lifecycle message (absent for the reference's three intents). */
  kind?: LifecycleKind;
  /** Advices: the network's decision. */
  networkCode?: string;
}

export async function simulate(deps: SwitchDeps, institutionId: string, body: SimulateBody): Promise<SimulateEnvelope> {
  const receivedAt = (deps.now ?? (() => new Date()))();
  const institution = institutionOf(deps.store, institutionId);
  const plan = body.intent === 'reversal' ? planReversal(deps.store, institutionId, body, receivedAt) : planDebit(deps.store, institutionId, body, receivedAt);
  return run(deps, institution, plan, body.responseMode ?? 'stub', body.overrides);
}

/** A lifecycle message (sandbox extension, POST /sandbox/switch/messages): see LifecycleBody. */
export async function simulateLifecycle(deps: SwitchDeps, institutionId: string, body: LifecycleBody): Promise<SimulateEnvelope> {
  const receivedAt = (deps.now ?? (() => new Date()))();
  const institution = institutionOf(deps.store, institutionId);
  const plan = planLinked(deps.store, institutionId, body, receivedAt);
  return run(deps, institution, plan, body.responseMode ?? 'stub', body.overrides);
}

function institutionOf(store: SwitchStore, institutionId: string): Institution {
  const institution = store.institution(institutionId);
  if (!institution) throw new DomainError('not-found', `institution ${institutionId} not found`);
  return institution;
}

/** The request MTI of a plan: the intent's, or the lifecycle message's own. */
function requestMtiOf(plan: Plan): string {
  switch (plan.kind) {
    case 'completion': return '0220';
    case 'advice': return '0120';
    default: return MTI[plan.intent].request;
  }
}

/** What the ledger calls a planned message: the lifecycle kind, or the intent. */
function kindOf(plan: Plan): ledger.EntryKind {
  return plan.kind ?? plan.intent;
}

/** Advices (0120, 0220) carry the network's decision: the webhook acknowledges, it cannot decline. */
function isAdvice(plan: Plan): boolean {
  return plan.kind === 'completion' || plan.kind === 'advice';
}

async function run(deps: SwitchDeps, institution: Institution, plan: Plan, mode: ResponseMode, overrides: SwitchMessage | undefined): Promise<SimulateEnvelope> {
  const now = deps.now ?? (() => new Date());
  const receivedAt = now();
  const started = performance.now();
  const { store } = deps;
  const institutionId = institution.id;

  // An answer that will never come (the original's own, or that of a reversal of it) is settled
  // first, in its own transaction: it stands whatever becomes of this message.
  if (plan.original) store.atomically(() => settleAbandonedAround(store, institutionId, plan.original!.id, now()));

  // ---- synchronous: checks, reservation, insert ----
  // In forward mode this commit is not the last before the answer (the webhook's answer is
  // applied by a second, durable one), so it does not wait for the disk: one fsync a message
  // instead of two on a file database (BENCHMARKS.md, Simulation).
  const forward = mode === 'forward';
  const inserted = store.atomically(() => {
    const day = dayOf(plan.date);
    const stanNumber = ((store.nextStan(institutionId, day) - 1) % 999_999) + 1;
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
    // The row as inserted: its answer is applied to it without reading it back.
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
  }, { durable: !forward });
  // Declined by the service in forward mode: answered now, so made durable now.
  if (forward && !inserted.sendToWebhook) store.sync();
  const { request: clearRequest, entry } = inserted;
  const { amountMinor } = entry;
  let record = inserted.record;

  let failure: string | undefined;
  let delivered: Exchange | undefined;
  if (inserted.sendToWebhook) {
    // ---- forward: ask the institution, then apply its answer ----
    const exchange = await exchangeWithWebhook(deps, plan.program?.webHookConfig, clearRequest);
    delivered = exchange;
    if (isAdvice(plan)) {
      record = store.atomically(() => recordAdviceDelivery(store, institutionId, record.id, exchange, now()));
      if (!record.advice?.acknowledged) deps.onAdvicePending?.();
    } else {
      const { outcome } = exchange;
      const repliedAt = now();
      let response = outcome.ok ? outcome.reply : buildResponse(clearRequest, '96');
      let approvedMinor = amountMinor;
      let standIn: { decision: string; reason: string } | undefined;
      if (!outcome.ok) {
        failure = outcome.reason;
        standIn = reversalStands(plan) ? { decision: '00', reason: outcome.reason } : store.atomically(() => standInDecision(store, plan, entry, inserted.day, outcome.reason));
        if (standIn && isApproved(standIn.decision)) response = buildResponse(clearRequest, standIn.decision, approvalCode());
      } else if (response['39'] === PARTIAL_APPROVAL_CODE) {
        approvedMinor = BigInt(response['4'] ?? toField4(amountMinor));
      }
      const sent = record;
      record = store.atomically(() => {
        sent.timestamps.serviceToInstitution = hop(exchange.sentAt, 'outbound', `service to institution: POST ${plan.program?.webHookConfig?.url || '(no webhook)'}`);
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
        return applyAnswer(store, institutionId, inserted.row, plan, amountMinor, approvedMinor, now());
      });
      if (record.advice && !record.advice.acknowledged) deps.onAdvicePending?.();
      else if (standIn) deps.background?.(afterStandIn(deps, institutionId, record, plan, clearRequest, exchange, standIn));
    }
  }
  return answerOf(record, { exchange: delivered, failure });
}

/**
 * The simulator's answer. `exchange`: the message went to the webhook (the answer says how that
 * went); `failure`: why a 96 was given, for the message.
 */
function answerOf(record: Transaction, { exchange, failure }: { exchange?: Pick<Exchange, 'outcome' | 'latencyMs'> | undefined; failure?: string | undefined } = {}): SimulateEnvelope {
  const approved = isApproved(record.responseCode);
  const meaning = responseMessage(record.responseCode);
  const message = approved
    ? `Transaction approved (${record.responseCode} ${meaning})`
    : record.responseCode === '96' && failure
      ? `Transaction failed: 96 ${meaning} — ${failure}`
      : `Transaction declined: ${record.responseCode} ${meaning}`;
  return {
    status: approved ? 'success' : 'failed',
    message,
    data: {
      transactionId: record.id,
      mti: record.mti,
      stan: record.stan,
      rrn: record.rrn,
      responseCode: record.responseCode,
      responseMessage: meaning,
      transactionStatus: record.transactionStatus,
      request: record.originalMessage,
      response: record.response,
      duration: record.duration,
      ...(record.standIn ? { standIn: record.standIn } : {}),
      ...(exchange ? { webhook: webhookSummary(exchange) } : {}),
    },
  };
}

function webhookSummary({ outcome, latencyMs }: Pick<Exchange, 'outcome' | 'latencyMs'>): NonNullable<SimulateResult['webhook']> {
  return outcome.ok ? { latencyMs, timedOut: false } : { latencyMs, timedOut: outcome.timedOut === true, failure: outcome.reason };
}

function planDebit(store: SwitchStore, institutionId: string, body: SimulateBody, receivedAt: Date): Plan {
  const { currency, digits, amountMinor } = money(body, undefined);
  let stored: { card: Card; pan: string } | undefined;
  let cardData: CardData;
  const given: Plan['given'] = {};
  if (body.cardId !== undefined && body.cardId !== '') {
    stored = store.cardById(institutionId, body.cardId);
    cardData = stored
      ? { pan: stored.pan, expiry: cardExpiryYYMM(stored.card), serviceCode: stored.card.serviceCode || '101', account: stored.card.account.number }
      : { pan: '', expiry: '', serviceCode: '101', account: '' };
  } else {
    const missing = (['pan', 'expiry', 'accountNumber'] as const).filter((f) => body[f] === undefined || body[f] === '');
    if (missing.length > 0) {
      throw new DomainError('invalid', `give cardId, or pan, expiry and accountNumber together (missing: ${missing.join(', ')})`,
        missing.map((field) => ({ field, message: 'is required when cardId is absent' })));
    }
    const found = store.cardByPan(body.pan!);
    stored = found && found.card.institution === institutionId ? found : undefined;
    given.expiry = body.expiry!;
    given.account = body.accountNumber!;
    cardData = { pan: body.pan!, expiry: toYYMM(body.expiry!), serviceCode: stored?.card.serviceCode || '101', account: body.accountNumber! };
  }
  const channel = body.channel ?? DEFAULT_CHANNEL;
  const programId = stored ? programIdOf(stored.card) : undefined;
  const date = body.transactionDate ? new Date(body.transactionDate) : receivedAt;
  if (stored && date.getTime() < Date.parse(stored.card.createdAt)) {
    throw invalidField('transactionDate', `is before the card was created (${stored.card.createdAt}): a card cannot transact before it exists`);
  }
  return {
    intent: body.intent,
    flow: body.processingFlow,
    card: stored?.card,
    cardData,
    given,
    program: programId ? store.program(institutionId, programId) : undefined,
    channel,
    method: body.paymentMethod ?? DEFAULT_METHOD[channel],
    currency,
    digits,
    amountMinor,
    merchantId: body.merchantId || DEFAULT_MERCHANT,
    terminalId: body.terminalId || DEFAULT_TERMINAL[channel],
    date,
  };
}

function planReversal(store: SwitchStore, institutionId: string, body: SimulateBody, receivedAt: Date): Plan {
  let original: Transaction | undefined;
  if (body.originalTransactionId) {
    original = store.get(institutionId, body.originalTransactionId)?.record;
    if (!original) throw new DomainError('not-found', `original transaction ${body.originalTransactionId} not found`);
  } else if (body.originalStan && body.originalRrn) {
    original = store.findByStanRrn(institutionId, body.originalStan, body.originalRrn);
    if (!original) throw new DomainError('not-found', `no transaction with STAN ${body.originalStan} and RRN ${body.originalRrn}`);
  } else {
    const fields = body.originalStan ? ['originalRrn'] : body.originalRrn ? ['originalStan'] : ['originalTransactionId'];
    throw new DomainError('invalid', 'a reversal needs originalTransactionId, or originalStan and originalRrn together',
      fields.map((field) => ({ field, message: 'is required for a reversal' })));
  }
  const { currency, digits, amountMinor } = money(body, original.amounts.currency);
  const message = original.originalMessage;
  const date = body.transactionDate ? new Date(body.transactionDate) : receivedAt;
  if (date.getTime() < Date.parse(original.createdAt)) throw invalidField('transactionDate', `is before the original transaction (${original.createdAt})`);
  // The ledger's flow of the original (its processing code may have been overridden).
  const flow = (store.get(institutionId, original.id)?.flow || processingFlowOf(message['3'] ?? '')) as Plan['flow'] | undefined;
  const channel = (original.transactionChannel.channelType as Channel) || DEFAULT_CHANNEL;
  const cardId = original.card?.id;
  const stored = cardId ? store.cardById(institutionId, cardId) : undefined;
  const programId = stored ? programIdOf(stored.card) : undefined;
  return {
    intent: 'reversal',
    flow: flow ?? body.processingFlow,
    card: stored?.card ?? original.card ?? undefined,
    cardData: {
      pan: stored?.pan ?? '',
      expiry: message['14'] ?? original.dates.expiration,
      serviceCode: stored?.card.serviceCode || '101',
      account: message['102'] ?? original.accounts.account1,
    },
    given: {},
    program: programId ? store.program(institutionId, programId) : undefined,
    channel,
    method: paymentMethodOf(message['22'] ?? '') ?? DEFAULT_METHOD[channel],
    currency,
    digits,
    amountMinor,
    merchantId: message['42'] ?? original.merchantId,
    terminalId: message['41'] ?? original.terminalId,
    date,
    original,
  };
}

/** The id of a card's program (the card carries it as an id or expanded). */
function programIdOf(card: Card): string {
  return typeof card.cardProgram === 'string' ? card.cardProgram : card.cardProgram.id;
}

/** A stored transaction's card (clear PAN) and the card's program, as they are now. */
function cardAndProgramOf(store: SwitchStore, institutionId: string, record: Transaction) {
  const card = record.card?.id ? store.cardById(institutionId, record.card.id) : undefined;
  return { card, program: card ? store.program(institutionId, programIdOf(card.card)) : undefined };
}

function money(body: SimulateBody, fixedCurrency: string | undefined) {
  const currency = fixedCurrency ?? body.currency ?? '566';
  if (fixedCurrency && body.currency && body.currency !== fixedCurrency) {
    throw invalidField('currency', `must be the original's currency (${fixedCurrency})`);
  }
  let info: ReturnType<typeof cardCurrency>;
  try {
    info = cardCurrency(currency);
  } catch (error) {
    if (error instanceof AmountError) throw invalidField('currency', error.message);
    throw error;
  }
  try {
    return { currency: info.number, digits: info.digits, amountMinor: amountToMinor(body.amount, info.digits) };
  } catch (error) {
    if (error instanceof AmountError) throw invalidField('amount', `${error.message} (${info.code})`);
    throw error;
  }
}

/**
 * How long an answer may be awaited before its transaction counts as abandoned: far past the
 * webhook deadline, so only a sandbox stopped in the middle of an exchange leaves one behind.
 */
export const ABANDONED_AFTER_MS = 60_000;

function isAbandoned(stored: StoredTransaction, at: Date): boolean {
  return stored.state === 'awaiting' && at.getTime() - Date.parse(stored.record.createdAt) > ABANDONED_AFTER_MS;
}

/**
 * An abandoned transaction fails (96) through the table, like one whose webhook timed out; an
 * abandoned reversal gives its original back (reversing → approved).
 */
function settleAbandoned(store: SwitchStore, institutionId: string, id: string, at: Date): void {
  const reason = 'no answer was applied: the sandbox stopped while awaiting it';
  let originalId: string | undefined;
  const settled = applyEvent(store, institutionId, id, 'answer-declines', at, (record, stored) => {
    originalId = stored.originalId;
    const response = buildResponse(record.originalMessage, '96');
    record.response = response;
    record.responseCode = '96';
    record.timestamps.institutionToService = hop(at, 'inbound', `institution to service: ${reason}`);
    record.timestamps.serviceToSwitch = hop(at, 'outbound', `service to switch: ${response['0'] ?? ''} 96 ${responseMessage('96')}`);
    return { record };
  });
  if (!settled.ok || !originalId) return;
  const abandoned = store.get(institutionId, id)!;
  if (abandoned.kind === 'reversal') applyEvent(store, institutionId, originalId, 'reversal-declined', at, (record) => ({ record }));
  if (abandoned.kind === 'refund') ledger.giveBackRefund(store, institutionId, abandoned, at);
}

/** Settles a transaction, or the reversal of it in progress, if abandoned. */
function settleAbandonedAround(store: SwitchStore, institutionId: string, id: string, at: Date): void {
  const current = store.get(institutionId, id);
  if (!current) return;
  if (isAbandoned(current, at)) return settleAbandoned(store, institutionId, id, at);
  const inFlight = current.state === 'reversing' ? store.awaitingReversalOf(institutionId, id) : undefined;
  if (inFlight && isAbandoned(inFlight, at)) settleAbandoned(store, institutionId, inFlight.record.id, at);
}

/** Settles every transaction abandoned before `at` (a sandbox starting on a database another one left). */
export function recoverAbandoned(store: SwitchStore, at: Date): number {
  const before = new Date(at.getTime() - ABANDONED_AFTER_MS).toISOString();
  const rows = store.awaitingBefore(before);
  for (const row of rows) store.atomically(() => settleAbandoned(store, row.institutionId, row.id, at));
  return rows.length;
}

/**
 * The transaction's answer (its record already settled): awaiting → approved or declined (a
 * partial approval holds what was approved); then the ledger applies it to its original. An
 * answer for a transaction no longer awaiting one changes nothing. Returns the transaction as
 * stored.
 */
function applyAnswer(store: SwitchStore, institutionId: string, inserted: StoredTransaction, plan: Plan, amountMinor: bigint, approvedMinor: bigint, at: Date): Transaction {
  const { record } = inserted;
  const approved = isApproved(record.responseCode);
  const answered = applyEvent(store, institutionId, inserted, approved ? 'answer-approves' : 'answer-declines', at,
    () => ({ record, ...(approvedMinor !== amountMinor ? { amountMinor: Number(approvedMinor) } : {}) }));
  if (!answered.ok) return store.get(institutionId, record.id)?.record ?? record;
  if (plan.original) {
    ledger.applyLinkedAnswer(store, institutionId, kindOf(plan), plan.original.id, { approved, requestedMinor: amountMinor, approvedMinor, messageId: record.id }, at);
  }
  return record;
}

function approvalCode(): string {
  return String(randomInt(1_000_000)).padStart(6, '0');
}

function hop(at: Date, direction: 'inbound' | 'outbound', description: string) {
  return { timestamp: at.toISOString(), direction, description };
}

/** Applies a response to the record: code, the last two hops, duration (the state moves in applyAnswer). */
function settle(record: Transaction, response: SwitchMessage, inboundAt: Date, answeredAt: Date, started: number, inboundDescription: string): void {
  const code = response['39'] ?? '96';
  record.response = maskMessage(response);
  record.responseCode = code;
  if (record.timestamps.serviceToInstitution.description === '') {
    record.timestamps.serviceToInstitution = hop(inboundAt, 'outbound', inboundDescription);
  }
  record.timestamps.institutionToService = hop(inboundAt, 'inbound', inboundDescription);
  record.timestamps.serviceToSwitch = hop(answeredAt, 'outbound', `service to switch: ${response['0'] ?? ''} ${code} ${responseMessage(code)}`.trim());
  record.duration = Math.max(0, Math.round(performance.now() - started));
  record.updatedAt = answeredAt.toISOString();
}

interface RecordInput {
  plan: Plan;
  institution: Institution;
  request: SwitchMessage;
  amountMinor: bigint;
  receivedAt: Date;
  mode: ResponseMode;
}

function buildRecord({ plan, institution, request, amountMinor, receivedAt, mode }: RecordInput): Transaction {
  const id = newId();
  const at = receivedAt.toISOString();
  const major = minorToMajor(amountMinor, plan.digits);
  const method = plan.method;
  const pan = request['2'] ?? plan.cardData.pan;
  const currency = request['49'] ?? plan.currency;
  const pending = hop(receivedAt, 'outbound', '');
  return {
    _id: id,
    id,
    card: plan.card ?? null,
    institution,
    mti: request['0'] ?? requestMtiOf(plan),
    stan: request['11'] ?? '',
    rrn: request['37'] ?? '',
    processingCode: request['3'] ?? '',
    terminalId: request['41'] ?? plan.terminalId,
    merchantId: request['42'] ?? plan.merchantId,
    correlationId: randomUUID(),
    messageType: plan.kind ?? plan.intent,
    amount: major,
    merchantFeeAmount: 0,
    transactionAmount: major,
    amounts: { amount: toField4(amountMinor), currency },
    dates: {
      transmission: request['7'] ?? '',
      local: `${request['13'] ?? ''}${request['12'] ?? ''}`,
      expiration: request['14'] ?? plan.cardData.expiry,
    },
    cardData: { pan: pan ? maskPan(pan) : '', track2: request['35'] ? maskTrack(request['35']) : '', _id: newId() },
    tppData: null,
    nestedFields: null,
    metadata: null,
    additionaldata: null,
    transactionType: null,
    transactionAccount: null,
    reversed: false,
    reversalId: '',
    ...(plan.kind ? { messageKind: plan.kind } : {}),
    ...(plan.kind && plan.original ? { originalTransactionId: plan.original.id } : {}),
    originalMessage: maskMessage(request),
    response: {},
    responseCode: '',
    timestamps: {
      switchToService: hop(receivedAt, 'inbound', `switch to service: ${request['0'] ?? ''} ${mode === 'forward' ? '(forward mode)' : '(stub mode)'}`),
      serviceToInstitution: pending,
      institutionToService: hop(receivedAt, 'inbound', ''),
      serviceToSwitch: hop(receivedAt, 'outbound', ''),
    },
    isDeleted: false,
    transactionStatus: 'pending',
    transactionChannel: {
      channelType: plan.channel,
      detailedChannelType: `${plan.channel}_${method}`.toUpperCase(),
      entryMode: request['22'] ?? '',
      posConditionCode: request['25'] ?? '',
      serviceCode: plan.cardData.serviceCode,
      posDataCode: request['123'] ?? '',
      isCardPresent: plan.channel !== 'web' && method !== 'moto' && method !== 'ecom',
      isOnline: true,
      isPhysical: isPhysical(method),
      isAtm: plan.channel === 'atm',
      timestamp: at,
    },
    accounts: { account1: request['102'] ?? plan.cardData.account },
    posData: { capabilities: capabilitiesOf(plan.channel) },
    duration: 0,
    createdAt: at,
    updatedAt: at,
    __v: 0,
  };
}

function capabilitiesOf(channel: Channel): string {
  if (channel === 'web') return 'keyed';
  if (channel === 'atm') return 'chip,magstripe,pin';
  return 'chip,magstripe,contactless,pin';
}

/**
 * Messages as stored and answered: the PAN (2, 34) masked and track 2 cut to the masked PAN,
 * expiry and service code. Only the webhook sees the clear message.
 */
function maskMessage(message: SwitchMessage): SwitchMessage {
  const out = { ...message };
  for (const field of ['2', '34']) if (out[field]) out[field] = maskPan(out[field]!);
  if (out['35']) out['35'] = maskTrack(out['35']);
  return out;
}

/** Track 2 as stored on the record: PAN masked, discretionary data dropped. */
function maskTrack(track: string): string {
  const [pan, rest = ''] = track.split(/[=D]/);
  return `${maskPan(pan ?? '')}=${rest.slice(0, 7)}`;
}

// ---------- lifecycle messages (sandbox extensions; docs/switch.md) ----------


/** How long a late reply is still read after the network's deadline (to send a timeout reversal). */
export const LATE_REPLY_WINDOW_MS = 5_000;

/** The default hold period of an authorization, hours (a program's `holdPeriodHours` replaces it). */
export const DEFAULT_HOLD_PERIOD_HOURS = 168;

/**
 * The original of a linked message, which must exist (404) and be of the caller's institution;
 * the plan reuses its card, channel, method, merchant and currency, and runs the checks on
 * the card as it is now.
 */
function planLinked(store: SwitchStore, institutionId: string, body: LifecycleBody, receivedAt: Date): Plan {
  if (body.message === 'advice') {
    const plan = planDebit(store, institutionId, { ...body, intent: 'authorization', processingFlow: body.processingFlow ?? 'purchase', amount: body.amount ?? 0 }, receivedAt);
    return { ...plan, kind: 'advice', networkCode: body.networkResponseCode ?? '00' };
  }
  if (!body.originalTransactionId) throw invalidField('originalTransactionId', `is required for ${body.message === 'increment' ? 'an' : 'a'} ${body.message}`);
  if (body.amount === undefined) throw invalidField('amount', `is required for ${body.message === 'increment' ? 'an' : 'a'} ${body.message}`);
  const base = planReversal(store, institutionId, { intent: 'reversal', processingFlow: 'purchase', amount: body.amount, originalTransactionId: body.originalTransactionId, ...(body.currency ? { currency: body.currency } : {}) }, receivedAt);
  const original = base.original!;
  const row = store.get(institutionId, original.id)!;
  if (row.originalId) throw new DomainError('conflict', `transaction ${original.id} is a ${original.messageKind ?? 'linked message'}; name its original ${row.originalId}`);
  if (body.message !== 'refund' && row.kind !== 'authorization' && row.kind !== 'advice') {
    throw new DomainError('conflict', `transaction ${original.id} is not an authorization; ${body.message === 'increment' ? 'only an authorization can be incremented' : 'only an authorization is completed'}`);
  }
  return {
    ...base,
    kind: body.message,
    intent: body.message === 'refund' ? 'financial' : 'authorization',
    flow: body.message === 'refund' ? 'refund' : base.flow,
    // The checks run on the card as it is now: its expiry and status.
    given: {},
  };
}

function repeatEntry(at: Date, mti: string, agreed: boolean, responseCode = '') {
  return { at: at.toISOString(), mti, responseCode, agreed };
}

export interface Exchange {
  outcome: WebhookOutcome;
  sentAt: Date;
  /** From the network sending the message (an injected delay included) to the outcome, ms. */
  latencyMs: number;
  /** The faults injected, as recorded on the transaction. */
  faults: string[];
  /** With a duplicate delivery: whether the webhook answered both copies alike. */
  duplicateAgreed?: boolean;
  /** The webhook's answer when the network did not take it (after the deadline, or lost). */
  late?: Promise<WebhookOutcome>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One exchange with the webhook, through the webhook faults: delay, the network's deadline
 * (past it the answer is not taken, but still read for LATE_REPLY_WINDOW_MS when the caller
 * can act on it), duplicate delivery, reset after sending, reply lost, garbage.
 */
async function exchangeWithWebhook(deps: SwitchDeps, config: CardProgram['webHookConfig'] | undefined, request: SwitchMessage): Promise<Exchange> {
  const now = deps.now ?? (() => new Date());
  const baseDeadline = deps.webhook?.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const draw = deps.webhookFaults?.draw() ?? { delayMs: 0, deadlineMs: baseDeadline, duplicate: false, reset: false, replyLost: false, garbage: false };
  const faults = describeDraw(draw);
  if (!config?.url) {
    return { outcome: { ok: false, cause: 'no-url', reason: 'the card program has no webHookConfig.url (set one, e.g. `cardctl sandbox serve --webhook-url URL`)' }, sentAt: now(), latencyMs: 0, faults };
  }
  const started = Date.now();
  const startedPerf = performance.now();
  if (draw.delayMs > 0) await sleep(draw.delayMs);
  const sentAt = now();
  // A delay that used up the deadline: the message still reaches the webhook, too late.
  const remaining = Math.max(0, draw.deadlineMs - (Date.now() - started));
  const readFor = deps.background ? remaining + LATE_REPLY_WINDOW_MS : Math.max(1, remaining);
  const call = () => (deps.callWebhook ?? callWebhook)(config, request, { ...deps.webhook, timeoutMs: readFor })
    .catch((error: Error): WebhookOutcome => ({ ok: false, reason: `the webhook call failed: ${error.message}` }));
  const first = call();
  const second = draw.duplicate ? call() : undefined;
  const timeout: WebhookOutcome = { ok: false, timedOut: true, cause: 'timeout', reason: `no reply from the webhook within ${draw.deadlineMs / 1000} s (timeout)` };
  let outcome: WebhookOutcome;
  let late: Promise<WebhookOutcome> | undefined;
  if (remaining === 0) {
    outcome = timeout;
    late = first;
  } else if (readFor > remaining) {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => { timer = setTimeout(() => resolve('deadline'), remaining); });
    const raced = await Promise.race([first, deadline]);
    clearTimeout(timer);
    if (raced === 'deadline') { outcome = timeout; late = first; } else outcome = raced;
  } else {
    outcome = await first;
  }
  const latencyMs = Math.round(performance.now() - startedPerf);
  let duplicateAgreed: boolean | undefined;
  if (second) {
    const other = await second;
    duplicateAgreed = outcome.ok && other.ok ? outcome.reply['39'] === other.reply['39'] : outcome.ok === other.ok;
  }
  if (outcome.ok) {
    if (draw.reset) outcome = { ok: false, cause: 'reset', reason: 'the connection was reset after the message was sent (injected fault)' };
    else if (draw.replyLost) { late = Promise.resolve(outcome); outcome = { ok: false, cause: 'reply-lost', reason: "the webhook's reply was lost on the way to the network (injected fault)" }; }
    else if (draw.garbage) outcome = { ok: false, cause: 'invalid-reply', reason: 'the webhook reply is not JSON (injected garbage)' };
  }
  return { outcome, sentAt, latencyMs, faults, ...(duplicateAgreed !== undefined ? { duplicateAgreed } : {}), ...(late ? { late } : {}) };
}

/**
 * The network's decision when the webhook gave no usable answer: the program's stand-in policy
 * (`decline` → 96, the default; `approve` → 00 for at most `maxAmount` each and `dailyAmount` a
 * card and UTC day). Only for requests that hold or take money; a refund fails with 96.
 */
function standInDecision(store: SwitchStore, plan: Plan, entry: ledger.Entry, day: string, reason: string): { decision: string; reason: string } | undefined {
  if (plan.kind === 'refund' || plan.intent === 'reversal') return undefined;
  const policy = plan.program?.standIn;
  if (!policy || policy.mode !== 'approve' || !plan.card) return { decision: '96', reason };
  const fits = ledger.standInFits(store, policy, plan.card.id, entry, day);
  return fits ? { decision: '00', reason } : { decision: '96', reason: `${reason}; over the stand-in amounts` };
}

/**
 * After a stand-in: an approval is delivered to the webhook as an advice, with the decision
 * (39) and why the network stood in (44); a decline whose webhook approved after all (late, or
 * its reply lost) is reversed at the webhook (a timeout reversal). Either stands, and is
 * repeated until the webhook acknowledges it.
 */
async function afterStandIn(deps: SwitchDeps, institutionId: string, record: Transaction, plan: Plan, request: SwitchMessage, exchange: Exchange, standIn: { decision: string }): Promise<void> {
  const now = deps.now ?? (() => new Date());
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

/** A plain reversal stands when the webhook gives no usable answer: the network releases the hold and repeats it (0421). */
function reversalStands(plan: Plan): boolean {
  return plan.intent === 'reversal' && plan.kind === undefined;
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

/** Rewrites a record where it stands (no change of state): advice deliveries, repeats. */
function rewrite(store: SwitchStore, institutionId: string, id: string, at: Date, change: (record: Transaction) => void): Transaction | undefined {
  const stored = store.get(institutionId, id);
  if (!stored) return undefined;
  change(stored.record);
  stored.record.updatedAt = at.toISOString();
  store.changeState({ institutionId, id, from: stored.state, to: stored.state, record: stored.record });
  return stored.record;
}

/** A delivery of an advice or a standing reversal: acknowledged by any valid reply (the webhook cannot decline it). */
function recordAdviceDelivery(store: SwitchStore, institutionId: string, id: string, exchange: Pick<Exchange, 'outcome' | 'faults'>, at: Date): Transaction {
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
  const now = deps.now ?? (() => new Date());
  const stored = deps.store.get(institutionId, id);
  if (!stored?.record.advice || stored.record.advice.acknowledged) return true;
  const { card, program } = cardAndProgramOf(deps.store, institutionId, stored.record);
  const config = program?.webHookConfig;
  const message = deliveryMessage(stored.record, stored.record.advice, card?.pan);
  const outcome: WebhookOutcome = config?.url
    ? await (deps.callWebhook ?? callWebhook)(config, message, deps.webhook).catch((error: Error) => ({ ok: false as const, reason: `the webhook call failed: ${error.message}` }))
    : { ok: false, cause: 'no-url', reason: 'the card program has no webHookConfig.url' };
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

/**
 * A repeat (0101, 0421, …): the network resends a message whose answer it did not see, same
 * STAN and RRN. The sandbox answers as it did the first time (no second hold); in forward mode
 * the webhook gets the repeat too, and whether its answer agreed is recorded on the original.
 */
export async function simulateRepeat(deps: SwitchDeps, institutionId: string, id: string, mode: ResponseMode): Promise<SimulateEnvelope> {
  const now = deps.now ?? (() => new Date());
  const stored = deps.store.get(institutionId, id);
  if (!stored) throw new DomainError('not-found', `transaction ${id} not found`);
  if (stored.state === 'awaiting') throw new DomainError('conflict', `transaction ${id} is still awaiting its answer; a repeat is answered once it has one`);
  const mti = repeatMtiOf(stored.record.mti);
  let responseCode = stored.record.responseCode;
  let faults: string[] = [];
  let sent: Exchange | undefined;
  if (mode === 'forward') {
    const { card, program } = cardAndProgramOf(deps.store, institutionId, stored.record);
    const message: SwitchMessage = { ...stored.record.originalMessage, '0': mti, ...(card ? { '2': card.pan } : {}) };
    delete message['35'];
    const exchange = await exchangeWithWebhook({ ...deps, background: undefined }, program?.webHookConfig, message);
    responseCode = exchange.outcome.ok ? exchange.outcome.reply['39'] ?? '' : '';
    faults = exchange.faults;
    sent = exchange;
  }
  const record = deps.store.atomically(() => rewrite(deps.store, institutionId, id, now(), (current) => {
    current.repeats = [...(current.repeats ?? []), { ...repeatEntry(now(), mti, responseCode === current.responseCode, responseCode), ...(faults.length > 0 ? { webhookFaults: faults } : {}) }];
  }))!;
  return answerOf(record, { exchange: sent });
}

/** Releases an approved authorization's hold (reason expiry): `reversed`. 409 when it holds nothing. */
export function expireHold(store: SwitchStore, institutionId: string, id: string, at: Date): Transaction {
  store.atomically(() => ledger.expire(store, institutionId, id, at));
  return store.get(institutionId, id)!.record;
}

/** Expires every approved authorization older than its program's hold period at `at`; how many. */
export function expireDue(store: SwitchStore, at: Date): number {
  let count = 0;
  for (const { institutionId, id } of store.approvedAuthorizationsBefore(at.toISOString())) {
    const stored = store.get(institutionId, id);
    const hours = (stored ? cardAndProgramOf(store, institutionId, stored.record).program?.holdPeriodHours : undefined) ?? DEFAULT_HOLD_PERIOD_HOURS;
    if (!stored || at.getTime() - Date.parse(stored.record.createdAt) < hours * 3_600_000) continue;
    try { expireHold(store, institutionId, id, at); count += 1; } catch { /* moved on meanwhile */ }
  }
  return count;
}

/**
 * The lifecycle of a transaction: its original and every linked message in order, with the
 * amounts (major units) authorized, held, captured, released and refunded.
 */
export function lifecycleOf(store: SwitchStore, institutionId: string, id: string): Lifecycle {
  const named = store.get(institutionId, id);
  if (!named) throw new DomainError('not-found', `transaction ${id} not found`);
  const original = named.originalId ? store.get(institutionId, named.originalId) ?? named : named;
  const digits = currencyInfo(original.currency)?.digits ?? 2;
  const major = (minor: number) => minorToMajor(Math.max(0, minor), digits);
  const linked = store.linked(institutionId, original.record.id);
  const balances = ledger.balancesOf(original, linked);
  const entry = (s: StoredTransaction) => ({
    transactionId: s.record.id,
    mti: s.record.mti,
    messageKind: s.record.messageKind ?? (s.kind || s.record.mti),
    amount: s.record.amount,
    responseCode: s.record.responseCode,
    transactionStatus: s.record.transactionStatus,
    createdAt: s.record.createdAt,
  });
  return {
    originalTransactionId: original.record.id,
    transactionStatus: original.record.transactionStatus,
    currency: original.currency,
    amounts: {
      requested: original.record.requestedAmount ?? original.record.amount,
      authorized: major(balances.authorized),
      held: major(balances.held),
      captured: major(balances.captured),
      released: major(balances.released),
      refunded: major(balances.refunded),
    },
    messages: [original, ...linked].map(entry),
  };
}
