// Limits of the card and cardholder fields, declared once: the sandbox's TypeBox schemas
// (api/schemas.ts) put them in the request schemas it validates with and publishes, and the CLI's
// field validators (core/card-fields.ts) check them before anything is sent. Plain data, so the
// CLI can import it without loading TypeBox.

/** Your own identifier of a card: `referenceCode` of Create Card, `realId` of Import Card. */
export const REFERENCE = { minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$' } as const;
/**
 * An imported card's referenceCode is `import:<realId>`, the key that keeps an import exactly
 * once; so a created card's referenceCode may not start with `import:`, and a reference given to
 * Create Card can never be taken for an import (or make one "already there").
 */
export const IMPORT_REFERENCE_PREFIX = 'import:';
/** `referenceCode` of Create Card: a REFERENCE outside the imports' namespace. */
export const CARD_REFERENCE = { ...REFERENCE, pattern: `^(?!${IMPORT_REFERENCE_PREFIX})${REFERENCE.pattern.slice(1)}` } as const;
/** The referenceCode an import of `realId` is recorded under. */
export function importReference(realId: string): string {
  return `${IMPORT_REFERENCE_PREFIX}${realId}`;
}
/** The name printed on a card: printable ASCII, as many characters as fit on the card. */
export const EMBOSSING_NAME = { minLength: 1, maxLength: 26, pattern: '^[\\x20-\\x7e]+$' } as const;
/** First, middle and last names. */
export const PERSON_NAME = { maxLength: 100 } as const;
/** Address lines, city, state, country, postal code, card product, card program and account fields. */
export const FREE_TEXT = { maxLength: 200 } as const;
/** An email address (RFC 5321's limit). */
export const EMAIL = { maxLength: 254 } as const;
/** An institution's id. */
export const INSTITUTION_ID = { minLength: 1, maxLength: 64 } as const;
/** A clear PIN (ISO 9564: 4 to 12 digits). */
export const CLEAR_PIN = { pattern: '^[0-9]{4,12}$' } as const;
/** Bank identification number: the first 6 to 8 digits of a PAN. */
export const BIN = { pattern: '^[0-9]{6,8}$' } as const;
/** An expiry month YYYYMM. */
export const YEAR_MONTH = { pattern: '^[0-9]{4}(0[1-9]|1[0-2])$' } as const;
/** ISO 7813 service code: 3 digits (empty in an import: the card program's). */
export const SERVICE_CODE = { pattern: '^([0-9]{3})?$' } as const;
/** Earliest date of birth accepted. */
export const EARLIEST_BIRTH_DATE = '1900-01-01';
