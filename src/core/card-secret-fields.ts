// The ISO 8583 fields that carry card data, as redaction needs them: plain data on the ground
// floor, so that redact.ts need not reach up into the message dictionaries (src/iso8583/), which
// name these fields and read them from here.

/** Fields that carry card secrets: redacted (35, 36, 45, 52, 55). */
export const SENSITIVE_FIELDS: ReadonlySet<string> = new Set(['35', '36', '45', '52', '55']);
/** Fields that carry a card number: shown masked (2, 34). */
export const PAN_FIELDS: ReadonlySet<string> = new Set(['2', '34']);
