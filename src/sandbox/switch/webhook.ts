// The call to the institution's webhook in forward mode: POST the request message as JSON,
// signed (X-Webhook-Signature) and, when webHookConfig.header is set, with the secret in that
// header; 5 s for the whole exchange; the reply must be a response message with a valid "39".
import { request, type Dispatcher } from 'undici';
import type { WebhookConfig } from '../../api/schemas.js';
import { isValidResponseCode, responseMti } from '../../iso8583/codes.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';

export const WEBHOOK_TIMEOUT_MS = 5_000;

export type WebhookOutcome =
  | { ok: true; reply: SwitchMessage; status: number }
  | { ok: false; reason: string; status?: number; reply?: unknown };

export interface WebhookCallOptions {
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  nowSeconds?: number;
}

export async function callWebhook(config: Pick<WebhookConfig, 'url' | 'header' | 'secret'>, message: SwitchMessage, options: WebhookCallOptions = {}): Promise<WebhookOutcome> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  let url: URL;
  try {
    url = new URL(config.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    return { ok: false, reason: `the card program's webhook URL "${config.url}" is not a valid http(s) URL` };
  }
  const body = JSON.stringify(message);
  const secret = config.secret ?? '';
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'cardctl-sandbox-switch',
    [SIGNATURE_HEADER]: signatureHeader(secret, body, options.nowSeconds),
  };
  if (config.header && config.header.trim() !== '') headers[config.header.trim().toLowerCase()] = secret;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await request(url, {
      method: 'POST',
      headers,
      body,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) {
      return { ok: false, status: res.statusCode, reason: `the webhook answered HTTP ${res.statusCode}` };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { ok: false, status: res.statusCode, reason: 'the webhook reply is not JSON' };
    }
    const verdict = validateReply(message, parsed);
    return verdict.ok ? { ok: true, status: res.statusCode, reply: verdict.reply } : { ok: false, status: res.statusCode, reason: verdict.reason, reply: parsed };
  } catch (error) {
    if (controller.signal.aborted) return { ok: false, reason: `no reply from the webhook within ${timeoutMs / 1000} s (timeout)` };
    const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = err.code ?? err.cause?.code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return { ok: false, reason: `no reply from the webhook within ${timeoutMs / 1000} s (timeout)` };
    }
    return { ok: false, reason: `the webhook could not be reached: ${code ?? err.message}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A reply is a response message: a JSON object of field strings (numbers are accepted and
 * turned into text), with a two-character "39"; an MTI, when present, must be the response
 * MTI of the request (0100 → 0110). A missing MTI is filled in.
 */
export function validateReply(request: SwitchMessage, reply: unknown): { ok: true; reply: SwitchMessage } | { ok: false; reason: string } {
  if (!reply || typeof reply !== 'object' || Array.isArray(reply)) return { ok: false, reason: 'the webhook reply is not a JSON object of message fields' };
  const out: SwitchMessage = {};
  for (const [key, value] of Object.entries(reply as Record<string, unknown>)) {
    if (!/^\d{1,3}$/.test(key)) continue;
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' && key !== '39') out[key] = String(value);
  }
  if (!isValidResponseCode(out['39'])) return { ok: false, reason: 'the webhook reply has no valid field 39 (a two-character response code string)' };
  const expectedMti = responseMti(request['0'] ?? '');
  if (out['0'] === undefined) out['0'] = expectedMti;
  else if (out['0'] !== expectedMti) return { ok: false, reason: `the webhook reply's MTI is ${out['0']}, expected ${expectedMti}` };
  return { ok: true, reply: out };
}
