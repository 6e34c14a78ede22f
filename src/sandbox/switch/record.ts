// The record: the Transaction a message is stored as (buildRecord), its answer applied to it
// (settle, then applyAnswer through the table of states.ts and the ledger), rewrites that
// change no state (advice deliveries, repeats), and the simulator's answer (answerOf). Messages
// are stored with the PAN masked and the card secrets redacted; only the webhook sees the clear
// message.
import { randomInt, randomUUID } from 'node:crypto';
import type { Institution, ResponseMode, SimulateEnvelope, SimulateResult, Transaction } from '../../api/schemas.js';
import { minorToMajor, toField4 } from '../../iso8583/amount.js';
import { isApproved, responseMessage, type Channel } from '../../iso8583/codes.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { maskPan, REDACTED } from '../../core/redact.js';
import { PAN_FIELDS, SENSITIVE_FIELDS } from '../../core/card-secret-fields.js';
import { newId } from '../ids.js';
import type { StoredTransaction } from '../store/transactions.js';
import type { Exchange } from './exchange.js';
import * as ledger from './ledger.js';
import { isPhysical } from '../../webhook-protocol/request.js';
import { kindOf, requestMtiOf, type Plan } from './plan.js';
import { applyEvent } from './states.js';
import type { SwitchStore } from './store-port.js';

/**
 * The simulator's answer. `exchange`: the message went to the webhook (the answer says how that
 * went); `failure`: why a 96 was given, for the message.
 */
export function answerOf(record: Transaction, { exchange, failure }: { exchange?: Pick<Exchange, 'outcome' | 'latencyMs'> | undefined; failure?: string | undefined } = {}): SimulateEnvelope {
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

/**
 * The transaction's answer (its record already settled): awaiting → approved or declined (a
 * partial approval holds what was approved); then the ledger applies it to its original. An
 * answer for a transaction no longer awaiting one changes nothing. Returns the transaction as
 * stored.
 */
export function applyAnswer(store: SwitchStore, institutionId: string, inserted: StoredTransaction, plan: Plan, amountMinor: bigint, approvedMinor: bigint, at: Date): Transaction {
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

export function approvalCode(): string {
  return String(randomInt(1_000_000)).padStart(6, '0');
}

export function hop(at: Date, direction: 'inbound' | 'outbound', description: string) {
  return { timestamp: at.toISOString(), direction, description };
}

/** Applies a response to the record: code, the last two hops, duration (the state moves in applyAnswer). */
export function settle(record: Transaction, response: SwitchMessage, inboundAt: Date, answeredAt: Date, started: number, inboundDescription: string): void {
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

export function buildRecord({ plan, institution, request, amountMinor, receivedAt, mode }: RecordInput): Transaction {
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
 * Messages as stored and answered: the PAN (2, 34) masked, track 2 cut to the masked PAN, expiry
 * and service code, every other card secret (track 3, track 1, PIN block, chip data) redacted
 * whole. Only the webhook sees the clear message.
 */
function maskMessage(message: SwitchMessage): SwitchMessage {
  const out = { ...message };
  for (const [field, value] of Object.entries(out)) {
    if (PAN_FIELDS.has(field)) out[field] = maskPan(value);
    else if (field === '35') out[field] = maskTrack(value);
    else if (SENSITIVE_FIELDS.has(field)) out[field] = REDACTED;
  }
  return out;
}

/**
 * A stored message sent to the webhook again (a repeat, an advice's delivery): the clear PAN put
 * back, the card secrets left out (they are stored masked or redacted, and a repeat carries none).
 */
export function resentMessage(stored: SwitchMessage, pan: string | undefined): SwitchMessage {
  const message: SwitchMessage = { ...stored, ...(pan ? { '2': pan } : {}) };
  for (const field of SENSITIVE_FIELDS) delete message[field];
  return message;
}

/** Track 2 as stored on the record: PAN masked, discretionary data dropped. */
function maskTrack(track: string): string {
  const [pan, rest = ''] = track.split(/[=D]/);
  return `${maskPan(pan ?? '')}=${rest.slice(0, 7)}`;
}

/** Rewrites a record where it stands (no change of state): advice deliveries, repeats. */
export function rewrite(store: SwitchStore, institutionId: string, id: string, at: Date, change: (record: Transaction) => void): Transaction | undefined {
  const stored = store.get(institutionId, id);
  if (!stored) return undefined;
  change(stored.record);
  stored.record.updatedAt = at.toISOString();
  store.changeState({ institutionId, id, from: stored.state, to: stored.state, record: stored.record });
  return stored.record;
}


export function repeatEntry(at: Date, mti: string, agreed: boolean, responseCode = '') {
  return { at: at.toISOString(), mti, responseCode, agreed };
}
