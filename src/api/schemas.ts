// One definition of the API's shapes: TypeScript types for the CLI (import type only, so the
// CLI never loads TypeBox at run time) and JSON Schemas that the sandbox validates with and
// publishes in /openapi.json. Field lists follow the API reference; what it leaves open is
// decided in docs/sandbox-api.md, docs/pin.md and docs/switch.md.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  CARD_STATUSES as CARD_STATUS,
  CHANNELS as CHANNEL,
  GRANT_TYPES as GRANT_TYPE,
  INTENTS as INTENT,
  PAYMENT_METHODS as PAYMENT_METHOD,
  PROCESSING_FLOWS as PROCESSING_FLOW,
  TRANSACTION_STATUSES as TRANSACTION_STATUS,
} from '../core/enums.js';
import * as rules from '../core/field-rules.js';
import { LIST_BOUNDS } from '../core/list-bounds.js';
import { WEBHOOK_TYPES } from '../webhook-protocol/signature.js';

const DateTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** One of the values: the union of their literals, typed as the union of the values (Unsafe keeps the schema as is). */
const literalUnion = <T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v))));

export const CardStatus = literalUnion(CARD_STATUS);
export const TransactionStatus = literalUnion(TRANSACTION_STATUS);

// ---------- envelope, errors, pagination ----------

export const Pagination = Type.Object({
  page: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1 }),
  total: Type.Integer({ minimum: 0 }),
  pages: Type.Integer({ minimum: 0 }),
});
export type Pagination = Static<typeof Pagination>;

export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ statusCode: Type.Integer(), message: Type.String(), data });
export const ListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ statusCode: Type.Integer(), message: Type.String(), data: Type.Array(item), pagination: Pagination });

export const FieldError = Type.Object({ field: Type.String(), message: Type.String() });
export const ErrorEnvelope = Type.Object({
  statusCode: Type.Integer(),
  message: Type.String(),
  error: Type.String({ description: 'VALIDATION_ERROR, INVALID_PIN_BLOCK, UNKNOWN_KEY, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, PIN_MISMATCH, PIN_LOCKED, RATE_LIMITED, UNSUPPORTED_MEDIA_TYPE, PAYLOAD_TOO_LARGE, NOT_IMPLEMENTED, INTERNAL' }),
  errors: Type.Optional(Type.Array(FieldError)),
  details: Type.Optional(Type.Unknown()),
});
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

export { LIST_BOUNDS };

const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_BOUNDS.maxPage, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_BOUNDS.maxLimit, default: 20 })),
};
/** A text filter of a list query. */
const QueryText = () => Type.Optional(Type.String({ maxLength: LIST_BOUNDS.maxText }));

// ---------- shared pieces ----------

export const Address = Type.Object({
  line1: Type.String(),
  line2: Type.String(),
  city: Type.String(),
  state: Type.String(),
  country: Type.String(),
  postalCode: Type.String(),
});
export type Address = Static<typeof Address>;

export const CustomerInput = Type.Object({
  firstName: Type.String({ minLength: 1, ...rules.PERSON_NAME }),
  middleName: Type.Optional(Type.String({ ...rules.PERSON_NAME })),
  lastName: Type.String({ minLength: 1, ...rules.PERSON_NAME }),
  emailAddress: Type.String({ format: 'email', ...rules.EMAIL }),
  phoneNumber: Type.String({ minLength: 5 }),
  honorific: Type.Optional(Type.String()),
  gender: Type.Optional(Type.String()),
  dateOfBirth: Type.Optional(DateTime()),
  address: Type.Optional(Type.Partial(Address)),
}, { additionalProperties: false });
export type CustomerInput = Static<typeof CustomerInput>;

export const Customer = Type.Object({
  uniqueId: Type.String(),
  firstName: Type.String(),
  middleName: Type.String(),
  lastName: Type.String(),
  emailAddress: Type.String(),
  phoneNumber: Type.String(),
  honorific: Type.String(),
  gender: Type.String(),
  dateOfBirth: Nullable(DateTime()),
  address: Address,
});
export type Customer = Static<typeof Customer>;

export const EncryptedPinBlock = Type.Object({
  encryptedData: Type.String({ pattern: '^[0-9a-fA-F]+$', description: 'RSA-OAEP-SHA256 ciphertext of an ISO 9564-1 format 1 block, hex' }),
  publicKeyFingerprint: Type.String({ minLength: 1, description: 'lowercase hex SHA-256 of the DER SubjectPublicKeyInfo' }),
}, { additionalProperties: false });
export type EncryptedPinBlock = Static<typeof EncryptedPinBlock>;

export const Account = Type.Object({
  currency: Type.String(),
  bankCode: Type.String(),
  type: Type.String(),
  number: Type.String(),
});
export type Account = Static<typeof Account>;

export const AccountInput = Type.Object({
  currency: Type.String({ pattern: '^[0-9]{3}$', description: 'ISO 4217 numeric code' }),
  bankCode: Type.String(),
  type: Type.String(),
  number: Type.String({ minLength: 1 }),
}, { additionalProperties: false });

// ---------- card programs ----------

const DailyLimit = Type.Object({
  count: Type.Integer({ minimum: 0, description: 'transactions per card, channel and UTC day; 0: no limit' }),
  amount: Type.Number({ minimum: 0, description: 'major units of the card currency per card, channel and UTC day; 0: no limit' }),
});
const ChannelConfig = Type.Object({
  enabled: Type.Boolean(),
  dailyLimit: DailyLimit,
});
/** A change to a channel: the members given replace the current ones, the others stay. */
const ChannelChange = Type.Object({
  enabled: Type.Optional(Type.Boolean()),
  dailyLimit: Type.Optional(Type.Partial(DailyLimit, { additionalProperties: false })),
}, { additionalProperties: false });
export const WebhookConfig = Type.Object({
  type: Type.String({ description: 'sandbox extension: the signature scheme, `http` (X-Webhook-Signature, the default) or `standard-webhooks` (docs/webhook-protocol.md)' }),
  header: Type.String(),
  url: Type.String(),
  secret: Type.String(),
  previousSecret: Type.Optional(Type.String({ description: 'sandbox extension: during a secret rotation, the secret replaced, which also signs until previousSecretUntil' })),
  previousSecretUntil: Type.Optional(DateTime('sandbox extension: the end of the rotation window')),
});
export type WebhookConfig = Static<typeof WebhookConfig>;
/** A change to a program's webhook settings: the members given replace the current ones. */
const WebhookConfigChange = Type.Object({
  type: Type.Optional(Type.Union(WEBHOOK_TYPES.map((type) => Type.Literal(type)), { description: '`http` (X-Webhook-Signature) or `standard-webhooks`' })),
  header: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  secret: Type.Optional(Type.String({ minLength: 1, description: 'with standard-webhooks: whsec_ and the base64 of 24 to 64 bytes' })),
  previousSecretUntil: Type.Optional(DateTime('with a new secret: the replaced secret signs too until then (a rotation); alone: moves the end of the rotation (a time past ends it now)')),
}, { additionalProperties: false, description: 'merged into the current webhook settings' });

/** Sandbox extension: what the network does when the webhook cannot answer (docs/switch.md). */
export const StandInPolicy = Type.Object({
  mode: Type.Union([Type.Literal('decline'), Type.Literal('approve')], { description: '`decline` (96, the default) or `approve` under the amounts below' }),
  maxAmount: Type.Number({ minimum: 0, description: 'major units: the largest transaction approved in stand-in' }),
  dailyAmount: Type.Number({ minimum: 0, description: 'major units: stand-in approvals per card and UTC day, in total' }),
}, { additionalProperties: false });
export type StandInPolicy = Static<typeof StandInPolicy>;

export const CardProgram = Type.Object({
  _id: Type.String(),
  id: Type.String(),
  institution: Type.String(),
  createdBy: Type.String(),
  name: Type.String(),
  scheme: Type.String(),
  type: Type.String(),
  serviceCode: Type.String(),
  code: Type.String(),
  bankCode: Type.String(),
  seqNumber: Type.String(),
  panPrefix: Type.String(),
  panStart: Type.String(),
  panEnd: Type.String(),
  panLength: Type.Integer(),
  panPermutation: Type.Object({ algorithm: Type.String() }),
  maxExpiry: Type.Integer({ description: 'months' }),
  renewable: Type.Boolean(),
  channels: Type.Object({ pos: ChannelConfig, atm: ChannelConfig, web: ChannelConfig }),
  isDeleted: Type.Boolean(),
  active: Type.Boolean(),
  anonymous: Type.Boolean(),
  randomCardNumber: Type.Boolean(),
  allowRandomPan: Type.Boolean(),
  smart: Type.Boolean(),
  allowTips: Type.Boolean(),
  cardProgramUpdate: Type.Boolean(),
  settlementConfig: Type.Object({ schedule: Type.String(), config: Type.String() }),
  issuer: Type.Integer(),
  cardProgramId: Type.Integer(),
  panSequenceCounter: Type.Integer(),
  startDate: DateTime(),
  endDate: DateTime(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  webHookConfig: WebhookConfig,
  losesAccount: Type.Optional(Type.String()),
  issuedAccount: Type.Optional(Type.String()),
  feeAccount: Type.Optional(Type.String()),
  standIn: Type.Optional(StandInPolicy),
  holdPeriodHours: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'sandbox extension: approved authorizations older than this are released (expiry); default 168' })),
});
export type CardProgram = Static<typeof CardProgram>;

/** Sandbox helper: create or update a card program. */
export const CardProgramInput = Type.Object({
  name: Type.String({ minLength: 1 }),
  scheme: Type.Optional(Type.String()),
  panPrefix: Type.Optional(Type.String({ pattern: '^[0-9]{6,11}$', description: 'a BIN (6 digits or more) and any digits after it; no other institution\'s program may overlap the range' })),
  panLength: Type.Optional(Type.Integer({ minimum: 13, maximum: 19 })),
  maxExpiry: Type.Optional(Type.Integer({ minimum: 1, maximum: 120 })),
  allowRandomPan: Type.Optional(Type.Boolean()),
  randomCardNumber: Type.Optional(Type.Boolean()),
  renewable: Type.Optional(Type.Boolean()),
  channels: Type.Optional(Type.Partial(Type.Object({ pos: ChannelChange, atm: ChannelChange, web: ChannelChange }, { additionalProperties: false }), {
    description: 'merged member by member into the current channels: a channel or limit left out keeps its value',
  })),
  webHookConfig: Type.Optional(WebhookConfigChange),
  standIn: Type.Optional(Type.Partial(StandInPolicy, { additionalProperties: false, description: 'merged into the current policy (at first: decline, amounts 0)' })),
  holdPeriodHours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 8760 })),
}, { additionalProperties: false });
export type CardProgramInput = Static<typeof CardProgramInput>;

// ---------- cards ----------

export const Card = Type.Object({
  _id: Type.String(),
  id: Type.String(),
  institution: Type.String(),
  cardProgram: Type.Union([Type.String(), CardProgram]),
  referenceCode: Type.String(),
  scheme: Type.String(),
  type: Type.String(),
  bin: Type.String(),
  expiryMonth: Type.String(),
  expiryYear: Type.Integer(),
  expiryDate: DateTime(),
  pinEnabled: Type.Boolean(),
  seqNumber: Type.String(),
  enroll2FA: Type.Boolean(),
  twoFAEnrolled: Type.Boolean(),
  status: CardStatus,
  account: Account,
  customer: Customer,
  cardHolderId: Type.String(),
  lastFour: Type.String(),
  pan: Type.String({ description: 'masked: first 6 and last 4 digits' }),
  cvv2: Type.String(),
  icvv: Type.String(),
  cvv: Type.String(),
  pinOffset: Type.Optional(Type.String()),
  serviceCode: Type.String(),
  printCard: Type.Boolean(),
  token: Type.String(),
  allowDigitization: Type.Boolean(),
  embossingName: Type.String(),
  pinAttempts: Type.Integer(),
  honorific: Type.String(),
  gender: Type.String(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  hash: Type.String(),
  secureData: Type.String(),
  __v: Type.Integer(),
});
export type Card = Static<typeof Card>;

export const CreateCardBody = Type.Object({
  cardProgram: Type.String({ minLength: 1 }),
  referenceCode: Type.String({ ...rules.CARD_REFERENCE }),
  pinEnabled: Type.Boolean(),
  defaultPIN: EncryptedPinBlock,
  account: AccountInput,
  customer: CustomerInput,
  embossingName: Type.String({ minLength: rules.EMBOSSING_NAME.minLength, maxLength: rules.EMBOSSING_NAME.maxLength }),
  startDate: DateTime(),
  expiryDate: DateTime(),
  pan: Type.Optional(Type.String({ pattern: '^[0-9]{12,19}$' })),
  status: Type.Optional(CardStatus),
  seqNumber: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })),
  enroll2FA: Type.Optional(Type.Boolean()),
  printCard: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CreateCardBody = Static<typeof CreateCardBody>;
/** A Create Card body before its PIN block: what the CLI builds and checks, then encrypts the PIN into. */
export const CreateCardFields = Type.Omit(CreateCardBody, ['defaultPIN']);
export type CreateCardFields = Static<typeof CreateCardFields>;

export const ListCardsQuery = Type.Object({
  search: QueryText(),
  cardId: QueryText(),
  status: Type.Optional(CardStatus),
  ...PageQuery,
}, { additionalProperties: false });
export type ListCardsQuery = Static<typeof ListCardsQuery>;

export const CardIdParams = Type.Object({ cardId: Type.String() });

export const RenewCardBody = Type.Object({
  expiration: Type.String({ pattern: '^[0-9]{4}(0[1-9]|1[0-2])$', description: 'YYYYMM' }),
  renewReason: Type.String({ minLength: 1 }),
}, { additionalProperties: false });
export type RenewCardBody = Static<typeof RenewCardBody>;

export const ChangePinBody = Type.Object({ oldPIN: EncryptedPinBlock, newPIN: EncryptedPinBlock }, { additionalProperties: false });
export type ChangePinBody = Static<typeof ChangePinBody>;
export const ResetPinBody = Type.Object({ newPIN: EncryptedPinBlock }, { additionalProperties: false });
export type ResetPinBody = Static<typeof ResetPinBody>;

export const UpdateCustomerBody = Type.Object({
  firstName: Type.String({ minLength: 1 }),
  middleName: Type.String(),
  lastName: Type.String({ minLength: 1 }),
  emailAddress: Type.String({ format: 'email' }),
  phoneNumber: Type.String({ minLength: 5 }),
  dateOfBirth: DateTime(),
  address: Address,
}, { additionalProperties: false });
export type UpdateCustomerBody = Static<typeof UpdateCustomerBody>;

// ---------- institutions, users ----------

export const Institution = Type.Object({
  _id: Type.String(),
  id: Type.String(),
  name: Type.String(),
  code: Type.String(),
  registrationCountry: Type.String(),
  address: Type.Object({ street: Type.String(), city: Type.String(), state: Type.String(), country: Type.String() }),
  emailAddress: Type.String(),
  phoneNumber: Type.String(),
  websiteUrl: Type.String(),
  isApproved: Type.Boolean(),
  status: Type.String(),
  isBlocked: Type.Boolean(),
  createdBy: Type.String(),
  users: Type.Array(Type.String()),
  memberships: Type.Array(Type.String()),
  platformWalletId: Type.String(),
  platformClientId: Type.String(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  __v: Type.Integer(),
});
export type Institution = Static<typeof Institution>;

/** An OAuth scope or role permission: `verb:object` (lowercase and underscores), or `*`, `READ`, `WRITE`. */
export const SCOPE_PATTERN = '^([a-z_]+:[a-z_]+|\\*|READ|WRITE)$';

export const Role = Type.Object({ role: Type.String({ minLength: 1 }), permissions: Type.Array(Type.String({ pattern: SCOPE_PATTERN })) });
export const UpdateUserBody = Type.Object({
  firstName: Type.String({ minLength: 1 }),
  lastName: Type.String({ minLength: 1 }),
  emailAddress: Type.String({ format: 'email' }),
  phoneNumber: Type.String({ minLength: 5 }),
  status: Type.String({ minLength: 1 }),
  isBlocked: Type.Boolean(),
  roles: Type.Array(Role),
  embossingName: Type.Optional(Type.String()),
  startDate: Type.Optional(DateTime()),
  expiryDate: Type.Optional(DateTime()),
  printCard: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const InstitutionUser = Type.Object({
  _id: Type.String(),
  id: Type.String(),
  institution: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  emailAddress: Type.String(),
  phoneNumber: Type.String(),
  status: Type.String(),
  isBlocked: Type.Boolean(),
  roles: Type.Array(Role),
  embossingName: Type.String(),
  startDate: Nullable(DateTime()),
  expiryDate: Nullable(DateTime()),
  printCard: Type.Boolean(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
export type InstitutionUser = Static<typeof InstitutionUser>;

// ---------- OAuth applications ----------

export const OAuthApplication = Type.Object({
  _id: Type.String(),
  id: Type.String(),
  institution: Type.Union([Type.String(), Institution]),
  name: Type.String(),
  description: Type.String(),
  redirectUri: Type.Array(Type.String()),
  isVerified: Type.Boolean(),
  isOfficial: Type.Boolean(),
  isDeleted: Type.Boolean(),
  institutionId: Type.String({ description: 'generated client identifier (OAuth client_id)' }),
  subject: Type.String(),
  scopes: Type.Array(Type.String()),
  grantType: Type.String(),
  createdBy: Type.String(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
export type OAuthApplication = Static<typeof OAuthApplication>;

export const CreateOAuthBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  publicKey: Type.String({ minLength: 1, description: 'PEM certificate' }),
  scopes: Type.Array(Type.String({ pattern: SCOPE_PATTERN }), { minItems: 1 }),
  grantType: literalUnion(GRANT_TYPE),
  description: Type.Optional(Type.String()),
  redirectUri: Type.Optional(Type.Array(Type.String({ format: 'uri' }))),
  websiteUrl: Type.Optional(Type.String({ format: 'uri' })),
  iconUrl: Type.Optional(Type.String({ format: 'uri' })),
  isOfficial: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CreateOAuthBody = Static<typeof CreateOAuthBody>;

export const UpdateOAuthBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.String(),
  websiteUrl: Type.String({ format: 'uri' }),
  scopes: Type.Array(Type.String({ pattern: SCOPE_PATTERN }), { minItems: 1 }),
}, { additionalProperties: false });
export type UpdateOAuthBody = Static<typeof UpdateOAuthBody>;

export const ListOAuthQuery = Type.Object({ search: QueryText(), ...PageQuery }, { additionalProperties: false });

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.String(),
});
export type TokenResponse = Static<typeof TokenResponse>;

// ---------- import ----------

export const ImportCardBody = Type.Object({
  realId: Type.String({ ...rules.REFERENCE }),
  active: Type.Boolean(),
  startDate: Type.String({ format: 'date' }),
  endDate: Type.String({ format: 'date' }),
  firstName: Type.String({ minLength: 1, ...rules.PERSON_NAME }),
  lastName: Type.String({ minLength: 1, ...rules.PERSON_NAME }),
  middleName: Type.String({ ...rules.PERSON_NAME }),
  email: Type.String({ format: 'email', ...rules.EMAIL }),
  address1: Type.String({ ...rules.FREE_TEXT }),
  address2: Type.String({ ...rules.FREE_TEXT }),
  city: Type.String({ ...rules.FREE_TEXT }),
  state: Type.String({ ...rules.FREE_TEXT }),
  zip: Type.String({ ...rules.FREE_TEXT }),
  country: Type.String({ ...rules.FREE_TEXT }),
  birthDate: Type.String({ format: 'date' }),
  phone: Type.String({ minLength: 5 }),
  institutionId: Type.String({ ...rules.INSTITUTION_ID }),
  card: Type.Object({
    expiration: Type.String({ ...rules.YEAR_MONTH }),
    serviceCode: Type.String({ ...rules.SERVICE_CODE }),
    cardProduct: Type.String({ ...rules.FREE_TEXT }),
    // The CLI keeps names on cards to ASCII; the API takes any text up to the card's width.
    embossingName: Type.String({ minLength: rules.EMBOSSING_NAME.minLength, maxLength: rules.EMBOSSING_NAME.maxLength }),
    defaultPIN: Type.String({ ...rules.CLEAR_PIN, description: 'clear PIN of the import format; hashed, never returned' }),
    bin: Type.String({ ...rules.BIN }),
    cardState: Type.String({ ...rules.FREE_TEXT }),
  }, { additionalProperties: false }),
  returnSecure: Type.Boolean(),
}, { additionalProperties: false });
export type ImportCardBody = Static<typeof ImportCardBody>;

// ---------- transactions and simulation ----------

/** Sandbox extension: the lifecycle messages beyond the reference's three intents (docs/switch.md). */
export const LIFECYCLE_KINDS = ['increment', 'completion', 'refund', 'advice', 'stand-in-advice', 'timeout-reversal'] as const;
export type LifecycleKind = (typeof LIFECYCLE_KINDS)[number];

export const SwitchMessage = Type.Record(Type.String({ pattern: '^[0-9]{1,3}$' }), Type.String(), {
  description: 'ISO 8583 fields keyed by field number; "0" is the MTI',
});
export type SwitchMessage = Static<typeof SwitchMessage>;

const Hop = Type.Object({ timestamp: DateTime(), direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]), description: Type.String() });

const Major = (description: string) => Type.Number({ description: `major units: ${description}` });

const StandInDecision = Type.Object({
  decision: Type.String({ description: 'the response code the network gave' }),
  reason: Type.String({ description: "why the webhook's answer could not be used" }),
}, { description: 'sandbox: the network stood in for the webhook' });

/** Sandbox extensions of a stored transaction: all optional, absent on the reference's three intents unless they apply. */
const TransactionExtensions = {
  messageKind: Type.Optional(Type.Union(LIFECYCLE_KINDS.map((kind) => Type.Literal(kind)), { description: 'sandbox: the lifecycle message this is (absent for the three reference intents)' })),
  originalTransactionId: Type.Optional(Type.String({ description: 'sandbox: the original a linked message belongs to' })),
  requestedAmount: Type.Optional(Major('what was asked (partial approval: code 10)')),
  approvedAmount: Type.Optional(Major('what was approved (partial approval: code 10)')),
  standIn: Type.Optional(StandInDecision),
  advice: Type.Optional(Type.Object({
    acknowledged: Type.Boolean(), attempts: Type.Integer({ minimum: 0 }), lastResult: Type.String({ description: 'the latest delivery: the reply code, or why it failed' }),
  }, { description: 'sandbox: delivery of an advice (0120, 0220) or of a reversal that stands (0420), which the webhook acknowledges and cannot change; repeated (0121, 0221, 0421) until it does' })),
  repeats: Type.Optional(Type.Array(Type.Object({
    at: DateTime(), mti: Type.String(), responseCode: Type.String({ description: "the webhook's answer to the repeat, or '' when it gave none" }), agreed: Type.Boolean(),
    replyMti: Type.Optional(Type.String({ description: "the MTI of the webhook's answer to the repeat (0110 the ISO way to a 0101; 0111 is accepted too)" })),
    webhookFaults: Type.Optional(Type.Array(Type.String(), { description: 'faults injected on the way of this repeat' })),
  }), { description: 'sandbox: repeats (0101, 0421) of this message and whether the webhook answered them as it did the first' })),
  releaseReason: Type.Optional(Type.Union([Type.Literal('expiry'), Type.Literal('completion')], { description: 'sandbox: why the hold was released' })),
  webhookFaults: Type.Optional(Type.Array(Type.String(), { description: 'sandbox: faults injected on the webhook path for this message' })),
};

export const Transaction = Type.Object({
  _id: Type.String(),
  id: Type.String(),
  card: Nullable(Card),
  institution: Institution,
  mti: Type.String(),
  stan: Type.String(),
  rrn: Type.String(),
  processingCode: Type.String(),
  terminalId: Type.String(),
  merchantId: Type.String(),
  correlationId: Type.String(),
  messageType: Type.String(),
  amount: Type.Number(),
  merchantFeeAmount: Type.Number(),
  transactionAmount: Type.Number(),
  amounts: Type.Object({ amount: Type.String(), currency: Type.String() }),
  dates: Type.Object({ transmission: Type.String(), local: Type.String(), expiration: Type.String() }),
  cardData: Type.Object({ pan: Type.String(), track2: Type.String(), _id: Type.String() }),
  tppData: Type.Null(),
  nestedFields: Type.Null(),
  metadata: Type.Null(),
  additionaldata: Type.Null(),
  transactionType: Type.Null(),
  transactionAccount: Type.Null(),
  reversed: Type.Boolean(),
  reversalId: Type.String(),
  remainingAmount: Type.Optional(Type.Number({ description: 'sandbox: what a reversal may still take (major units): authorized less released and refunded; present once its amounts changed after approval (a reversal, increment, refund, completion or expiry). reversalId is the latest approved reversal' })),
  originalMessage: SwitchMessage,
  response: SwitchMessage,
  responseCode: Type.String(),
  ...TransactionExtensions,
  timestamps: Type.Object({ switchToService: Hop, serviceToInstitution: Hop, institutionToService: Hop, serviceToSwitch: Hop }),
  isDeleted: Type.Boolean(),
  transactionStatus: TransactionStatus,
  transactionChannel: Type.Object({
    channelType: Type.String(),
    detailedChannelType: Type.String(),
    entryMode: Type.String(),
    posConditionCode: Type.String(),
    serviceCode: Type.String(),
    posDataCode: Type.String(),
    isCardPresent: Type.Boolean(),
    isOnline: Type.Boolean(),
    isPhysical: Type.Boolean(),
    isAtm: Type.Boolean(),
    timestamp: DateTime(),
  }),
  accounts: Type.Object({ account1: Type.String() }),
  posData: Type.Object({ capabilities: Type.String() }),
  duration: Type.Integer({ description: 'milliseconds from switch inbound to switch outbound' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  __v: Type.Integer(),
});
export type Transaction = Static<typeof Transaction>;

export const ListTransactionsQuery = Type.Object({
  merchantId: QueryText(),
  terminalId: QueryText(),
  cardId: QueryText(),
  cardStatus: Type.Optional(CardStatus),
  transactionStatus: Type.Optional(TransactionStatus),
  ...PageQuery,
}, { additionalProperties: false });
export type ListTransactionsQuery = Static<typeof ListTransactionsQuery>;

/** How the sandbox answers a switch message: by its own rules (stub) or by asking the webhook (forward). */
export const ResponseMode = Type.Union([Type.Literal('stub'), Type.Literal('forward')]);
export type ResponseMode = Static<typeof ResponseMode>;

export const SimulateBody = Type.Object({
  intent: literalUnion(INTENT),
  processingFlow: literalUnion(PROCESSING_FLOW),
  amount: Type.Number({ minimum: 0 }),
  channel: Type.Optional(literalUnion(CHANNEL)),
  paymentMethod: Type.Optional(literalUnion(PAYMENT_METHOD)),
  currency: Type.Optional(Type.String({ pattern: '^[0-9]{3}$' })),
  cardId: Type.Optional(Type.String()),
  pan: Type.Optional(Type.String({ pattern: '^[0-9]{12,19}$' })),
  expiry: Type.Optional(Type.String({ pattern: '^([0-9]{2}|[0-9]{4})(0[1-9]|1[0-2])$' })),
  accountNumber: Type.Optional(Type.String()),
  merchantId: Type.Optional(Type.String()),
  terminalId: Type.Optional(Type.String()),
  responseMode: Type.Optional(ResponseMode),
  originalTransactionId: Type.Optional(Type.String()),
  originalStan: Type.Optional(Type.String({ pattern: '^[0-9]{6}$' })),
  originalRrn: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{12}$' })),
  transactionDate: Type.Optional(DateTime()),
  overrides: Type.Optional(SwitchMessage),
}, { additionalProperties: false });
export type SimulateBody = Static<typeof SimulateBody>;

export const SimulateResult = Type.Object({
  transactionId: Type.String(),
  mti: Type.String(),
  stan: Type.String(),
  rrn: Type.String(),
  responseCode: Type.String(),
  responseMessage: Type.String(),
  transactionStatus: TransactionStatus,
  request: SwitchMessage,
  response: SwitchMessage,
  duration: Type.Integer(),
  // Sandbox extensions: what callers would otherwise read out of `message`.
  standIn: Type.Optional(StandInDecision),
  webhook: Type.Optional(Type.Object({
    latencyMs: Type.Integer({ minimum: 0, description: 'from sending the message to the reply taken, or to giving up on one' }),
    timedOut: Type.Boolean({ description: 'no reply within the network\'s deadline' }),
    failure: Type.Optional(Type.String({ description: 'why there was no usable reply (absent when there was one)' })),
  }, { description: 'sandbox: the exchange with the webhook, in forward mode when the message was sent to it' })),
});
export type SimulateResult = Static<typeof SimulateResult>;

export const SimulateEnvelope = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('failed')]),
  message: Type.String(),
  data: SimulateResult,
});
export type SimulateEnvelope = Static<typeof SimulateEnvelope>;

// ---------- lifecycle messages (sandbox extension) ----------

export const LifecycleBody = Type.Object({
  message: Type.Union([Type.Literal('increment'), Type.Literal('completion'), Type.Literal('refund'), Type.Literal('advice')], {
    description: 'increment (0100 raising a hold), completion (0220 capturing an authorization), refund (0200, processing code 20, of a purchase), advice (0120: the network already decided)',
  }),
  originalTransactionId: Type.Optional(Type.String({ description: 'the original (required except for advice)' })),
  amount: Type.Optional(Type.Number({ minimum: 0, description: 'major units: the increment, the amount captured, the refund; for an advice the authorization amount' })),
  currency: Type.Optional(Type.String({ pattern: '^[0-9]{3}$' })),
  responseMode: Type.Optional(ResponseMode),
  overrides: Type.Optional(SwitchMessage),
  networkResponseCode: Type.Optional(Type.String({ pattern: '^[0-9A-Z]{2}$', description: "advice: the network's decision (default 00)" })),
  processingFlow: Type.Optional(literalUnion(PROCESSING_FLOW)),
  channel: Type.Optional(literalUnion(CHANNEL)),
  paymentMethod: Type.Optional(literalUnion(PAYMENT_METHOD)),
  cardId: Type.Optional(Type.String()),
  pan: Type.Optional(Type.String({ pattern: '^[0-9]{12,19}$' })),
  expiry: Type.Optional(Type.String({ pattern: '^([0-9]{2}|[0-9]{4})(0[1-9]|1[0-2])$' })),
  accountNumber: Type.Optional(Type.String()),
  merchantId: Type.Optional(Type.String()),
  terminalId: Type.Optional(Type.String()),
}, { additionalProperties: false });
export type LifecycleBody = Static<typeof LifecycleBody>;

export const Lifecycle = Type.Object({
  originalTransactionId: Type.String(),
  transactionStatus: TransactionStatus,
  currency: Type.String(),
  amounts: Type.Object({
    requested: Major('what the original asked for'),
    authorized: Major('approved, increments included'),
    held: Major('still held now'),
    captured: Major('taken: a financial, or what a completion captured'),
    released: Major('given back: reversals, a completion\'s remainder, an expiry'),
    refunded: Major('approved refunds'),
  }),
  messages: Type.Array(Type.Object({
    transactionId: Type.String(), mti: Type.String(), messageKind: Type.String(), amount: Type.Number(),
    responseCode: Type.String(), transactionStatus: TransactionStatus, createdAt: DateTime(),
  }), { description: 'the original, then every linked message, oldest first' }),
});
export type Lifecycle = Static<typeof Lifecycle>;

// ---------- sandbox helpers ----------

export const PinKeyInfo = Type.Object({
  publicKey: Type.String(),
  fingerprint: Type.String(),
  algorithm: Type.Literal('RSA-OAEP-256'),
  pinBlockFormat: Type.Literal('ISO-9564-1'),
});
export type PinKeyInfo = Static<typeof PinKeyInfo>;

export const SandboxInstitutionInput = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1 })),
}, { additionalProperties: false });

export const SandboxInstitutionCredentials = Type.Object({
  institutionId: Type.String(),
  userId: Type.String(),
  token: Type.String(),
  apiKey: Type.String(),
  cardProgramId: Type.String(),
});
export type SandboxInstitutionCredentials = Static<typeof SandboxInstitutionCredentials>;

/** Sandbox helper: POST /sandbox/users adds a user (with a token and an API key) to the caller's institution. */
export const SandboxUserInput = Type.Object({
  firstName: Type.Optional(Type.String({ minLength: 1 })),
  lastName: Type.Optional(Type.String({ minLength: 1 })),
  roles: Type.Optional(Type.Array(Role, { description: 'each role grants the scopes in its permissions; default none' })),
}, { additionalProperties: false });
export type SandboxUserInput = Static<typeof SandboxUserInput>;

export const SandboxUserCredentials = Type.Object({
  userId: Type.String(),
  token: Type.String(),
  apiKey: Type.String(),
});
export type SandboxUserCredentials = Static<typeof SandboxUserCredentials>;

// ---------- additions of the sandbox ----------

/** Sandbox helper: PUT /sandbox/card-programs/{id} changes any subset of the create fields. */
export const UpdateCardProgramInput = Type.Partial(CardProgramInput, { additionalProperties: false });
export type UpdateCardProgramInput = Static<typeof UpdateCardProgramInput>;

export const IdParams = Type.Object({ id: Type.String({ minLength: 1 }) });
export const UserIdParams = Type.Object({ institutionUserId: Type.String({ minLength: 1 }) });
export const OAuthApplicationParams = Type.Object({
  institutionId: Type.String({ minLength: 1, description: "the application's id or its client id (`institutionId`); both are accepted" }),
});
export const SwitchParams = Type.Object({ switch: Type.String({ minLength: 1, description: 'path segment naming the card switch; any value is accepted' }) });

/** POST /oauth/token, as application/x-www-form-urlencoded or JSON. */
export const TokenRequest = Type.Object({
  grant_type: Type.String({ description: 'client_credentials' }),
  client_id: Type.String({ minLength: 1, description: "the application's institutionId" }),
  client_assertion_type: Type.String({ description: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' }),
  client_assertion: Type.String({ minLength: 1, description: 'RS256 JWT signed with the private key of the registered certificate; iss = sub = client_id, aud = the token URL, exp at most 5 minutes ahead, unique jti' }),
  scope: Type.Optional(Type.String()),
});
export type TokenRequest = Static<typeof TokenRequest>;

export const SandboxHealth = Type.Object({
  /** degraded (503): the database cannot be written; `reason` says why. */
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  reason: Type.Optional(Type.String()),
  version: Type.String(),
  schemaVersion: Type.Integer(),
  storage: Type.Union([Type.Literal('memory'), Type.Literal('file')]),
  uptimeSeconds: Type.Number(),
});
export type SandboxHealth = Static<typeof SandboxHealth>;

// ---------- webhook exchanges (sandbox extension) ----------

/** One HTTP exchange of the sandbox's switch with an institution's webhook, as recorded (secrets redacted, card numbers masked). */
export const WebhookExchange = Type.Object({
  id: Type.String({ description: 'wx_…' }),
  /** When the request left the switch. */
  at: DateTime(),
  /** The transaction the message belongs to (the advice's, the reversal's, …). */
  transactionId: Nullable(Type.String()),
  /** The original of a lifecycle message (increment, completion, refund, reversal). */
  originalId: Nullable(Type.String()),
  cardId: Nullable(Type.String()),
  /** authorization, financial, balance, increment, completion, refund, reversal, advice, reversal-repeat, … */
  kind: Type.String(),
  mti: Type.String(),
  /** 1 for the first delivery; advices and reversal repeats count up. */
  attempt: Type.Integer({ minimum: 1 }),
  /** The exchange this one replays (webhook replay). */
  replayOf: Nullable(Type.String()),
  signatureScheme: Type.String(),
  request: Type.Object({
    method: Type.String(),
    /** URL userinfo redacted. */
    url: Type.String(),
    /** Secret headers (signature, the program's secret header) redacted. */
    headers: Type.Record(Type.String(), Type.String()),
    /** The message as sent, card number masked, card secrets redacted. */
    body: Type.Unknown(),
  }),
  /** Absent when nothing came back (timeout, unreachable, reset). */
  response: Nullable(Type.Object({
    status: Type.Integer(),
    headers: Type.Record(Type.String(), Type.String()),
    /** The reply's text, bounded, card numbers masked. */
    body: Type.String(),
    truncated: Type.Boolean(),
  })),
  latencyMs: Type.Integer({ minimum: 0 }),
  /** accepted: a valid answer the network took; refused: an answer the network could not take; no-answer: nothing usable came back. */
  verdict: Type.Union([Type.Literal('accepted'), Type.Literal('refused'), Type.Literal('no-answer')]),
  /** Why it was refused or gave no answer. */
  reason: Nullable(Type.String()),
  /** Field 39 of an accepted reply. */
  responseCode: Nullable(Type.String()),
  /** Faults injected on this exchange (webhook faults). */
  faults: Type.Array(Type.String()),
});
export type WebhookExchange = Static<typeof WebhookExchange>;

/** GET /sandbox/webhook-exchanges: newest first. */
export const ListWebhookExchangesQuery = Type.Object({
  transactionId: Type.Optional(Type.String({ maxLength: LIST_BOUNDS.maxText, description: 'the exchanges of this transaction and of the messages linked to it' })),
  failed: Type.Optional(Type.Boolean({ description: 'only those the network did not take: refused, or no answer' })),
  since: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'only those sent at or after this time' })),
  ...PageQuery,
}, { additionalProperties: false });

/** POST /sandbox/webhook-exchanges/{id}/replay. */
export const ReplayWebhookExchangeBody = Type.Object({
  to: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'another http(s) URL than the program\'s webhook: needs read:card_program, gets no secret header; on this machine unless the sandbox is published' })),
  keepTimestamp: Type.Optional(Type.Boolean({ description: "sign with the original's timestamp rather than now (tests a handler's replay protection)" })),
}, { additionalProperties: false });

/** POST /sandbox/card-pool: the cards of a load run, in the order given. */
export const CardPoolBody = Type.Object({
  cardIds: Type.Array(Type.String({ minLength: 1, maxLength: LIST_BOUNDS.maxText }), { minItems: 1, maxItems: 10_000 }),
}, { additionalProperties: false });

/** A test card as the switch puts it into a message (the clear PAN; track 2 is made of these). */
export const PoolCard = Type.Object({
  id: Type.String(),
  pan: Type.String(),
  expiry: Type.String({ description: 'YYMM, field 14' }),
  serviceCode: Type.String(),
  account: Type.String({ description: 'field 102' }),
  cardProgram: Type.String({ description: "the card's program" }),
});

/** The card pool and the webhook settings of the cards' programs, without their secrets. */
export const CardPool = Type.Object({
  cards: Type.Array(PoolCard),
  programs: Type.Array(Type.Object({
    id: Type.String(),
    webhook: Type.Object({ url: Type.String(), type: Type.String(), header: Type.String() }),
  })),
});
export type CardPool = Static<typeof CardPool>;
