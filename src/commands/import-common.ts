// What both ways of `import` share: its flags, one card's fields, and the API key the endpoint needs.
import { bodyFields, defineFlags, type FlagValues } from '../core/flags.js';
import { CARD_FLAGS, CARDHOLDER_FLAGS, placeFlags, REASON_MAX_LENGTH } from './card-flags.js';
import type { Context } from '../contract/context.js';
import { AuthError } from '../core/errors.js';
import { BULK_FLAGS } from './bulk-command.js';

/** Every flag of `import`, in help order. Those with a path are one card's fields, written there in the Import Card body. */
export const IMPORT_FLAGS = defineFlags({
  fromFile: { type: 'string', value: 'file', complete: 'file', description: 'file of cards to import (.csv, .ndjson, .json), or - for stdin' },
  format: { type: 'string', value: 'format', choices: ['csv', 'ndjson', 'json'], description: 'file format (default: from the extension; required for - and pipes)' },
  encoding: { type: 'string', value: 'encoding', choices: ['utf-8', 'latin1', 'utf-16le'], description: 'text encoding of the file (default utf-8; invalid UTF-8 is an error)' },
  concurrency: BULK_FLAGS.concurrency,
  report: { type: 'string', value: 'file', complete: 'file', description: 'NDJSON report: line, realId, outcome, cardId or error' },
  resume: BULK_FLAGS.resume,
  realId: { type: 'string', value: 'id', description: 'one card: its identifier in your system', path: 'realId', prompt: 'Real id (your identifier for the card)' },
  active: { type: 'boolean', description: 'one card: the card is active (the default)', negation: 'one card: the card is not active' },
  ...placeFlags(CARD_FLAGS, { startDate: { path: 'startDate', description: 'one card: start date YYYY-MM-DD', prompt: 'Start date (YYYY-MM-DD)' } }),
  endDate: { type: 'string', value: 'date', description: 'one card: end date YYYY-MM-DD', path: 'endDate', prompt: 'End date (YYYY-MM-DD)' },
  ...placeFlags(CARDHOLDER_FLAGS, {
    firstName: { path: 'firstName', description: 'one card: first name' },
    middleName: { path: 'middleName', description: 'one card: middle name (default empty)' },
    lastName: { path: 'lastName', description: 'one card: last name' },
    email: { path: 'email', description: 'one card: email' },
    phone: { path: 'phone', description: 'one card: phone', prompt: 'Phone' },
    birthDate: { path: 'birthDate', description: 'one card: birth date YYYY-MM-DD', prompt: 'Birth date (YYYY-MM-DD)' },
    addressLine1: { path: 'address1', description: 'one card: address line 1', prompt: 'Address line 1' },
    addressLine2: { path: 'address2', description: 'one card: address line 2 (default empty)' },
    city: { path: 'city', description: 'one card: city', prompt: 'City' },
    state: { path: 'state', description: 'one card: state', prompt: 'State' },
    postalCode: { path: 'zip', description: 'one card: postal code', prompt: 'Postal code' },
    country: { path: 'country', description: 'one card: country', prompt: 'Country' },
  }),
  institutionId: { type: 'string', value: 'id', description: "institution of the card(s); fills rows without one (default: the profile's institutionId)", path: 'institutionId', prompt: 'Institution id' },
  expiration: { type: 'string', value: 'yyyymm', description: 'one card: expiry YYYYMM', path: 'card.expiration', prompt: 'Card expiry (YYYYMM)' },
  serviceCode: { type: 'string', value: 'code', description: 'one card: service code', path: 'card.serviceCode', prompt: 'Service code' },
  cardProduct: { type: 'string', value: 'name', description: 'one card: card product', path: 'card.cardProduct', prompt: 'Card product' },
  ...placeFlags(CARD_FLAGS, { embossingName: { path: 'card.embossingName', description: 'one card: embossing name', prompt: 'Embossing name' } }),
  bin: { type: 'string', value: 'bin', description: 'one card: BIN (6 to 8 digits)', path: 'card.bin', prompt: 'BIN' },
  ...placeFlags(CARD_FLAGS, { status: { path: 'card.cardState', description: 'one card: card status', prompt: 'Card state' } }),
  pinStdin: { type: 'boolean', secret: true, description: 'one card: read the default PIN (4 to 12 digits) from stdin' },
  allowWeakPin: { type: 'boolean', description: 'accept trivially weak default PINs such as 1111 (one card, or every row of a file)' },
  returnSecure: { type: 'boolean', description: 'one card: return secure data' },
  reason: { type: 'string', value: 'text', maxLength: REASON_MAX_LENGTH, description: 'why (kept in the audit journal)' },
});

export type ImportOptions = FlagValues<typeof IMPORT_FLAGS>;

/** One card's fields, each with the body path it fills and its question. */
export const CARD_FIELDS = bodyFields(IMPORT_FLAGS);

export function requireApiKey(ctx: Context): void {
  if (!ctx.settings().apiKey) {
    throw new AuthError('no API key for this profile: import authenticates with the x-api-key header', {
      hint: 'run `cardctl login --api-key-stdin`, or set CARDCTL_API_KEY',
    });
  }
}
