// The simulator: POST /institutions/{switch}/simulate. Resolves the card and the original
// (reversals), builds the request message, runs the service checks, then approves (stub) or
// asks the program's webhook (forward), and stores the full Transaction record.
//
// Concurrency: the checks read today's usage and the new transaction is inserted (state
// `awaiting`) in ONE synchronous SQLite transaction (no await in between), so N parallel
// simulations on a card can never take more than its daily count; only then is the webhook
// awaited, and its answer is applied in a second one. Every change of state goes through the
// table of states.ts with a conditional write: an answer only settles a transaction still
// awaiting one, and a reversal moves its original approved → reversing when it starts and on
// when it is answered, so a transaction awaiting its answer, declined, already reversed or
// being reversed cannot be reversed (409), and two reversals never overlap.
import { randomInt, randomUUID } from 'node:crypto';
import type { Card, CardProgram, Institution, SimulateBody, SimulateEnvelope, Transaction } from '../../api/schemas.js';
import { AmountError, amountToMinor, currencyInfo, isField4, minorToMajor, toField4 } from '../../iso8583/amount.js';
import { intentOfMti, isApproved, MTI, paymentMethodOf, processingFlowOf, responseMessage, type Channel, type Intent, type PaymentMethod } from '../../iso8583/codes.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { maskPan } from '../../core/redact.js';
import { cardExpiryYYMM, checkCard, checkChannel, checkLimits, toYYMM, type UsedToday } from './checks.js';
import { buildRequest, buildResponse, dayOf, DEFAULT_CHANNEL, DEFAULT_MERCHANT, DEFAULT_METHOD, DEFAULT_TERMINAL, isPhysical, retrievalReferenceNumber, type CardData } from './message.js';
import { DomainError, invalidField } from '../errors.js';
import { newId } from '../ids.js';
import { callWebhook, type WebhookCallOptions, type WebhookOutcome } from './webhook.js';
import type { StateChange, StoredTransaction, TransactionIndex } from '../store/transactions.js';
import { isRefusal, nextState, transactionStatusOf, type TransactionEvent, type TransactionState } from './states.js';

/** What the simulator needs from the store. Every method is synchronous (libsql). */
export interface SwitchStore {
  institution(id: string): Institution | undefined;
  cardById(institutionId: string, cardId: string): { card: Card; pan: string } | undefined;
  cardByPan(pan: string): { card: Card; pan: string } | undefined;
  program(institutionId: string, programId: string): CardProgram | undefined;
  /** Runs `work` in one write transaction (BEGIN IMMEDIATE … COMMIT). */
  atomically<T>(work: () => T): T;
  /** The institution's next STAN of that day, 1-based (wraps after 999999 in the caller). */
  nextStan(institutionId: string, day: string): number;
  /** Approved and in-flight debits of the card on that channel and day. */
  usage(cardId: string, channel: Channel, day: string): UsedToday;
  insert(record: Transaction, index: TransactionIndex): void;
  /** The transaction with its state and amounts. */
  get(institutionId: string, id: string): StoredTransaction | undefined;
  /** Moves a transaction from `from` to `to`; false (nothing written) when it is no longer in `from`. */
  changeState(change: StateChange): boolean;
  /** The newest transaction of the institution with that STAN and RRN. */
  findByStanRrn(institutionId: string, stan: string, rrn: string): Transaction | undefined;
  /** The reversal of a transaction that is awaiting its answer. */
  awaitingReversalOf(institutionId: string, originalId: string): StoredTransaction | undefined;
  /** Transactions (any institution) awaiting their answer since before `createdAt`. */
  awaitingBefore(createdAt: string): Array<{ institutionId: string; id: string }>;
}

export type { StateChange, StoredTransaction, TransactionIndex } from '../store/transactions.js';

export interface SwitchDeps {
  store: SwitchStore;
  now?: () => Date;
  webhook?: WebhookCallOptions;
  /** Replaces the webhook call (tests). */
  callWebhook?: typeof callWebhook;
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
}

export async function simulate(deps: SwitchDeps, institutionId: string, body: SimulateBody): Promise<SimulateEnvelope> {
  const now = deps.now ?? (() => new Date());
  const receivedAt = now();
  const started = performance.now();
  const { store } = deps;
  const institution = store.institution(institutionId);
  if (!institution) throw new DomainError('not-found', `institution ${institutionId} not found`);

  const plan = body.intent === 'reversal' ? planReversal(store, institutionId, body, receivedAt) : planDebit(store, institutionId, body, receivedAt);
  const mode = body.responseMode ?? 'stub';

  // An answer that will never come (the original's own, or that of a reversal of it) is settled
  // first, in its own transaction: it stands whatever becomes of this reversal.
  if (plan.original) store.atomically(() => settleAbandonedAround(store, institutionId, plan.original!.id, now()));

  // ---- synchronous: checks, reservation, insert ----
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
    if (body.overrides) request = { ...request, ...body.overrides };
    const amountMinor = isField4(request['4']) ? BigInt(request['4']) : plan.amountMinor;
    const debit = plan.intent !== 'reversal' && !(request['3'] ?? '').startsWith('20');

    let code: string | undefined;
    if (plan.intent === 'reversal') {
      startReversal(store, institutionId, plan, request, amountMinor, now());
    } else {
      code = checkCard(plan.card, plan.given, plan.date)
        ?? checkChannel(plan.program, plan.channel)
        ?? checkLimits(plan.program, plan.channel, () => store.usage(plan.card!.id, plan.channel, day), amountMinor, plan.digits, debit);
    }
    const stub = code === undefined && mode === 'stub';
    const finalCode = code ?? (stub ? '00' : undefined);
    const record = buildRecord({ plan, institution, request, amountMinor, receivedAt, mode });
    store.insert(record, { channel: plan.channel, day, amountMinor: Number(amountMinor), state: 'awaiting', ...(plan.original ? { originalId: plan.original.id } : {}) });
    if (finalCode !== undefined) {
      const at = now();
      settle(record, buildResponse(request, finalCode, approvalCode()), at, at, started, code !== undefined ? `not sent: declined by the service (${code})` : 'not sent: approved by the sandbox stub');
      return { record: applyAnswer(store, institutionId, record, plan, amountMinor, now()), request, decided: true, amountMinor };
    }
    return { record, request, decided: false, amountMinor };
  });
  const { request: clearRequest, amountMinor } = inserted;
  let record = inserted.record;

  let failure: string | undefined;
  if (!inserted.decided) {
    // ---- forward: ask the institution, then apply its answer ----
    const sentAt = now();
    const config = plan.program?.webHookConfig;
    let outcome: WebhookOutcome;
    try {
      outcome = config?.url
        ? await (deps.callWebhook ?? callWebhook)(config, clearRequest, deps.webhook)
        : { ok: false, reason: 'the card program has no webHookConfig.url (set one, e.g. `cardctl sandbox serve --webhook-url URL`)' };
    } catch (error) {
      // Never leave a transaction awaiting: whatever went wrong, it settles as 96.
      outcome = { ok: false, reason: `the webhook call failed: ${(error as Error).message}` };
    }
    const repliedAt = now();
    const response = outcome.ok ? outcome.reply : buildResponse(clearRequest, '96');
    if (!outcome.ok) failure = outcome.reason;
    const sent = record;
    record = store.atomically(() => {
      sent.timestamps.serviceToInstitution = hop(sentAt, 'outbound', `service to institution: POST ${config?.url ?? '(no webhook)'}`);
      settle(sent, response, repliedAt, now(), started, outcome.ok ? `institution to service: replied ${response['39']}` : `institution to service: ${outcome.reason}`);
      return applyAnswer(store, institutionId, sent, plan, amountMinor, now());
    });
  }

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
    },
  };
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
  const programId = stored ? (typeof stored.card.cardProgram === 'string' ? stored.card.cardProgram : stored.card.cardProgram.id) : undefined;
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
    date: body.transactionDate ? new Date(body.transactionDate) : receivedAt,
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
  const channel = (original.transactionChannel.channelType as Channel) || DEFAULT_CHANNEL;
  const cardId = original.card?.id;
  const stored = cardId ? store.cardById(institutionId, cardId) : undefined;
  const programId = stored ? (typeof stored.card.cardProgram === 'string' ? stored.card.cardProgram : stored.card.cardProgram.id) : undefined;
  return {
    intent: 'reversal',
    flow: processingFlowOf(message['3'] ?? '') ?? body.processingFlow,
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
    date: body.transactionDate ? new Date(body.transactionDate) : receivedAt,
    original,
  };
}

function money(body: SimulateBody, fixedCurrency: string | undefined) {
  const currency = fixedCurrency ?? body.currency ?? '566';
  if (fixedCurrency && body.currency && body.currency !== fixedCurrency) {
    throw invalidField('currency', `must be the original's currency (${fixedCurrency})`);
  }
  const info = currencyInfo(currency);
  if (!info) throw invalidField('currency', `"${currency}" is not an ISO 4217 numeric currency code`);
  try {
    return { currency: info.number, digits: info.digits, amountMinor: amountToMinor(body.amount, info.digits) };
  } catch (error) {
    if (error instanceof AmountError) throw invalidField('amount', `${error.message} (${info.code})`);
    throw error;
  }
}

/**
 * Applies `event` to a stored transaction through the table: refused (nothing written) where
 * the table says so or when the row moved on since it was read; else `change` edits the record
 * and the row moves to the next state.
 */
export function applyEvent(
  store: SwitchStore,
  institutionId: string,
  id: string,
  event: TransactionEvent,
  at: Date,
  change: (record: Transaction, stored: StoredTransaction, to: TransactionState) => { record: Transaction; reversedMinor?: number },
  check?: (stored: StoredTransaction) => void,
): { ok: true; to: TransactionState } | { ok: false; reason: string } {
  const stored = store.get(institutionId, id);
  if (!stored) return { ok: false, reason: `transaction ${id} not found` };
  const to = nextState(stored.state, event);
  if (isRefusal(to)) return { ok: false, reason: `transaction ${id} ${to.refused(stored.record)}` };
  check?.(stored);
  const { record, reversedMinor } = change(stored.record, stored, to);
  record.transactionStatus = transactionStatusOf(to, record.mti);
  record.updatedAt = at.toISOString();
  const moved = store.changeState({ institutionId, id, from: stored.state, to, record, reversedMinor });
  return moved ? { ok: true, to } : { ok: false, reason: `transaction ${id} changed while it was being updated` };
}

/**
 * A reversal starts: its original must be approved (not awaiting its answer, declined, being
 * reversed or reversed: 409), the amount more than 0 and at most what remains of it (400), in
 * its currency; the original moves to `reversing` until the reversal is answered.
 */
function startReversal(store: SwitchStore, institutionId: string, plan: Plan, request: SwitchMessage, amountMinor: bigint, at: Date): void {
  const originalId = plan.original!.id;
  const current = store.get(institutionId, originalId);
  if (!current) throw new DomainError('not-found', `original transaction ${originalId} not found`);
  if (intentOfMti(current.record.mti) === 'reversal') throw new DomainError('conflict', `transaction ${originalId} is a reversal and cannot be reversed`);
  const started = applyEvent(store, institutionId, originalId, 'reversal-requested', at, (record) => ({ record }), (stored) => {
    const currency = stored.record.amounts.currency;
    if ((request['49'] ?? currency) !== currency) throw invalidField('overrides', `field 49 must be the original's currency (${currency})`);
    const remaining = BigInt(stored.amountMinor - stored.reversedMinor);
    if (amountMinor <= 0n) throw invalidField('amount', 'of a reversal must be more than 0');
    if (amountMinor > remaining) {
      const left = remaining === BigInt(stored.amountMinor) ? '' : ` of ${minorToMajor(stored.amountMinor, plan.digits)}, the rest having been reversed`;
      throw invalidField('amount', `exceeds what remains of the original (${minorToMajor(remaining, plan.digits)}${left})`);
    }
  });
  if (!started.ok) {
    const holder = store.awaitingReversalOf(institutionId, originalId);
    throw new DomainError('conflict', holder ? `${started.reason} (${holder.record.id})` : started.reason);
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
  if (settled.ok && originalId) applyEvent(store, institutionId, originalId, 'reversal-declined', at, (record) => ({ record }));
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
 * The transaction's answer (its record already settled): awaiting → approved or declined. For
 * a reversal, then its original: reversing → approved (declined, or approved in part: only
 * that amount is given back) or reversed (approved for all that remained). An answer for a
 * transaction no longer awaiting one changes nothing. Returns the transaction as stored.
 */
function applyAnswer(store: SwitchStore, institutionId: string, record: Transaction, plan: Plan, amountMinor: bigint, at: Date): Transaction {
  const approved = isApproved(record.responseCode);
  const answered = applyEvent(store, institutionId, record.id, approved ? 'answer-approves' : 'answer-declines', at, () => ({ record }));
  if (!answered.ok) return store.get(institutionId, record.id)?.record ?? record;
  if (plan.intent !== 'reversal') return record;
  const original = store.get(institutionId, plan.original!.id);
  if (!original) return record;
  const reversedMinor = original.reversedMinor + (approved ? Number(amountMinor) : 0);
  const event: TransactionEvent = !approved ? 'reversal-declined'
    : reversedMinor >= original.amountMinor ? 'reversal-approved-in-full' : 'reversal-approved-in-part';
  applyEvent(store, institutionId, original.record.id, event, at, (current, stored, to) => {
    if (!approved) return { record: current };
    current.reversed = to === 'reversed';
    current.reversalId = record.id;
    current.remainingAmount = minorToMajor(Math.max(0, stored.amountMinor - reversedMinor), plan.digits);
    current.__v += 1;
    return { record: current, reversedMinor };
  });
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
  mode: 'stub' | 'forward';
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
    mti: request['0'] ?? MTI[plan.intent].request,
    stan: request['11'] ?? '',
    rrn: request['37'] ?? '',
    processingCode: request['3'] ?? '',
    terminalId: request['41'] ?? plan.terminalId,
    merchantId: request['42'] ?? plan.merchantId,
    correlationId: randomUUID(),
    messageType: plan.intent,
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
