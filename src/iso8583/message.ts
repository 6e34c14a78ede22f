// Reading switch messages for people: field-number/name/value rows with the PAN masked and
// card secrets redacted, and a one-line summary. Used by `simulate --messages`, `tx show` and
// `webhook listen`.
import { maskPan } from '../core/redact.js';
import { currencyInfo, formatAmount, isField4 } from './amount.js';
import { MTI_NAMES, POS_CONDITION_CODES, POS_ENTRY_MODE_NAMES, TRANSACTION_TYPES, responseMessage } from './codes.js';
import { PAN_FIELDS, SENSITIVE_FIELDS } from '../core/card-secret-fields.js';
import { fieldName } from './fields.js';

export type SwitchMessage = Record<string, string>;

export interface FieldRow {
  field: string;
  name: string;
  value: string;
  /** What the value means, when a dictionary knows (response code, entry mode, amount …). */
  meaning: string;
}

/** Fields in numeric order, "0" (MTI) first. */
export function sortedFields(message: SwitchMessage): string[] {
  return Object.keys(message).sort((a, b) => Number(a) - Number(b));
}

/** Safe display text of one field: PAN masked, track/PIN/ICC data redacted. */
export function displayValue(field: string, value: string): string {
  // Stored messages carry the PAN masked already; only clear digits are masked again.
  if (PAN_FIELDS.has(field)) return /^\d+$/.test(value) ? maskPan(value) : value;
  if (field === '35') return maskTrack2(value);
  if (SENSITIVE_FIELDS.has(field)) return '[REDACTED]';
  return value;
}

/** Track 2 with the PAN masked and the discretionary data hidden: 506099******1234=2912***. */
export function maskTrack2(track2: string): string {
  const [pan = '', rest = ''] = track2.split(/[=D]/);
  return `${/^\d+$/.test(pan) ? maskPan(pan) : pan}=${rest.slice(0, 4)}${rest.length > 4 ? '*'.repeat(Math.min(rest.length - 4, 8)) : ''}`;
}

export function describeField(field: string, value: string, message: SwitchMessage): string {
  switch (field) {
    case '0': return MTI_NAMES[value] ?? '';
    case '3': return TRANSACTION_TYPES[value.slice(0, 2)] ?? '';
    case '4': return isField4(value) ? formatAmount(value, message['49'] ?? '566') : '';
    case '22': return POS_ENTRY_MODE_NAMES[value.slice(0, 2)] ?? '';
    case '25': return POS_CONDITION_CODES[value] ?? '';
    case '39': return responseMessage(value);
    case '49': return currencyLabel(value);
    default: return '';
  }
}

function currencyLabel(value: string): string {
  const info = currencyInfo(value);
  if (!info) return '';
  return info.symbol === info.code ? info.code : `${info.code} (${info.symbol})`;
}

export function messageRows(message: SwitchMessage): FieldRow[] {
  return sortedFields(message).map((field) => ({
    field,
    name: fieldName(field),
    value: displayValue(field, String(message[field])),
    meaning: describeField(field, String(message[field]), message),
  }));
}

/** The message with the PAN masked and card secrets redacted (for JSON output of listeners). */
export function redactMessage(message: SwitchMessage): SwitchMessage {
  const out: SwitchMessage = {};
  for (const field of sortedFields(message)) out[field] = displayValue(field, String(message[field]));
  return out;
}

/** "0100 · ₦1,500.00 · 506099******1234 · STAN 000123 · RRN 632715000123" */
export function summarizeMessage(message: SwitchMessage): string {
  const parts = [message['0'] ?? '????'];
  if (message['3']) parts.push(TRANSACTION_TYPES[message['3'].slice(0, 2)] ?? `pc ${message['3']}`);
  if (isField4(message['4'])) parts.push(formatAmount(message['4'], message['49'] ?? '566'));
  if (message['2']) parts.push(maskPan(message['2']));
  if (message['11']) parts.push(`STAN ${message['11']}`);
  if (message['37']) parts.push(`RRN ${message['37']}`);
  if (message['39']) parts.push(`${message['39']} ${responseMessage(message['39'])}`);
  return parts.join(' · ');
}
