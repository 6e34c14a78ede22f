// The flags of `cards create`, declared once: help order, validators and where each value goes
// in the Create Card body. The parse step, the wizard and the bulk rows all read these.
import { bodyFields, defineFlags, type FlagValues } from '../../core/flags.js';
import { UsageError } from '../../core/errors.js';
import * as fields from '../../core/card-fields.js';
import { validateDateTime, validatePan } from '../../core/validate.js';
import { trimmed } from './fields.js';
import { ACCOUNT_FLAGS, CARD_FLAGS, CARDHOLDER_FLAGS, customerPlacement, placeFlags } from '../card-flags.js';
import { BULK_FLAGS } from '../bulk-command.js';

/** The bulk flags but --from-file, which here is one card's JSON body: --rows-from-file names the rows. */
const { fromFile: _oneBody, ...BULK_ROW_FLAGS } = BULK_FLAGS;

const seq = (label: string, value: string): string => {
  const text = value.trim();
  if (!/^\d{1,3}$/.test(text)) throw new UsageError(`invalid ${label} "${text}": expected 1 to 3 digits, e.g. 001`);
  return text;
};
export const dateTime = (label: string, value: string): string => validateDateTime(label, value);

/** Every flag of `cards create`, in help order; those with a path fill the Create Card body. */
export const CREATE_FLAGS = defineFlags({
  program: { type: 'string', value: 'id', description: 'card program identifier', path: 'cardProgram', parse: trimmed, required: true },
  reference: { type: 'string', value: 'code', description: 'your tracking code (unique per institution; generated when absent)', path: 'referenceCode', parse: fields.cardReference },
  ...placeFlags(CARD_FLAGS, { embossingName: 'embossingName' }),
  ...placeFlags(CARDHOLDER_FLAGS, {
    ...customerPlacement('customer.'),
    firstName: { path: 'customer.firstName', required: true },
    lastName: { path: 'customer.lastName', required: true },
    email: { path: 'customer.emailAddress', required: true },
    phone: { path: 'customer.phoneNumber', required: true },
  }),
  fromFile: { type: 'string', value: 'file', complete: 'file', description: 'JSON body (or - for stdin); flags override its fields' },
  ...placeFlags(ACCOUNT_FLAGS, { accountNumber: 'account.number', accountType: 'account.type', currency: {}, bankCode: 'account.bankCode' }),
  ...placeFlags(CARD_FLAGS, { startDate: 'startDate' }),
  expiryDate: { type: 'string', value: 'date', description: "expiry, YYYY-MM-DD or ISO date-time (default: the program's maximum)", path: 'expiryDate', parse: dateTime },
  pan: { type: 'string', value: 'pan', pan: true, description: 'card number, when the program lets you bring one (Luhn-checked)', path: 'pan', parse: (label, value) => validatePan(label, value) },
  seqNumber: { type: 'string', value: 'n', description: 'card sequence number (default from the program)', path: 'seqNumber', parse: seq },
  enroll2fa: { type: 'boolean', long: 'enroll-2fa', description: 'enrol the card for extra cardholder verification' },
  printCard: { type: 'boolean', description: 'print a physical card' },
  pin: { type: 'negated', description: 'create the card with PIN transactions disabled' },
  pinStdin: { type: 'boolean', secret: true, description: 'read the default PIN from stdin' },
  allowWeakPin: { type: 'boolean', description: 'accept trivially weak PINs such as 1234' },
  ...placeFlags(CARD_FLAGS, { status: 'status' }),
  rowsFromFile: { type: 'string', value: 'file', complete: 'file', description: "many cards: a row each (.csv, .ndjson or a .json array; - for stdin), columns named like these flags; flags fill what rows leave out" },
  pinsFromColumn: { type: 'string', value: 'name', description: "many cards: each card's PIN from this column (the file must not be readable by others); default a random PIN per card, never shown" },
  ...BULK_ROW_FLAGS,
});

export type CreateOptions = FlagValues<typeof CREATE_FLAGS>;

/** The body's fields, each with its flag, path and validator. */
export const BODY_FIELDS = bodyFields(CREATE_FLAGS);
export const CUSTOMER_FIELDS = BODY_FIELDS.filter((f) => f.path.startsWith('customer.'));
export const CARD_FIELDS = BODY_FIELDS.filter((f) => !f.path.includes('.'));
export const ACCOUNT_FIELDS = BODY_FIELDS.filter((f) => f.path.startsWith('account.'));
/** Required values and the flag that gives each. */
export const REQUIRED = BODY_FIELDS.filter((f) => f.required);
