// The webhook protocol's reply rules (the signature scheme is signature.ts; docs/switch.md
// states both). Response messages: how one is built from its request (the sandbox's stub,
// `webhook listen`), and what a reply must be to count as the answer to a request (the sandbox
// in forward mode, `webhook listen --forward-to` judging the operator's handler, and the
// processor of `simulate load --export artillery`, which bundles this module, by the same rules).
// Pure; node-free, so the CLI may import it cheaply.
import { isApproved, isValidResponseCode, responseMti } from '../iso8583/codes.js';
import { SENSITIVE_FIELDS } from '../core/card-secret-fields.js';
import { fieldName } from '../iso8583/fields.js';
import type { SwitchMessage } from '../iso8583/message.js';

/** Request fields a response never echoes: card secrets and expiry. */
export const NOT_ECHOED: ReadonlySet<string> = new Set([...SENSITIVE_FIELDS, '14']);

/**
 * Request fields a reply must carry unchanged when the request has them: PAN, processing code,
 * amount, transmission date-time, STAN, RRN, terminal, merchant, currency, original data
 * elements. They are what ties the answer to its request (and what the sandbox stores).
 */
export const MUST_ECHO: readonly string[] = ['2', '3', '4', '7', '11', '37', '41', '42', '49', '90'];

/** The sandbox's deadline for a webhook exchange, ms (a slow body included). */
export const WEBHOOK_TIMEOUT_MS = 5_000;

/** The largest reply read, bytes; past it the exchange is aborted. */
export const MAX_REPLY_BYTES = 64 * 1024;

/**
 * A repeat: the network resending a message whose answer it did not see (ISO 8583: the last
 * digit of the MTI, the message's origin, odd): 0101, 0121, 0221, 0421.
 */
export function isRepeatMti(mti: string): boolean {
  return /^\d{3}[13]$/.test(mti);
}

/** The repeat of a message: 0100 → 0101, 0420 → 0421 (a repeat is its own repeat). */
export function repeatMtiOf(mti: string): string {
  return /^\d{3}[02]$/.test(mti) ? `${mti.slice(0, 3)}${Number(mti[3]) + 1}` : mti;
}

/** The message a repeat repeats: 0101 → 0100, 0421 → 0420; any other MTI is its own. */
export function firstMtiOf(mti: string): string {
  return isRepeatMti(mti) ? `${mti.slice(0, 3)}${Number(mti[3]) - 1}` : mti;
}

/**
 * The response MTIs that answer a request, the ISO 8583 one first: the response of the message
 * it is or repeats (0100 and 0101 → 0110, 0421 → 0430, 0121 → 0130); for a repeat, its own
 * response (0111, 0431) too, which the sandbox has always accepted.
 */
export function answerMtisOf(mti: string): string[] {
  const iso = responseMti(firstMtiOf(mti));
  const own = responseMti(mti);
  return own === iso ? [iso] : [iso, own];
}

/** A response message: the request echoed (without NOT_ECHOED), its ISO response MTI (answerMtisOf), 38 when approved, 39. */
export function buildResponse(request: SwitchMessage, code: string, approvalCode?: string): SwitchMessage {
  const response: SwitchMessage = {};
  for (const [field, value] of Object.entries(request)) if (!NOT_ECHOED.has(field)) response[field] = value;
  response['0'] = answerMtisOf(request['0'] ?? '')[0]!;
  if (isApproved(code) && approvalCode) response['38'] = approvalCode;
  response['39'] = code;
  return response;
}

/** Code 10, approved for part of the amount: the reply's field 4 is what was approved. */
export const PARTIAL_APPROVAL_CODE = '10';

/**
 * Whether two answers to one message (a duplicate, a repeat) are the same answer: the code, the
 * approval code, and the amount of a partial approval (any other answer echoes the amount asked).
 */
export function sameAnswer(first: Partial<SwitchMessage>, second: Partial<SwitchMessage>): boolean {
  return answerDifferences(first, second).length === 0;
}

/** The fields in which two answers to one message differ (sameAnswer's comparison): 39, 38, then 4 of a partial approval. */
export function answerDifferences(first: Partial<SwitchMessage>, second: Partial<SwitchMessage>): string[] {
  const differs = (field: string) => (first[field] ?? '') !== (second[field] ?? '');
  const partial = first['39'] === PARTIAL_APPROVAL_CODE || second['39'] === PARTIAL_APPROVAL_CODE;
  return ['39', '38', ...(partial ? ['4'] : [])].filter(differs);
}

function isPartialAmount(got: string, sent: string): boolean {
  return /^\d{12}$/.test(got) && BigInt(got) > 0n && BigInt(got) <= BigInt(sent);
}

/** Whether a Content-Type header names JSON (application/json, application/…+json, any parameters). */
export function isJsonContentType(type: string | undefined): boolean {
  return /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type ?? '');
}

export type ReplyVerdict = { ok: true; reply: SwitchMessage } | { ok: false; reason: string };

/** A value of a reply as shown in a reason: short, and never a card number. */
function shown(field: string, value: string): string {
  if (field === '2') return '';
  const text = value.length > 32 ? `${value.slice(0, 32)}…` : value;
  return ` (${JSON.stringify(text)})`;
}

/**
 * A reply answers `request` when it is a JSON object of field strings (numbers are turned into
 * text, except for 39), with a two-character "39", a response MTI of the request (answerMtisOf:
 * 0100 → 0110; 0101 → 0110 or 0111), and every MUST_ECHO field of the request unchanged (except field 4 of a partial
 * approval, code 10: the approved amount, more than 0 and at most the request's). Fields that are not numbers are
 * ignored. The reason names the first problem found and never shows a PAN.
 */
export function validateReply(request: SwitchMessage, reply: unknown): ReplyVerdict {
  if (!reply || typeof reply !== 'object' || Array.isArray(reply)) return { ok: false, reason: 'the webhook reply is not a JSON object of message fields' };
  const out: SwitchMessage = {};
  for (const [key, value] of Object.entries(reply as Record<string, unknown>)) {
    if (!/^\d{1,3}$/.test(key)) continue;
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' && Number.isFinite(value) && key !== '39') out[key] = String(value);
  }
  if (!isValidResponseCode(out['39'])) return { ok: false, reason: 'the webhook reply has no valid field 39 (a two-character response code string)' };
  const expectedMtis = answerMtisOf(request['0'] ?? '');
  const expected = expectedMtis.join(' or ');
  if (out['0'] === undefined) return { ok: false, reason: `the webhook reply has no MTI (field 0); expected ${expected}` };
  if (!expectedMtis.includes(out['0'])) return { ok: false, reason: `the webhook reply's MTI is ${JSON.stringify(out['0'].slice(0, 8))}, expected ${expected}` };
  for (const field of MUST_ECHO) {
    const sent = request[field];
    if (sent === undefined) continue;
    const got = out[field];
    const name = `field ${field} [${fieldName(field)}]`;
    if (got === undefined) return { ok: false, reason: `the webhook reply does not echo ${name}` };
    if (field === '4' && out['39'] === PARTIAL_APPROVAL_CODE) {
      if (!isPartialAmount(got, sent)) return { ok: false, reason: `the webhook reply's ${name} is not a partial amount: 12 digits, more than 0 and at most the request's` };
      continue;
    }
    if (got !== sent) return { ok: false, reason: `the webhook reply's ${name} differs from the request's${shown(field, got)}` };
  }
  return { ok: true, reply: out };
}

/** Why an HTTP reply is not the answer to its request: an error status, or a reply that is not a valid answer. */
export type ReplyFailure = 'http-error' | 'invalid-reply';

export type HttpReplyVerdict = { ok: true; reply: SwitchMessage } | { ok: false; cause: ReplyFailure; reason: string };

/** An HTTP reply as read: `body` undefined when it was longer than `maxBytes` (reading stopped there). */
export interface HttpReply {
  status: number;
  contentType: string | undefined;
  body: string | undefined;
}

/**
 * The whole rule for an HTTP reply to a webhook message, in order: at most `maxBytes`, a 2xx
 * status, a JSON content type, a JSON body, and a reply that answers `request` (validateReply).
 */
export function judgeHttpReply(request: SwitchMessage, reply: HttpReply, maxBytes = MAX_REPLY_BYTES): HttpReplyVerdict {
  const { status, contentType, body } = reply;
  if (body === undefined) return { ok: false, cause: 'invalid-reply', reason: `the webhook reply is over the ${maxBytes}-byte limit` };
  if (status < 200 || status >= 300) return { ok: false, cause: 'http-error', reason: `the webhook answered HTTP ${status}` };
  if (!isJsonContentType(contentType)) {
    return { ok: false, cause: 'invalid-reply', reason: `the webhook reply's content type is ${contentType ? JSON.stringify(contentType.slice(0, 60)) : 'missing'}, expected application/json` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, cause: 'invalid-reply', reason: 'the webhook reply is not JSON' };
  }
  const verdict = validateReply(request, parsed);
  return verdict.ok ? verdict : { ok: false, cause: 'invalid-reply', reason: verdict.reason };
}
