// The call to the institution's webhook in forward mode: POST the request message as JSON,
// signed in the program's scheme (webHookConfig.type: X-Webhook-Signature, or the Standard
// Webhooks headers; during a secret rotation with both secrets) and, when webHookConfig.header
// is set, with the current secret in that header; signed wrongly on purpose under the
// `signature` webhook fault (signature-faults.ts). The institution is not trusted: 5 s for the whole exchange (a slow drip included),
// at most MAX_REPLY_BYTES read (past that, or a Content-Length over it, the request is
// aborted), then judged by the protocol's rule for a reply (judgeHttpReply, reply.ts): a 2xx
// with a JSON content type and a reply that answers this request.
import { request, type Dispatcher } from 'undici';
import type { WebhookConfig } from '../../api/schemas.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { judgeHttpReply, MAX_REPLY_BYTES, WEBHOOK_TIMEOUT_MS } from '../../webhook-protocol/reply.js';
import { schemeOfWebhookType } from '../../webhook-protocol/signature.js';
import { signMessage, type SignatureFault } from '../../webhook-protocol/signature-faults.js';
import { redactUrlCredentials } from '../../core/redact.js';

export { WEBHOOK_TIMEOUT_MS };

/**
 * Why an exchange gave no usable answer, in a word: what a stand-in advice carries in field 44
 * (docs/switch.md). `reset` and `reply-lost` come from the faults on the webhook path.
 */
export type NoAnswerCause = 'timeout' | 'unreachable' | 'http-error' | 'invalid-reply' | 'no-url' | 'reset' | 'reply-lost';

export type WebhookOutcome =
  | { ok: true; reply: SwitchMessage; status: number }
  | { ok: false; reason: string; cause?: NoAnswerCause; status?: number; reply?: unknown; timedOut?: true };

/** The cause of a failed outcome (an outcome made elsewhere may not say: then by its timeout flag). */
export function causeOf(outcome: Extract<WebhookOutcome, { ok: false }>): NoAnswerCause {
  return outcome.cause ?? (outcome.timedOut ? 'timeout' : 'invalid-reply');
}

export interface WebhookCallOptions {
  timeoutMs?: number;
  /** Largest reply read, bytes (default MAX_REPLY_BYTES). */
  maxReplyBytes?: number;
  dispatcher?: Dispatcher;
  nowSeconds?: number;
  /** Aborts the call (the sandbox closing); it then ends as a timeout. */
  signal?: AbortSignal;
  /**
   * The Standard Webhooks `webhook-id`: one per message, the same on every delivery of it (a
   * duplicate, a repeat, an advice sent again); a fresh one when absent.
   */
  messageId?: string;
  /** Sign wrongly this way (the `signature` webhook fault). */
  signatureFault?: SignatureFault;
  /** Filled in as the call goes: the request as sent, then the reply as read (the exchange log records them). */
  wire?: WireCapture;
}

/** What went over the wire, in the clear: whoever records it redacts it. */
export interface WireCapture {
  request?: { method: string; url: string; headers: Record<string, string>; body: string };
  response?: { status: number; headers: Record<string, string | string[] | undefined>; body: string; truncated: boolean };
}

/** The `webhook-id` of every delivery of a transaction's message: its id, so the same on a duplicate, a repeat, an advice sent again. */
export function messageIdOf(transactionId: string): string {
  return `msg_${transactionId}`;
}

type SigningConfig = Pick<WebhookConfig, 'secret' | 'previousSecret' | 'previousSecretUntil'>;

/** The secrets a message is signed with at `nowMs`: the current one, and the replaced one while its rotation window is open. */
export function signingSecrets(config: SigningConfig, nowMs: number): string[] {
  const { secret, previousSecret, previousSecretUntil } = config;
  return previousSecret !== undefined && previousSecretUntil !== undefined && Date.parse(previousSecretUntil) > nowMs ? [secret, previousSecret] : [secret];
}

export async function callWebhook(config: Pick<WebhookConfig, 'url' | 'header' | 'secret'> & Partial<Pick<WebhookConfig, 'type' | 'previousSecret' | 'previousSecretUntil'>>, message: SwitchMessage, options: WebhookCallOptions = {}): Promise<WebhookOutcome> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const maxBytes = options.maxReplyBytes ?? MAX_REPLY_BYTES;
  let url: URL;
  try {
    url = new URL(config.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    return { ok: false, cause: 'no-url', reason: `the card program's webhook URL "${redactUrlCredentials(config.url)}" is not a valid http(s) URL` };
  }
  const secret = config.secret ?? '';
  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const secrets = signingSecrets({ ...config, secret }, nowSeconds * 1000);
  // A tampered body is answered as what it says (the handler should have refused it).
  const signed = signMessage(schemeOfWebhookType(config.type), secrets, message, options.signatureFault, { nowSeconds, messageId: options.messageId });
  const { body, message: sent } = signed;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'cardctl-sandbox-switch',
    ...signed.headers,
  };
  if (config.header && config.header.trim() !== '' && signed.secretHeader !== undefined) headers[config.header.trim().toLowerCase()] = signed.secretHeader;

  if (options.wire) options.wire.request = { method: 'POST', url: url.href, headers, body };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const stop = () => controller.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
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
    const status = res.statusCode;
    const declared = Number(res.headers['content-length']);
    if (options.wire) options.wire.response = { status, headers: res.headers, body: '', truncated: false };
    if (Number.isFinite(declared) && declared > maxBytes) {
      if (options.wire?.response) options.wire.response.truncated = true;
      controller.abort();
      return { ok: false, status, cause: 'invalid-reply', reason: `the webhook reply is ${declared} bytes, over the ${maxBytes}-byte limit` };
    }
    const text = await readAtMost(res.body, maxBytes);
    if (options.wire?.response) Object.assign(options.wire.response, { body: text ?? '', truncated: text === undefined });
    if (text === undefined) controller.abort();
    const type = res.headers['content-type'];
    const verdict = judgeHttpReply(sent, { status, contentType: Array.isArray(type) ? type[0] : type, body: text }, maxBytes);
    return verdict.ok ? { ok: true, status, reply: verdict.reply } : { ok: false, status, cause: verdict.cause, reason: verdict.reason };
  } catch (error) {
    if (controller.signal.aborted) return { ok: false, timedOut: true, cause: 'timeout', reason: `no reply from the webhook within ${timeoutMs / 1000} s (timeout)` };
    const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = err.code ?? err.cause?.code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return { ok: false, timedOut: true, cause: 'timeout', reason: `no reply from the webhook within ${timeoutMs / 1000} s (timeout)` };
    }
    // Refused or not found: nothing was sent. Anything else came after the connection was made.
    if (code === undefined || NOT_REACHED.has(code)) return { ok: false, cause: 'unreachable', reason: `the webhook could not be reached: ${code ?? err.message}` };
    return { ok: false, cause: 'unreachable', reason: `the webhook closed the connection after the request, without a reply (${code})` };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}

/** Errors of a connection that was never made (the rest come after it: the webhook closed it, reset it). */
const NOT_REACHED: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_INVALID_URL']);

/** The body as text, or undefined once it passes `max` bytes (reading stops there). */
async function readAtMost(body: AsyncIterable<Buffer | Uint8Array>, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) return undefined;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}
