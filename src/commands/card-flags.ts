// The cardholder, account and card flags of `cards create`, `cards customer update` and
// `import` (one card): one name and one validator per field (src/core/card-fields.ts). Each
// command places them in its own request body with placeFlags(), since the Create Card, Update
// Card Customer and Import Card bodies name the same fields differently.
import { CARD_STATUSES } from '../core/enums.js';
import * as fields from '../core/card-fields.js';
import { defineFlags, type Flags } from '../core/flags.js';
import { validateDateTime } from '../core/validate.js';

export { REASON_MAX_LENGTH } from '../core/flags.js';

export const CARDHOLDER_FLAGS = defineFlags({
  firstName: { type: 'string', value: 'name', description: "cardholder's first name", parse: fields.personName, prompt: 'First name' },
  middleName: { type: 'string', value: 'name', description: "cardholder's middle name", parse: fields.optionalPersonName },
  lastName: { type: 'string', value: 'name', description: "cardholder's last name", parse: fields.personName, prompt: 'Last name' },
  email: { type: 'string', value: 'address', description: 'email address', parse: fields.email, prompt: 'Email' },
  phone: { type: 'string', value: 'number', description: 'phone number, international format (+2348012345678)', parse: fields.phone, prompt: 'Phone (international, e.g. +2348012345678)' },
  birthDate: { type: 'string', value: 'date', description: 'date of birth, YYYY-MM-DD', parse: (label, value) => fields.birthDate(label, value), prompt: 'Date of birth (YYYY-MM-DD)' },
  addressLine1: { type: 'string', value: 'text', description: 'address line 1', parse: fields.freeText },
  addressLine2: { type: 'string', value: 'text', description: 'address line 2', parse: fields.freeText },
  city: { type: 'string', value: 'name', description: 'city', parse: fields.freeText },
  state: { type: 'string', value: 'name', description: 'state or region', parse: fields.freeText },
  country: { type: 'string', value: 'code', description: 'country', parse: fields.freeText },
  postalCode: { type: 'string', value: 'code', description: 'postal code', parse: fields.freeText },
});

export const ACCOUNT_FLAGS = defineFlags({
  accountNumber: { type: 'string', value: 'number', description: 'linked account number', parse: fields.requiredText, required: true, prompt: 'Account number' },
  accountType: { type: 'string', value: 'type', description: 'account type, e.g. savings, current', parse: fields.requiredText, required: true, prompt: 'Account type (e.g. savings, current)' },
  currency: { type: 'string', value: 'code', description: 'ISO 4217 currency, numeric or alphabetic (default 566)' },
  bankCode: { type: 'string', value: 'code', description: "bank code of the account (default: the program's)", parse: fields.requiredText, prompt: 'Bank code' },
});

const dateTime = (label: string, value: string): string => validateDateTime(label, value);

export const CARD_FLAGS = defineFlags({
  embossingName: { type: 'string', value: 'name', description: 'name printed on the card, up to 26 characters (default: FIRST LAST)', parse: fields.embossingName },
  startDate: { type: 'string', value: 'date', description: 'validity start, YYYY-MM-DD or ISO date-time (default today)', parse: dateTime },
  status: { type: 'string', value: 'status', choices: CARD_STATUSES, description: 'initial card status', parse: fields.cardStatus },
});

type Placement<F extends Flags> = { [K in keyof F]?: string | { path?: string; description?: string; required?: boolean; parse?: (label: string, value: string) => string } };

/**
 * The flags of a group with their place in one request body (and, where a command says so, its
 * own help line, whether the body requires it, or how the body writes the value). Flags given
 * no place are left out.
 */
export function placeFlags<const F extends Flags, const P extends Placement<F>>(group: F, placement: P): { [K in keyof P & keyof F]: F[K] } {
  const placed: Record<string, unknown> = {};
  for (const [key, place] of Object.entries(placement)) {
    if (place === undefined) continue;
    placed[key] = { ...group[key], ...(typeof place === 'string' ? { path: place } : place) };
  }
  return placed as { [K in keyof P & keyof F]: F[K] };
}

/** The API takes dates of birth as date-times. */
const birthDateTime = (label: string, value: string): string => `${fields.birthDate(label, value)}T00:00:00.000Z`;

/** Where the cardholder flags go in a card's `customer` object (Create Card, Update Card Customer). */
export function customerPlacement(prefix: '' | 'customer.') {
  return {
    firstName: `${prefix}firstName`,
    middleName: `${prefix}middleName`,
    lastName: `${prefix}lastName`,
    email: `${prefix}emailAddress`,
    phone: `${prefix}phoneNumber`,
    birthDate: { path: `${prefix}dateOfBirth`, parse: birthDateTime },
    addressLine1: `${prefix}address.line1`,
    addressLine2: `${prefix}address.line2`,
    city: `${prefix}address.city`,
    state: `${prefix}address.state`,
    country: `${prefix}address.country`,
    postalCode: `${prefix}address.postalCode`,
  } as const;
}
