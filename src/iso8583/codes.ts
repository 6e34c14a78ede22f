// ISO 8583 code tables used by the switch simulator, `webhook listen` and the transaction views.
import { CHANNELS } from '../core/enums.js';

/** Message type indicators of the three simulated intents, request → response. */
export const MTI = {
  authorization: { request: '0100', response: '0110' },
  financial: { request: '0200', response: '0210' },
  reversal: { request: '0420', response: '0430' },
} as const;
export type Intent = keyof typeof MTI;

export const MTI_NAMES: Readonly<Record<string, string>> = {
  '0100': 'Authorization request',
  '0101': 'Authorization request repeat',
  '0110': 'Authorization response',
  '0120': 'Authorization advice',
  '0130': 'Authorization advice response',
  '0200': 'Financial request',
  '0210': 'Financial response',
  '0220': 'Financial advice',
  '0230': 'Financial advice response',
  '0400': 'Reversal request',
  '0410': 'Reversal response',
  '0420': 'Reversal advice',
  '0421': 'Reversal advice repeat',
  '0430': 'Reversal advice response',
  '0800': 'Network management request',
  '0810': 'Network management response',
};

/**
 * The intent an MTI belongs to, by its message class (second digit): 01xx authorization, 02xx
 * financial, 04xx reversal — requests, responses, advices (0120, 0220) and repeats (0101, 0421)
 * alike. Undefined for other classes.
 */
export function intentOfMti(mti: string): Intent | undefined {
  if (!/^0[124][0-3][0-3]$/.test(mti)) return undefined;
  return mti[1] === '1' ? 'authorization' : mti[1] === '2' ? 'financial' : 'reversal';
}

/** The response MTI of a request MTI: the third digit goes up by one (0100 → 0110). */
export function responseMti(mti: string): string {
  if (!/^\d{4}$/.test(mti)) return mti;
  const fn = Number(mti[2]);
  return fn % 2 === 0 ? `${mti.slice(0, 2)}${fn + 1}${mti[3]}` : mti;
}

/** Field 3: transaction type (first two digits), from account and to account types. */
export const PROCESSING_CODES = {
  purchase: '000000',
  cash_withdrawal: '010000',
  balance_inquiry: '310000',
  refund: '200000',
} as const;
export type ProcessingFlow = keyof typeof PROCESSING_CODES;

/** Transaction type (first two digits of field 3) → meaning. */
export const TRANSACTION_TYPES: Readonly<Record<string, string>> = {
  '00': 'Purchase',
  '01': 'Cash withdrawal',
  '09': 'Purchase with cashback',
  '20': 'Refund',
  '21': 'Deposit',
  '30': 'Available funds inquiry',
  '31': 'Balance inquiry',
  '40': 'Transfer',
};

export function processingFlowOf(code: string): ProcessingFlow | undefined {
  const type = code.slice(0, 2);
  return (Object.keys(PROCESSING_CODES) as ProcessingFlow[]).find((flow) => PROCESSING_CODES[flow].startsWith(type));
}

/** Field 22: PAN entry mode (2 digits) + PIN entry capability (1 digit). */
export const POS_ENTRY_MODES = {
  chip: '051',
  magstripe: '901',
  contactless: '071',
  manual: '012',
  ecom: '810',
  moto: '812',
} as const;
export type PaymentMethod = keyof typeof POS_ENTRY_MODES;

export const POS_ENTRY_MODE_NAMES: Readonly<Record<string, string>> = {
  '00': 'Unknown',
  '01': 'Manual (key entry)',
  '02': 'Magnetic stripe (track data may be incomplete)',
  '05': 'Chip (ICC)',
  '07': 'Contactless chip',
  '10': 'Credential on file',
  '81': 'E-commerce / mail or telephone order',
  '90': 'Magnetic stripe (full track)',
  '91': 'Contactless magnetic stripe',
};

export function paymentMethodOf(entryMode: string): PaymentMethod | undefined {
  return (Object.keys(POS_ENTRY_MODES) as PaymentMethod[]).find((m) => POS_ENTRY_MODES[m] === entryMode);
}

/** Field 25: POS condition code. */
export const POS_CONDITION_CODES: Readonly<Record<string, string>> = {
  '00': 'Normal presentment',
  '01': 'Customer not present',
  '02': 'Unattended terminal able to retain card (ATM)',
  '03': 'Merchant suspicious',
  '05': 'Customer present, card not present',
  '06': 'Pre-authorization request',
  '08': 'Mail or telephone order',
  '10': 'Customer identity verified',
  '51': 'Request for account verification',
  '59': 'E-commerce, secure channel',
};

export { CHANNELS };
export type Channel = (typeof CHANNELS)[number];

/** The field 25 a channel (and, for web, a payment method) is sent with. */
export function posConditionCodeFor(channel: Channel, method?: PaymentMethod): string {
  if (channel === 'atm') return '02';
  if (channel === 'web') return method === 'moto' ? '08' : '59';
  return '00';
}

/** The channel a message was sent on, read back from field 25 (webhook side). */
export function channelOfConditionCode(code: string | undefined): Channel {
  if (code === '02') return 'atm';
  if (code === '59' || code === '08' || code === '01' || code === '05') return 'web';
  return 'pos';
}

/** Field 39: response codes and what they mean (ISO 8583:1987, as used by most switches). */
export const RESPONSE_CODES: Readonly<Record<string, string>> = {
  '00': 'Approved or completed successfully',
  '01': 'Refer to card issuer',
  '02': 'Refer to card issuer, special condition',
  '03': 'Invalid merchant',
  '04': 'Pick up card',
  '05': 'Do not honor',
  '06': 'Error',
  '07': 'Pick up card, special condition',
  '08': 'Honor with identification',
  '09': 'Request in progress',
  '10': 'Approved, partial',
  '11': 'Approved (VIP)',
  '12': 'Invalid transaction',
  '13': 'Invalid amount',
  '14': 'Invalid card number (no such number)',
  '15': 'No such issuer',
  '16': 'Approved, update track 3',
  '17': 'Customer cancellation',
  '18': 'Customer dispute',
  '19': 'Re-enter transaction',
  '20': 'Invalid response',
  '21': 'No action taken',
  '22': 'Suspected malfunction',
  '23': 'Unacceptable transaction fee',
  '24': 'File update not supported by receiver',
  '25': 'Unable to locate record on file',
  '26': 'Duplicate file update record',
  '27': 'File update field edit error',
  '28': 'File update file locked out',
  '29': 'File update not successful',
  '30': 'Format error',
  '31': 'Bank not supported by switch',
  '32': 'Completed partially',
  '33': 'Expired card, pick up',
  '34': 'Suspected fraud, pick up',
  '35': 'Card acceptor contact acquirer, pick up',
  '36': 'Restricted card, pick up',
  '37': 'Card acceptor call acquirer security, pick up',
  '38': 'Allowable PIN tries exceeded, pick up',
  '39': 'No credit account',
  '40': 'Requested function not supported',
  '41': 'Lost card, pick up',
  '42': 'No universal account',
  '43': 'Stolen card, pick up',
  '44': 'No investment account',
  '51': 'Insufficient funds',
  '52': 'No checking account',
  '53': 'No savings account',
  '54': 'Expired card',
  '55': 'Incorrect PIN',
  '56': 'No card record',
  '57': 'Transaction not permitted to cardholder',
  '58': 'Transaction not permitted to terminal',
  '59': 'Suspected fraud',
  '60': 'Card acceptor contact acquirer',
  '61': 'Exceeds withdrawal amount limit',
  '62': 'Restricted card',
  '63': 'Security violation',
  '64': 'Original amount incorrect',
  '65': 'Exceeds withdrawal frequency limit',
  '66': 'Card acceptor call acquirer security',
  '67': 'Hard capture, pick up card at ATM',
  '68': 'Response received too late',
  '75': 'Allowable number of PIN tries exceeded',
  '77': 'Inconsistent with original',
  '78': 'Blocked, first used',
  '90': 'Cutoff is in process',
  '91': 'Issuer or switch inoperative',
  '92': 'Financial institution or intermediate network facility cannot be found for routing',
  '93': 'Transaction cannot be completed, violation of law',
  '94': 'Duplicate transmission',
  '95': 'Reconcile error',
  '96': 'System malfunction',
  N7: 'Decline for CVV2 failure',
};

/** Approved codes: the transaction went through (partially, for 10). */
export const APPROVED_CODES: ReadonlySet<string> = new Set(['00', '08', '10', '11', '16', '32']);

export function isApproved(code: string | undefined): boolean {
  return code !== undefined && APPROVED_CODES.has(code);
}

export function responseMessage(code: string | undefined): string {
  if (code === undefined || code === '') return 'No response';
  return RESPONSE_CODES[code] ?? 'Unknown response code';
}

/** A syntactically valid field 39: two letters or digits. */
export function isValidResponseCode(code: unknown): code is string {
  return typeof code === 'string' && /^[0-9A-Z]{2}$/.test(code);
}
