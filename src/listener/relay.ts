// --forward-to of `webhook listen`: a message relayed to the operator's own handler, and the
// handler's reply judged by the sandbox's own rules (reply.ts) before the listener passes it on.
import type { IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import { loadUndici } from '../api/client.js';
import type { SwitchMessage } from '../iso8583/message.js';
import { judgeHttpReply, MAX_REPLY_BYTES } from '../webhook-protocol/reply.js';

/** What the handler did: answered validly, timed out, could not be reached, error status, invalid reply. */
export type ForwardOutcome = 'answered' | 'timeout' | 'unreachable' | 'http-error' | 'invalid-reply';

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

export type Relayed =
  | { outcome: 'answered'; handlerStatus: number; text: string; contentType?: string; reply: SwitchMessage; error?: undefined }
  | { outcome: Exclude<ForwardOutcome, 'answered'>; handlerStatus?: number; error: string };

/** A reason of the protocol's reply rule, said of the operator's handler. */
function inHandlerWords(reason: string): string {
  return reason.replace(/^the webhook reply's /, "your handler's reply: its ").replace(/^the webhook reply/, "your handler's reply").replace(/^the webhook/, 'your handler');
}

/**
 * Posts the message to the handler, over the dispatcher that connects only to the address the
 * egress rule checked (connectToLoopback), and judges its reply by the sandbox's rules.
 */
export async function relay(url: string, dispatcher: Dispatcher, req: IncomingMessage, body: string, message: SwitchMessage, timeoutMs: number): Promise<Relayed> {
  const { request } = await loadUndici();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const timedOut = `your handler did not answer within ${timeoutMs / 1000} s (timeout)`;
  let handlerStatus: number | undefined;
  try {
    const res = await request(url, { method: 'POST', headers, body, dispatcher, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: controller.signal });
    handlerStatus = res.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    let overLimit = false;
    for await (const chunk of res.body) {
      size += chunk.length;
      if (size > MAX_REPLY_BYTES) {
        overLimit = true;
        controller.abort();
        break;
      }
      chunks.push(Buffer.from(chunk));
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const type = res.headers['content-type'];
    const contentType = Array.isArray(type) ? type[0] : type;
    // The sandbox's own rule for a reply (reply.ts), in the words of a handler.
    const verdict = judgeHttpReply(message, { status: handlerStatus, contentType, body: overLimit ? undefined : text });
    if (!verdict.ok) return { outcome: verdict.cause, handlerStatus, error: inHandlerWords(verdict.reason) };
    return { outcome: 'answered', handlerStatus, text, contentType, reply: verdict.reply };
  } catch (error) {
    const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = err.code ?? err.cause?.code;
    if (controller.signal.aborted || err.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return { outcome: 'timeout', handlerStatus, error: timedOut };
    }
    if (handlerStatus !== undefined) return { outcome: 'invalid-reply', handlerStatus, error: `your handler's reply broke off: ${code ?? err.message}` };
    return { outcome: 'unreachable', error: `could not reach your handler at ${url}: ${code ?? err.message}` };
  } finally {
    clearTimeout(timer);
  }
}
