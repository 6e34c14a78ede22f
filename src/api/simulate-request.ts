// Turns what the operator gave (flags, or a scenario step's keys) into the simulate body,
// checking everything the server would reject before anything is sent (usage errors, exit 2).
import type { SimulateBody } from './schemas.js';
import { UsageError } from '../core/errors.js';
import { validateDateTime } from '../core/validate.js';
import { AmountError, cardCurrency, DEFAULT_CURRENCY, minorToDecimal, parseAmount, type CurrencyInfo } from '../iso8583/amount.js';
import { CHANNELS, INTENTS, PAYMENT_METHODS, PROCESSING_FLOWS } from '../core/enums.js';

export type IntentName = (typeof INTENTS)[number];

/** One simulation as the operator describes it (flag names in camelCase). */
export interface SimulationInput {
  intent: IntentName;
  amount?: string | number;
  flow?: string;
  card?: string;
  pan?: string;
  expiry?: string;
  account?: string;
  channel?: string;
  method?: string;
  currency?: string | number;
  merchant?: string;
  terminal?: string;
  forward?: boolean;
  originalTx?: string;
  originalStan?: string;
  originalRrn?: string;
  date?: string;
  /** `--set F=V` texts, or a scenario's `set: {F: V}` map. */
  set?: string[] | Record<string, unknown>;
}

/** How a key is named in messages: `--original-tx` for flags, `originalTx` in a scenario. */
export type Namer = (key: keyof SimulationInput) => string;
export const flagName: Namer = (key) => `--${String(key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

export interface BuiltSimulation {
  body: SimulateBody;
  /** The amount as the body carries it, for messages ("1500.00"). */
  amountText: string;
}

export function buildSimulateBody(input: SimulationInput, name: Namer = flagName, prefix = ''): BuiltSimulation {
  const fail = (message: string, hint?: string): never => {
    throw new UsageError(`${prefix}${message}`, hint ? { hint } : {});
  };
  const text = (value: unknown) => (value === undefined || value === null ? undefined : String(value).trim());

  if (!(INTENTS as readonly string[]).includes(input.intent)) fail(`${name('intent')} must be one of ${INTENTS.join(', ')}`);
  const flow = text(input.flow) ?? 'purchase';
  if (!(PROCESSING_FLOWS as readonly string[]).includes(flow)) fail(`invalid ${name('flow')} "${flow}": use one of ${PROCESSING_FLOWS.join(', ')}`);
  const channel = text(input.channel);
  if (channel !== undefined && !(CHANNELS as readonly string[]).includes(channel)) fail(`invalid ${name('channel')} "${channel}": use one of ${CHANNELS.join(', ')}`);
  const method = text(input.method);
  if (method !== undefined && !(PAYMENT_METHODS as readonly string[]).includes(method)) fail(`invalid ${name('method')} "${method}": use one of ${PAYMENT_METHODS.join(', ')}`);

  const currencyText = text(input.currency) ?? DEFAULT_CURRENCY;
  let currency: CurrencyInfo | undefined;
  try {
    currency = cardCurrency(currencyText);
  } catch (error) {
    if (error instanceof AmountError) fail(`invalid ${name('currency')}: ${error.message}; expected a currency such as 566 (NGN) or 840 (USD)`);
    throw error;
  }

  // A balance inquiry moves no money: its amount is 0 unless given (the sandbox refuses another).
  const amountText = text(input.amount) ?? (flow === 'balance_inquiry' ? '0' : undefined);
  if (amountText === undefined || amountText === '') fail(`${name('amount')} is required`, 'give the amount in major units, e.g. --amount 1500.00');
  let minor: bigint;
  try {
    minor = parseAmount(amountText!, currency!.digits);
  } catch (error) {
    if (error instanceof AmountError) fail(`invalid ${name('amount')}: ${error.message} (${currency!.code})`);
    throw error;
  }
  const decimal = minorToDecimal(minor!, currency!.digits);

  const body: SimulateBody = { intent: input.intent, processingFlow: flow as SimulateBody['processingFlow'], amount: Number(decimal) };
  if (input.currency !== undefined) body.currency = currency!.number;
  if (channel) body.channel = channel as SimulateBody['channel'];
  if (method) body.paymentMethod = method as SimulateBody['paymentMethod'];

  const card = text(input.card);
  const pan = text(input.pan)?.replace(/[\s-]/g, '');
  const expiry = text(input.expiry);
  const account = text(input.account);
  if (input.intent === 'reversal') {
    for (const key of ['card', 'pan', 'expiry', 'account'] as const) {
      if (text(input[key])) fail(`${name(key)} is not used by a reversal: the original transaction's card is reversed`);
    }
  } else if (card) {
    if (pan || expiry || account) fail(`give either ${name('card')} or ${name('pan')}/${name('expiry')}/${name('account')}, not both`);
    body.cardId = card;
  } else {
    const missing = (['pan', 'expiry', 'account'] as const).filter((key) => !text(input[key]));
    if (missing.length === 3) fail(`a card is required: give ${name('card')}, or ${name('pan')}, ${name('expiry')} and ${name('account')}`);
    if (missing.length > 0) fail(`${missing.map(name).join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required with ${name('pan')} (rule: pan, expiry and account go together)`);
    if (!/^\d{12,19}$/.test(pan!)) fail(`invalid ${name('pan')}: expected 12 to 19 digits`);
    if (!/^(\d{2}|\d{4})(0[1-9]|1[0-2])$/.test(expiry!)) fail(`invalid ${name('expiry')} "${expiry}": expected YYMM or YYYYMM, e.g. 2912`);
    body.pan = pan!;
    body.expiry = expiry!;
    body.accountNumber = account!;
  }

  const originalTx = text(input.originalTx);
  const originalStan = text(input.originalStan);
  const originalRrn = text(input.originalRrn);
  if (input.intent !== 'reversal') {
    for (const key of ['originalTx', 'originalStan', 'originalRrn'] as const) {
      if (text(input[key])) fail(`${name(key)} is only for reversals`);
    }
  } else if (originalTx) {
    if (originalStan || originalRrn) fail(`give either ${name('originalTx')} or ${name('originalStan')} with ${name('originalRrn')}, not both`);
    body.originalTransactionId = originalTx;
  } else if (originalStan || originalRrn) {
    if (!originalStan || !originalRrn) fail(`${name('originalStan')} and ${name('originalRrn')} go together`);
    if (!/^\d{1,6}$/.test(originalStan!)) fail(`invalid ${name('originalStan')} "${originalStan}": expected up to 6 digits`);
    if (!/^[0-9A-Za-z]{12}$/.test(originalRrn!)) fail(`invalid ${name('originalRrn')} "${originalRrn}": expected 12 letters or digits`);
    body.originalStan = originalStan!.padStart(6, '0');
    body.originalRrn = originalRrn!;
  } else {
    fail(`a reversal needs the original: ${name('originalTx')}, or ${name('originalStan')} and ${name('originalRrn')}`);
  }

  const merchant = text(input.merchant);
  const terminal = text(input.terminal);
  if (merchant) body.merchantId = merchant;
  if (terminal) body.terminalId = terminal;
  if (input.forward) body.responseMode = 'forward';
  const date = text(input.date);
  if (date) {
    try {
      body.transactionDate = validateDateTime(name('date'), date);
    } catch (error) {
      if (error instanceof UsageError) fail(error.message);
      throw error;
    }
  }
  const overrides = parseOverrides(input.set, name, fail);
  if (overrides) body.overrides = overrides;
  return { body, amountText: decimal };
}

function parseOverrides(set: SimulationInput['set'], name: Namer, fail: (message: string) => never): Record<string, string> | undefined {
  if (set === undefined || set === null) return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(set)
    ? set.map((item) => {
        const eq = item.indexOf('=');
        if (eq <= 0) fail(`invalid ${name('set')} "${item}": expected FIELD=VALUE, e.g. 4=000000150000`);
        return [item.slice(0, eq).trim(), item.slice(eq + 1)];
      })
    : typeof set === 'object' ? Object.entries(set) : fail(`${name('set')} must be a map of field numbers to values`);
  const overrides: Record<string, string> = {};
  for (const [field, value] of entries) {
    if (!/^\d{1,3}$/.test(field) || Number(field) > 128) fail(`invalid ${name('set')} field "${field}": expected a field number from 0 to 128`);
    if (value === null || value === undefined || typeof value === 'object') fail(`invalid ${name('set')} value for field ${field}: expected text`);
    const key = String(Number(field));
    if (key === '4' && !/^\d{12}$/.test(String(value))) fail(`invalid ${name('set')} 4="${String(value)}": field 4 is 12 digits of minor units, e.g. 000000150000`);
    overrides[key] = String(value);
  }
  return Object.keys(overrides).length ? overrides : undefined;
}
