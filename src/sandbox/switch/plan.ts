// Planning a message: what the simulator is asked (a simulate body, a lifecycle body) turned
// into a Plan: the card and its program, channel, method, money (amountMinor in the currency's
// minor units), merchant and terminal, and the original for a linked message. Plans read the
// store and throw DomainErrors for what cannot be planned (404, 409, 400); the checks and the
// ledger's rules run later, inside the simulator's transaction (simulate.ts).
import type { Card, CardProgram, LifecycleBody, LifecycleKind, SimulateBody, Transaction } from '../../api/schemas.js';
import { AmountError, amountToMinor, cardCurrency } from '../../iso8583/amount.js';
import { MTI, paymentMethodOf, processingFlowOf, type Channel, type Intent, type PaymentMethod } from '../../iso8583/codes.js';
import { DomainError, invalidField } from '../errors.js';
import { cardExpiryYYMM, toYYMM } from './checks.js';
import type * as ledger from './ledger.js';
import { DEFAULT_CHANNEL, DEFAULT_MERCHANT, DEFAULT_METHOD, DEFAULT_TERMINAL, type CardData } from '../../webhook-protocol/request.js';
import type { SwitchStore } from './store-port.js';

export interface Plan {
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

/** The request MTI of a plan: the intent's, or the lifecycle message's own. */
export function requestMtiOf(plan: Plan): string {
  switch (plan.kind) {
    case 'completion': return '0220';
    case 'advice': return '0120';
    default: return MTI[plan.intent].request;
  }
}

/** What the ledger calls a planned message: the lifecycle kind, or the intent. */
export function kindOf(plan: Plan): ledger.EntryKind {
  return plan.kind ?? plan.intent;
}

/** Advices (0120, 0220) carry the network's decision: the webhook acknowledges, it cannot decline. */
export function isAdvice(plan: Plan): boolean {
  return plan.kind === 'completion' || plan.kind === 'advice';
}

/** A plain reversal stands when the webhook gives no usable answer: the network releases the hold and repeats it (0421). */
export function reversalStands(plan: Plan): boolean {
  return plan.intent === 'reversal' && plan.kind === undefined;
}

export function planDebit(store: SwitchStore, institutionId: string, body: SimulateBody, receivedAt: Date): Plan {
  const { currency, digits, amountMinor } = money(body, undefined);
  let stored: { card: Card; pan: string } | undefined;
  let cardData: CardData;
  const given: Plan['given'] = {};
  if (body.cardId !== undefined && body.cardId !== '') {
    stored = store.cardById(institutionId, body.cardId);
    cardData = stored ? cardDataOf(stored) : { pan: '', expiry: '', serviceCode: '101', account: '' };
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

export function planReversal(store: SwitchStore, institutionId: string, body: SimulateBody, receivedAt: Date): Plan {
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

/** A stored card as the switch puts it into a message: its PAN, expiry (YYMM), service code and account. */
export function cardDataOf(stored: { card: Card; pan: string }): CardData {
  return { pan: stored.pan, expiry: cardExpiryYYMM(stored.card), serviceCode: stored.card.serviceCode || '101', account: stored.card.account.number };
}

/** The id of a card's program (the card carries it as an id or expanded). */
export function programIdOf(card: Card): string {
  return typeof card.cardProgram === 'string' ? card.cardProgram : card.cardProgram.id;
}

/** A stored transaction's card (clear PAN) and the card's program, as they are now. */
export function cardAndProgramOf(store: SwitchStore, institutionId: string, record: Transaction) {
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
 * The original of a linked message, which must exist (404) and be of the caller's institution;
 * the plan reuses its card, channel, method, merchant and currency, and runs the checks on
 * the card as it is now.
 */
export function planLinked(store: SwitchStore, institutionId: string, body: LifecycleBody, receivedAt: Date): Plan {
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
