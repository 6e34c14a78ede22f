// The card and cardholder fields that several commands accept (`cards create`, `import` by flags
// and by file rows, `users update`, `cards renew`): one validator per field, called by every path
// that takes it, so a value refused by one is refused by all with the same words. Limits come
// from core/field-rules.ts, which the sandbox's schemas use too. Each validator takes the label to
// name (a flag, or a file's field) and the text given, and returns the normalised value or throws
// a UsageError `invalid LABEL "value": why`.
import { CARD_STATUSES } from './enums.js';
import {
  BIN, CARD_REFERENCE, EARLIEST_BIRTH_DATE, IMPORT_REFERENCE_PREFIX, EMAIL, EMBOSSING_NAME, FREE_TEXT, INSTITUTION_ID, PERSON_NAME, REFERENCE, SERVICE_CODE, YEAR_MONTH,
} from './field-rules.js';
import { FieldError, UsageError } from './errors.js';
import { validateDate, validateEmail, validatePhone, validateYearMonth } from './validate.js';

export type FieldValidator = (label: string, value: string) => string;

/** The value as shown in a message: long values are cut, control characters escaped. */
export function shown(value: string): string {
  const cut = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return JSON.stringify(cut);
}

export function invalidField(label: string, value: string, why: string): FieldError {
  return new FieldError(label, shown(value), why);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function text(label: string, value: string, options: { maxLength: number; required: boolean }): string {
  const trimmed = value.trim();
  if (options.required && trimmed === '') throw new UsageError(`invalid ${label}: must not be empty`);
  if (trimmed.length > options.maxLength) throw invalidField(label, trimmed, `at most ${options.maxLength} characters (this has ${trimmed.length})`);
  if (CONTROL.test(trimmed)) throw invalidField(label, trimmed, 'must be one line without control characters');
  return trimmed;
}

/** First or last name: required, one line, bounded. */
export const personName: FieldValidator = (label, value) => text(label, value, { maxLength: PERSON_NAME.maxLength, required: true });
/** Middle name: may be empty. */
export const optionalPersonName: FieldValidator = (label, value) => text(label, value, { maxLength: PERSON_NAME.maxLength, required: false });
/** Address lines, city, state, country, postal code, card product: may be empty. */
export const freeText: FieldValidator = (label, value) => text(label, value, { maxLength: FREE_TEXT.maxLength, required: false });
/** Required free text (card program, account number and type, bank code). */
export const requiredText: FieldValidator = (label, value) => text(label, value, { maxLength: FREE_TEXT.maxLength, required: true });
export const institutionId: FieldValidator = (label, value) => text(label, value, { maxLength: INSTITUTION_ID.maxLength, required: true });

export const email: FieldValidator = (label, value) => {
  if (value.trim().length > EMAIL.maxLength) throw invalidField(label, value.trim(), `at most ${EMAIL.maxLength} characters (this has ${value.trim().length})`);
  return validateEmail(label, value);
};
export const phone: FieldValidator = (label, value) => validatePhone(label, value);

/** `referenceCode` of a created card, `realId` of an imported one. */
export const reference: FieldValidator = (label, value) => {
  const trimmed = value.trim();
  if (trimmed === '') throw new UsageError(`invalid ${label}: must not be empty`);
  if (trimmed.length > REFERENCE.maxLength) throw invalidField(label, trimmed, `at most ${REFERENCE.maxLength} characters (this has ${trimmed.length})`);
  if (!new RegExp(REFERENCE.pattern).test(trimmed)) throw invalidField(label, trimmed, 'use letters, digits, . _ : - (starting with a letter or digit)');
  return trimmed;
};

/** `referenceCode` of a created card: a reference outside the imports' namespace (`import:…`). */
export const cardReference: FieldValidator = (label, value) => {
  const trimmed = reference(label, value);
  if (!new RegExp(CARD_REFERENCE.pattern).test(trimmed)) throw invalidField(label, trimmed, `references starting with ${IMPORT_REFERENCE_PREFIX} are the imported cards' (import:<realId>)`);
  return trimmed;
};

/** Name on the card: spaces collapsed, printable ASCII, at most 26 characters. */
export const embossingName: FieldValidator = (label, value) => {
  const trimmed = value.trim().replace(/\s+/g, ' ');
  if (trimmed === '') throw new UsageError(`invalid ${label}: must not be empty`);
  if (trimmed.length > EMBOSSING_NAME.maxLength) throw invalidField(label, trimmed, `at most ${EMBOSSING_NAME.maxLength} characters fit on a card (this has ${trimmed.length})`);
  if (!new RegExp(EMBOSSING_NAME.pattern).test(trimmed)) throw invalidField(label, trimmed, 'use plain ASCII letters, digits and punctuation');
  return trimmed;
};

/** A date of birth YYYY-MM-DD: a real date, not in the future, not before 1900. */
export function birthDate(label: string, value: string, now: Date = new Date()): string {
  const date = validateDate(label, value);
  if (date > now.toISOString().slice(0, 10)) throw invalidField(label, value.trim(), 'a date of birth cannot be in the future');
  if (date < EARLIEST_BIRTH_DATE) throw invalidField(label, value.trim(), `a date of birth cannot be before ${EARLIEST_BIRTH_DATE}`);
  return date;
}

/**
 * An expiry month YYYYMM that has not passed: from the current month on, or (renewals) only
 * after it.
 */
export function expiryMonth(label: string, value: string, options: { now: Date; allowCurrentMonth: boolean }): string {
  const { year, month, text: normalised } = validateYearMonth(label, value);
  if (!new RegExp(YEAR_MONTH.pattern).test(normalised)) throw invalidField(label, value.trim(), 'YYYYMM, e.g. 202912');
  const now = options.now;
  const current = now.getUTCFullYear() * 12 + now.getUTCMonth();
  const currentText = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  const given = year * 12 + (month - 1);
  if (options.allowCurrentMonth ? given < current : given <= current) {
    throw invalidField(label, value.trim(), options.allowCurrentMonth
      ? `the card has expired (the expiry month must be ${currentText} or later)`
      : `it must be a month in the future (after ${currentText})`);
  }
  return normalised;
}

export const bin: FieldValidator = (label, value) => {
  const trimmed = value.trim();
  if (!new RegExp(BIN.pattern).test(trimmed)) throw invalidField(label, trimmed, 'expected 6 to 8 digits');
  return trimmed;
};

/** Service code: 3 digits; empty means the card program's. */
export const serviceCode: FieldValidator = (label, value) => {
  const trimmed = value.trim();
  if (!new RegExp(SERVICE_CODE.pattern).test(trimmed)) throw invalidField(label, trimmed, 'expected 3 digits, e.g. 101 (or empty for the card program\'s)');
  return trimmed;
};

/** A card status: `--status` of cards create, `card.cardState` of an import. */
export const cardStatus: FieldValidator = (label, value) => {
  const normalised = value.trim().toLowerCase();
  if (!(CARD_STATUSES as readonly string[]).includes(normalised)) throw invalidField(label, value.trim(), `expected one of ${CARD_STATUSES.join(', ')}`);
  return normalised;
};

/**
 * Validity: the end must be after the start. Values are ISO dates or date-times; a bare date
 * as the end counts as the whole day (an import's card may start and end on the same day).
 */
export function assertEndAfterStart(start: { label: string; value: string }, end: { label: string; value: string }): void {
  const from = Date.parse(start.value);
  const bare = /^\d{4}-\d{2}-\d{2}$/.test(end.value);
  const until = Date.parse(end.value) + (bare ? 86_400_000 : 0);
  if (!(until > from)) {
    throw new UsageError(`invalid ${end.label} "${end.value.slice(0, 10)}": must be after ${start.label} (${start.value.slice(0, 10)})`);
  }
}
