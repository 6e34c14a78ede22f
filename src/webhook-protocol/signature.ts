// How the sandbox signs what it sends to a webhook, in one of two schemes, and how a receiver
// (`cardctl webhook listen`) checks it. Shared by both sides; node:crypto only, so both may import
// it cheaply. During a secret rotation the sandbox signs with both secrets (the new one first):
// two v1 entries in either scheme, and a receiver accepts any one that matches.
// - `cardctl`: X-Webhook-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`,
//   the Stripe-style scheme, the default.
// - `standard-webhooks`: the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
//   `webhook-signature: v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>`), the key
//   being the base64 after a `whsec_` secret's prefix, so the official libraries verify it.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_SCHEMES = ['cardctl', 'standard-webhooks'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export const SIGNATURE_HEADER = 'x-webhook-signature';
export const STANDARD_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;
/** Signatures older (or newer) than this are refused by the verifier: replay protection. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
const STANDARD_SECRET_PREFIX = 'whsec_';

/**
 * A card program's `webHookConfig.type` (a sandbox extension of the reference's free string):
 * `http`, the seeded default, signs in the cardctl scheme; `standard-webhooks` in that one.
 */
export const WEBHOOK_TYPES = ['http', 'standard-webhooks'] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

/** The scheme a card program's webhook type signs in (an unknown type, as stored before types were checked: cardctl). */
export function schemeOfWebhookType(type: string | undefined): SignatureScheme {
  return type === 'standard-webhooks' ? 'standard-webhooks' : 'cardctl';
}

/** The webhook type that signs in `scheme`. */
export function webhookTypeOfScheme(scheme: SignatureScheme): WebhookType {
  return scheme === 'standard-webhooks' ? 'standard-webhooks' : 'http';
}

/** Bytes of key a Standard Webhooks secret carries (the specification's bounds). */
export const STANDARD_SECRET_BYTES = { min: 24, max: 64 } as const;

/** Whether `secret` is a Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 bytes. */
export function isStandardSecret(secret: string): boolean {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return false;
  const text = secret.slice(STANDARD_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return false;
  const bytes = Buffer.from(text, 'base64').length;
  return bytes >= STANDARD_SECRET_BYTES.min && bytes <= STANDARD_SECRET_BYTES.max;
}

/** A fresh Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newStandardSecret(): string {
  return `${STANDARD_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function computeSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

export function signatureHeader(secret: string, body: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  return `t=${nowSeconds},v1=${computeSignature(secret, nowSeconds, body)}`;
}

/** The HMAC key of a Standard Webhooks secret: the bytes of the base64 after `whsec_` (the whole text when it is not base64). */
export function standardKey(secret: string): Buffer {
  const text = secret.startsWith(STANDARD_SECRET_PREFIX) ? secret.slice(STANDARD_SECRET_PREFIX.length) : secret;
  return /^[A-Za-z0-9+/]+={0,2}$/.test(text) && text.length % 4 === 0 ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
}

export function computeStandardSignature(secret: string, messageId: string, timestamp: number, body: string): string {
  return createHmac('sha256', standardKey(secret)).update(`${messageId}.${timestamp}.${body}`, 'utf8').digest('base64');
}

export interface SignOptions {
  nowSeconds?: number;
  /** `webhook-id` (Standard Webhooks); a fresh one when absent. */
  messageId?: string;
}

/**
 * The headers that sign `body` with `secret` in `scheme`; given several secrets (a rotation),
 * one v1 signature for each, in their order.
 */
export function signedHeaders(scheme: SignatureScheme, secret: string | readonly string[], body: string, options: SignOptions = {}): Record<string, string> {
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (scheme === 'cardctl') {
    return { [SIGNATURE_HEADER]: [`t=${now}`, ...secrets.map((one) => `v1=${computeSignature(one, now, body)}`)].join(',') };
  }
  const id = options.messageId ?? `msg_${randomUUID()}`;
  return {
    [STANDARD_HEADERS.id]: id,
    [STANDARD_HEADERS.timestamp]: String(now),
    [STANDARD_HEADERS.signature]: secrets.map((one) => `v1,${computeStandardSignature(one, id, now, body)}`).join(' '),
  };
}

export type SignatureVerdict =
  | { ok: true; timestamp: number }
  | { ok: false; reason: string };

interface VerifyOptions {
  nowSeconds?: number;
  toleranceSeconds?: number;
}

/** Checks a header against the body: well-formed, fresh, and one v1 matching in constant time. */
export function verifySignature(
  header: string | string[] | undefined,
  secret: string,
  body: string,
  options: VerifyOptions = {},
): SignatureVerdict {
  const text = Array.isArray(header) ? header[0] : header;
  if (!text) return { ok: false, reason: 'no X-Webhook-Signature header' };
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of text.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && value && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && value) candidates.push(value);
  }
  if (timestamp === undefined || candidates.length === 0) return { ok: false, reason: 'malformed X-Webhook-Signature (expected t=…,v1=…)' };
  const stale = staleness(timestamp, options);
  if (stale) return stale;
  const expected = Buffer.from(computeSignature(secret, timestamp, body), 'hex');
  for (const candidate of candidates) {
    if (!/^[0-9a-f]+$/i.test(candidate)) continue;
    if (sameBytes(Buffer.from(candidate, 'hex'), expected)) return { ok: true, timestamp };
  }
  return { ok: false, reason: 'signature does not match (wrong secret, or the body was changed)' };
}

type HeaderBag = Record<string, string | string[] | undefined>;

/** Checks the Standard Webhooks headers against the body (any one of the space-separated v1 signatures). */
export function verifyStandardSignature(headers: HeaderBag, secret: string, body: string, options: VerifyOptions = {}): SignatureVerdict {
  const one = (name: string) => { const v = headers[name]; return Array.isArray(v) ? v[0] : v; };
  const id = one(STANDARD_HEADERS.id);
  const stamp = one(STANDARD_HEADERS.timestamp);
  const signature = one(STANDARD_HEADERS.signature);
  if (!id || !stamp || !signature) return { ok: false, reason: 'no webhook-id, webhook-timestamp and webhook-signature headers' };
  if (!/^\d+$/.test(stamp)) return { ok: false, reason: 'malformed webhook-timestamp (expected unix seconds)' };
  const timestamp = Number(stamp);
  const stale = staleness(timestamp, options);
  if (stale) return stale;
  const expected = Buffer.from(computeStandardSignature(secret, id, timestamp, body), 'base64');
  for (const part of signature.split(' ')) {
    const [version, value] = part.split(',', 2);
    if (version === 'v1' && value && sameBytes(Buffer.from(value, 'base64'), expected)) return { ok: true, timestamp };
  }
  return { ok: false, reason: 'signature does not match (wrong secret, or the body was changed)' };
}

/** The verdict on a request's headers in the given scheme. */
export function verifyRequest(scheme: SignatureScheme, headers: HeaderBag, secret: string, body: string, options: VerifyOptions = {}): SignatureVerdict {
  return scheme === 'cardctl' ? verifySignature(headers[SIGNATURE_HEADER], secret, body, options) : verifyStandardSignature(headers, secret, body, options);
}

function staleness(timestamp: number, options: VerifyOptions): SignatureVerdict | undefined {
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  return Math.abs(now - timestamp) > tolerance ? { ok: false, reason: `signature timestamp is ${now - timestamp} s off (tolerance ${tolerance} s)` } : undefined;
}

function sameBytes(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}
