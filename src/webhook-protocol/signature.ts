// X-Webhook-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`, the
// Stripe-style scheme the sandbox uses for webhooks. Shared by the sandbox (signing) and
// `cardctl webhook listen` (verifying); node:crypto only, so both may import it cheaply.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-webhook-signature';
/** Signatures older (or newer) than this are refused by the verifier: replay protection. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function computeSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

export function signatureHeader(secret: string, body: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  return `t=${nowSeconds},v1=${computeSignature(secret, nowSeconds, body)}`;
}

export type SignatureVerdict =
  | { ok: true; timestamp: number }
  | { ok: false; reason: string };

/** Checks a header against the body: well-formed, fresh, and one v1 matching in constant time. */
export function verifySignature(
  header: string | string[] | undefined,
  secret: string,
  body: string,
  options: { nowSeconds?: number; toleranceSeconds?: number } = {},
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
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - timestamp) > tolerance) return { ok: false, reason: `signature timestamp is ${now - timestamp} s off (tolerance ${tolerance} s)` };
  const expected = Buffer.from(computeSignature(secret, timestamp, body), 'hex');
  for (const candidate of candidates) {
    if (!/^[0-9a-f]+$/i.test(candidate)) continue;
    const given = Buffer.from(candidate, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, timestamp };
  }
  return { ok: false, reason: 'signature does not match (wrong secret, or the body was changed)' };
}
