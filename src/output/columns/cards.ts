// How cards look: list columns (`cards list`, with --wide extras) and the key/value rows of one
// card (`cards get` and every mutation), customer and account grouped.
import type { Card, CardProgram } from '../../api/schemas.js';
import { maskPan } from '../../core/redact.js';
import type { Column } from '../renderer.js';
import { escapeControls } from '../format.js';

type CardRecord = Partial<Card> & Record<string, unknown>;

/** The PAN as shown: masked (first 6, last 4), or •••• and the last four when that is all there is. */
export function cardNumber(card: CardRecord): string {
  if (typeof card.pan === 'string' && card.pan) return /^\d+$/.test(card.pan) ? maskPan(card.pan) : card.pan;
  return card.lastFour ? `••••${card.lastFour}` : '';
}

/** MM/YYYY from expiryMonth/expiryYear, else from expiryDate. */
export function cardExpiry(card: CardRecord): string {
  if (card.expiryMonth && card.expiryYear) return `${String(card.expiryMonth).padStart(2, '0')}/${card.expiryYear}`;
  if (typeof card.expiryDate === 'string') {
    const date = new Date(card.expiryDate);
    if (!Number.isNaN(date.getTime())) return `${String(date.getUTCMonth() + 1).padStart(2, '0')}/${date.getUTCFullYear()}`;
  }
  return '';
}

/** The program for people: its name, or its id when the answer gives only that (writes do). */
export function programName(card: CardRecord): string {
  return programNameOnly(card) || programId(card);
}

/** The program's name for machines (csv, tsv, --fields): never its id under the name's key. */
export function programNameOnly(card: CardRecord): string {
  const program = card.cardProgram as CardProgram | string | undefined;
  return program && typeof program === 'object' ? program.name ?? '' : '';
}

/** The program's id, whether the answer expands the program or gives its id alone. */
export function programId(card: CardRecord): string {
  const program = card.cardProgram as CardProgram | string | undefined;
  return typeof program === 'string' ? program : program?.id ?? '';
}

export function customerName(card: CardRecord): string {
  const c = card.customer;
  if (!c) return '';
  return [c.firstName, c.middleName, c.lastName].filter((part) => part && String(part).trim()).join(' ');
}

function address(card: CardRecord): string {
  const a = card.customer?.address;
  if (!a) return '';
  return [a.line1, a.line2, a.city, a.state, a.postalCode, a.country].filter((part) => part && String(part).trim()).join(', ');
}

/** "A short label" for messages and confirmations: 539983******7890 (ADA OBI). */
export function describeCard(card: CardRecord): string {
  const number = cardNumber(card) || card.id || '';
  // For messages and prompts: what the server sent, with control characters made visible.
  return escapeControls(card.embossingName ? `${number} (${card.embossingName})` : String(number));
}

const computed = (fn: (card: CardRecord) => string, machine: (card: CardRecord) => string = fn) => ({
  format: (_value: unknown, record: CardRecord) => fn(record),
  csv: (_value: unknown, record: CardRecord) => machine(record),
});

/** Last four for people in a list (•••• 0008); the masked PAN for machines and in --wide. */
export function lastFour(card: CardRecord): string {
  const four = card.lastFour || (typeof card.pan === 'string' ? card.pan.replace(/\D/g, '').slice(-4) : '');
  return four ? `•••• ${four}` : '';
}

function dateOnly(value: unknown): string {
  if (typeof value !== 'string') return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export const cardColumns: Column<CardRecord>[] = [
  { header: 'ID', path: 'id', minWidth: 40 },
  { header: 'Card', path: 'lastFour', minWidth: 9, format: (_v, card) => lastFour(card) },
  { header: 'Name on card', path: 'embossingName' },
  { header: 'Status', path: 'status', status: true },
  { header: 'Expires', path: 'expiry', ...computed(cardExpiry) },
  { header: 'Program', path: 'cardProgram.name', ...computed(programName, programNameOnly) },
  { header: 'Created', path: 'createdAt', format: (value) => dateOnly(value) },
  { header: 'PAN', path: 'pan', wide: true, ...computed(cardNumber) },
  { header: 'Scheme', path: 'scheme', wide: true },
  { header: 'Type', path: 'type', wide: true },
  { header: 'Customer', path: 'customer.name', wide: true, ...computed(customerName) },
  { header: 'Email', path: 'customer.emailAddress', wide: true },
  { header: 'Account', path: 'account.number', wide: true },
  { header: 'Reference', path: 'referenceCode', wide: true },
  { header: 'Updated', path: 'updatedAt', wide: true },
];

const yesNo = {
  format: (value: unknown) => (value === true ? 'yes' : value === false ? 'no' : ''),
};

/** Key/value rows of one card. */
export const cardRows: Column<CardRecord>[] = [
  { header: 'ID', path: 'id' },
  { header: 'Card number', path: 'pan', ...computed(cardNumber) },
  { header: 'Name on card', path: 'embossingName' },
  { header: 'Status', path: 'status', status: true },
  { header: 'Expires', path: 'expiry', ...computed(cardExpiry) },
  { header: 'Program', path: 'cardProgram.name', ...computed(programNameOnly) },
  { header: 'Program ID', path: 'cardProgram.id', ...computed(programId) },
  { header: 'Scheme', path: 'scheme' },
  { header: 'Type', path: 'type' },
  { header: 'Reference', path: 'referenceCode' },
  { header: 'Sequence', path: 'seqNumber' },
  { header: 'PIN enabled', path: 'pinEnabled', ...yesNo },
  { header: 'PIN attempts', path: 'pinAttempts' },
  { header: '2FA enrolled', path: 'twoFAEnrolled', ...yesNo },
  { header: 'Print card', path: 'printCard', ...yesNo },
  { header: 'Customer', path: 'customer.name', ...computed(customerName) },
  { header: '  Email', path: 'customer.emailAddress' },
  { header: '  Phone', path: 'customer.phoneNumber' },
  { header: '  Date of birth', path: 'customer.dateOfBirth', format: (value) => (typeof value === 'string' ? value.slice(0, 10) : '') },
  { header: '  Address', path: 'customer.address', ...computed(address) },
  { header: '  Holder ID', path: 'cardHolderId' },
  { header: 'Account', path: 'account.number' },
  { header: '  Type', path: 'account.type' },
  { header: '  Currency', path: 'account.currency' },
  { header: '  Bank code', path: 'account.bankCode' },
  { header: 'Created', path: 'createdAt' },
  { header: 'Updated', path: 'updatedAt' },
];
