// Builds the ISO 8583 messages of a simulation: the request the switch would send (MTI, PAN,
// processing code, amount, dates, STAN, RRN, track 2, entry mode, POS condition and data
// codes, terminal, merchant, currency, account, original data elements for reversals) and the
// service's own response (echo + 38/39). Pure functions: time, STAN and RRN are inputs. The sandbox's
// switch and the Artillery export (src/load/artillery/) build their messages here, one way.
import { MTI, POS_ENTRY_MODES, PROCESSING_CODES, posConditionCodeFor, type Channel, type Intent, type PaymentMethod, type ProcessingFlow } from '../iso8583/codes.js';
import type { SwitchMessage } from '../iso8583/message.js';

export const DEFAULT_TERMINAL: Record<Channel, string> = { pos: 'SBXPOS01', atm: 'SBXATM01', web: 'SBXWEB01' };
export const DEFAULT_MERCHANT = 'SBXMERCHANT0001';
export const DEFAULT_CHANNEL: Channel = 'pos';
export const DEFAULT_METHOD: Record<Channel, PaymentMethod> = { pos: 'chip', atm: 'chip', web: 'ecom' };
/** Merchant category code (field 18) by channel: 5999 misc. retail, 6011 ATM cash. */
const MCC: Record<Channel, string> = { pos: '5999', atm: '6011', web: '5999' };

export interface CardData {
  pan: string;
  /** YYMM */
  expiry: string;
  serviceCode: string;
  account: string;
}

export interface RequestInput {
  intent: Intent;
  flow: ProcessingFlow;
  amountField4: string;
  currency: string;
  card: CardData;
  channel: Channel;
  method: PaymentMethod;
  merchantId: string;
  terminalId: string;
  stan: string;
  rrn: string;
  date: Date;
  /** Reversals: the original request (its MTI, STAN and field 7 go into field 90). */
  original?: SwitchMessage;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Field 7: MMDDhhmmss (UTC). */
export function transmissionDateTime(date: Date): string {
  return `${pad2(date.getUTCMonth() + 1)}${pad2(date.getUTCDate())}${pad2(date.getUTCHours())}${pad2(date.getUTCMinutes())}${pad2(date.getUTCSeconds())}`;
}

/** The UTC day of a date, YYYY-MM-DD: of the switch clock for limits, of the message for its STAN sequence. */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * RRN (field 37), 12 characters: last digit of the year, day of the year (3), hour (2), and the
 * 6-digit STAN. STANs are unique per day, so RRNs are unique (within a decade).
 */
export function retrievalReferenceNumber(date: Date, stan: string): string {
  const start = Date.UTC(date.getUTCFullYear(), 0, 1);
  const dayOfYear = Math.floor((date.getTime() - start) / 86_400_000) + 1;
  return `${date.getUTCFullYear() % 10}${String(dayOfYear).padStart(3, '0')}${pad2(date.getUTCHours())}${stan.padStart(6, '0').slice(-6)}`;
}

/** Track 2 equivalent data: PAN = YYMM + service code + discretionary data (PVKI, PVV, CVV). */
export function track2(card: CardData, discretionary = '10000000'): string {
  return `${card.pan}=${card.expiry}${card.serviceCode}${discretionary}`;
}

/** Field 90: original MTI (4), STAN (6), transmission date-time (10), acquirer and forwarder ids (11 + 11). */
export function originalDataElements(original: SwitchMessage): string {
  return `${(original['0'] ?? '0000').padStart(4, '0')}${(original['11'] ?? '').padStart(6, '0')}${(original['7'] ?? '').padStart(10, '0')}${'0'.repeat(22)}`;
}

const PHYSICAL: ReadonlySet<PaymentMethod> = new Set(['chip', 'magstripe', 'contactless']);

export function isPhysical(method: PaymentMethod): boolean {
  return PHYSICAL.has(method);
}

/**
 * Field 123, a 15-character POS data code (Postilion layout): input capability, cardholder
 * auth capability, capture capability, operating environment, cardholder present, card
 * present, input mode, auth method, auth entity, output capability, terminal output, PIN
 * capture, operator, terminal type (2).
 */
export function posDataCode(channel: Channel, method: PaymentMethod): string {
  const inputMode: Record<PaymentMethod, string> = { chip: '5', magstripe: '2', contactless: 'A', manual: '6', ecom: 'S', moto: '1' };
  const cardPresent = channel !== 'web' && method !== 'moto';
  const environment = channel === 'atm' ? '2' : channel === 'web' ? '6' : '1';
  const cardholderPresent = cardPresent ? '0' : method === 'moto' ? '2' : '5';
  const pinCapable = channel !== 'web';
  return [
    channel === 'web' ? '6' : '5', // input capability: keyed only, or ICC + magstripe + key
    pinCapable ? '1' : '0', // cardholder authentication capability: PIN
    channel === 'atm' ? '1' : '0', // card capture capability
    environment,
    cardholderPresent,
    cardPresent ? '1' : '0',
    inputMode[method],
    pinCapable && method !== 'manual' ? '1' : '0', // authentication method: PIN
    pinCapable && method === 'chip' ? '1' : '0', // authentication entity: ICC
    '1', // card data output capability: none
    channel === 'web' ? '0' : '4', // terminal output: print and display
    pinCapable ? 'C' : '0', // PIN capture: 12 characters
    channel === 'atm' || channel === 'web' ? '0' : '1', // operator: customer or card acceptor
    channel === 'atm' ? '02' : channel === 'web' ? '03' : '01', // terminal type
  ].join('');
}

/** The request message, before overrides. */
export function buildRequest(input: RequestInput): SwitchMessage {
  const { date, card, channel, method } = input;
  const mti = MTI[input.intent].request;
  const message: SwitchMessage = {
    '0': mti,
    '2': card.pan,
    '3': input.original?.['3'] ?? PROCESSING_CODES[input.flow],
    '4': input.amountField4,
    '7': transmissionDateTime(date),
    '11': input.stan,
    '12': transmissionDateTime(date).slice(4),
    '13': transmissionDateTime(date).slice(0, 4),
    '14': card.expiry,
    '18': MCC[channel],
    '22': POS_ENTRY_MODES[method],
    '25': posConditionCodeFor(channel, method),
    '37': input.rrn,
    '41': input.terminalId,
    '42': input.merchantId,
    '49': input.currency,
    '102': card.account,
    '123': posDataCode(channel, method),
  };
  if (isPhysical(method)) message['35'] = track2(card);
  if (input.original) message['90'] = originalDataElements(input.original);
  return message;
}

export { buildResponse } from './reply.js';
