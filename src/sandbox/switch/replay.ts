// `webhook replay`: a recorded request sent again as it was, to the program's webhook (or another
// URL), signed afresh with the program's current secret and scheme (Standard Webhooks: the
// message's own webhook-id, as on every delivery of it), or with the original timestamp to test
// a handler's replay protection. Recorded as an exchange of its own, linked to
// the first (`replayOf`). An inspection tool: whatever the webhook answers, no transaction and no
// amount changes.
import type { WebhookExchange } from '../../api/schemas.js';
import { isLoopbackHost } from '../../core/loopback.js';
import { STANDARD_HEADERS } from '../../webhook-protocol/signature.js';
import { DomainError } from '../errors.js';
import type { SwitchDeps } from './deps.js';
import { recordCall } from './exchange-record.js';
import { cardAndProgramOf } from './plan.js';
import { callWebhook, messageIdOf, type WebhookOutcome, type WireCapture } from './webhook.js';

export interface ReplayRequest {
  /** Another URL than the program's webhook (http or https; loopback unless remote callers are allowed). */
  to?: string;
  /** Sign with the original's timestamp rather than now. */
  keepTimestamp?: boolean;
}

export async function replayExchange(deps: SwitchDeps, institutionId: string, id: string, body: ReplayRequest, allowRemote: boolean): Promise<WebhookExchange> {
  const now = deps.now;
  const entry = deps.exchanges?.get(institutionId, id);
  if (!entry) throw new DomainError('not-found', `webhook exchange ${id} not found`);
  const original = entry.record;
  const stored = original.transactionId ? deps.store.get(institutionId, original.transactionId) : undefined;
  const config = stored ? cardAndProgramOf(deps.store, institutionId, stored.record).program?.webHookConfig : undefined;
  if (!config) throw new DomainError('conflict', `the card program of webhook exchange ${id} is gone; nothing to sign the replay with`);
  const url = body.to === undefined ? config.url : replayUrl(body.to, allowRemote);
  const nowSeconds = body.keepTimestamp ? originalTimestamp(original) : undefined;
  const wire: WireCapture = {};
  const at = now();
  const started = performance.now();
  const options = { ...deps.webhook, wire, ...(original.transactionId ? { messageId: messageIdOf(original.transactionId) } : {}), ...(nowSeconds !== undefined ? { nowSeconds } : {}) };
  const outcome: WebhookOutcome = await (deps.callWebhook ?? callWebhook)({ ...config, url }, entry.message, options)
    .catch((error: Error) => ({ ok: false as const, reason: `the webhook call failed: ${error.message}` }));
  const subject = {
    institutionId, transactionId: original.transactionId ?? '', originalId: original.originalId, cardId: original.cardId,
    kind: original.kind, attempt: original.attempt, replayOf: original.id,
  };
  return recordCall(deps.exchanges, { subject, config: { ...config, url }, message: entry.message, wire, outcome, at, latencyMs: performance.now() - started, faults: [] })!;
}

/** `to` as an http(s) URL, on this machine unless the sandbox answers remote callers. */
function replayUrl(to: string, allowRemote: boolean): string {
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    throw invalidTo(`"to" is not a URL: ${JSON.stringify(to.slice(0, 80))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidTo('"to" must be an http or https URL');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowRemote && !isLoopbackHost(host)) throw invalidTo(`"to" must be on this machine (localhost, 127.0.0.1, ::1), not ${host}`);
  return url.href;
}

const invalidTo = (message: string) => new DomainError('invalid', message, [{ field: 'to', message }]);

/** The unix seconds the original was signed with (t= of X-Webhook-Signature, or webhook-timestamp). */
function originalTimestamp(record: WebhookExchange): number {
  const headers = record.request.headers;
  const stamp = headers[STANDARD_HEADERS.timestamp] ?? /(?:^|,)\s*t=(\d+)/.exec(headers['x-webhook-signature'] ?? '')?.[1];
  if (stamp && /^\d+$/.test(stamp)) return Number(stamp);
  return Math.floor(Date.parse(record.at) / 1000);
}
