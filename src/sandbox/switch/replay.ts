// `webhook replay`: a recorded request sent again as it was, to the program's webhook (or another
// URL), signed afresh with the program's current secret and scheme (Standard Webhooks: the
// message's own webhook-id, as on every delivery of it), or with the original timestamp to test
// a handler's replay protection. Recorded as an exchange of its own, linked to
// the first (`replayOf`). An inspection tool: whatever the webhook answers, no transaction and no
// amount changes. Another URL than the program's (`to`) needs REPLAY_ELSEWHERE_SCOPE, gets no
// secret header, and is on this machine (the egress rule, src/core/loopback.ts, connected by the
// checked address) unless the sandbox was published.
import type { Dispatcher } from 'undici';
import type { WebhookExchange } from '../../api/schemas.js';
import { connectToLoopback } from '../../api/undici.js';
import { NotLoopbackError } from '../../core/loopback.js';
import { STANDARD_HEADERS } from '../../webhook-protocol/signature.js';
import { DomainError, notPermitted } from '../errors.js';
import { REPLAY_ELSEWHERE_SCOPE } from '../scopes.js';
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

/** What the caller may do with `to`. */
export interface ReplayPolicy {
  /** The sandbox is published: `to` may be off this machine. */
  allowRemote: boolean;
  /** The caller holds REPLAY_ELSEWHERE_SCOPE. */
  mayRedirect: boolean;
}

export async function replayExchange(deps: SwitchDeps, institutionId: string, id: string, body: ReplayRequest, policy: ReplayPolicy): Promise<WebhookExchange> {
  const now = deps.now;
  const entry = deps.exchanges?.get(institutionId, id);
  if (!entry) throw new DomainError('not-found', `webhook exchange ${id} not found`);
  const original = entry.record;
  const stored = original.transactionId ? deps.store.get(institutionId, original.transactionId) : undefined;
  const config = stored ? cardAndProgramOf(deps.store, institutionId, stored.record).program?.webHookConfig : undefined;
  if (!config) throw new DomainError('conflict', `the card program of webhook exchange ${id} is gone; nothing to sign the replay with`);
  const to = body.to === undefined ? undefined : replayUrl(body.to);
  const elsewhere = to !== undefined && to !== (URL.canParse(config.url) ? new URL(config.url).href : config.url);
  if (elsewhere && !policy.mayRedirect) {
    throw notPermitted(`this token lacks scope ${REPLAY_ELSEWHERE_SCOPE}, which a replay to another URL than the card program's webhook requires`, { requiredScope: REPLAY_ELSEWHERE_SCOPE });
  }
  const url = to ?? config.url;
  // Elsewhere: the message and its signature, never the program's secret header.
  const sentConfig = elsewhere ? { ...config, url, header: '' } : config;
  const dispatcher = elsewhere && !policy.allowRemote ? await loopbackDispatcher(url) : undefined;
  const nowSeconds = body.keepTimestamp ? originalTimestamp(original) : undefined;
  const wire: WireCapture = {};
  const at = now();
  const started = performance.now();
  const options = { ...deps.webhook, ...(dispatcher ? { dispatcher } : {}), wire, ...(original.transactionId ? { messageId: messageIdOf(original.transactionId) } : {}), ...(nowSeconds !== undefined ? { nowSeconds } : {}) };
  const outcome: WebhookOutcome = await (deps.callWebhook ?? callWebhook)(sentConfig, entry.message, options)
    .catch((error: Error) => ({ ok: false as const, reason: `the webhook call failed: ${error.message}` }))
    .finally(() => dispatcher?.close());
  const subject = {
    institutionId, transactionId: original.transactionId ?? '', originalId: original.originalId, cardId: original.cardId,
    kind: original.kind, attempt: original.attempt, replayOf: original.id,
  };
  return recordCall(deps.exchanges, { subject, config: sentConfig, message: entry.message, wire, outcome, at, latencyMs: performance.now() - started, faults: [] })!;
}

/** `to` as an http(s) URL. */
function replayUrl(to: string): string {
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    throw invalidTo(`"to" is not a URL: ${JSON.stringify(to.slice(0, 80))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidTo('"to" must be an http or https URL');
  return url.href;
}

/** A dispatcher to `url` on this machine, by the address checked (the egress rule); a 400 naming why not. */
async function loopbackDispatcher(url: string): Promise<Dispatcher> {
  try {
    return (await connectToLoopback(url)).dispatcher;
  } catch (error) {
    if (error instanceof NotLoopbackError) throw invalidTo(`"to" must be on this machine: ${error.reason}`);
    throw error;
  }
}

const invalidTo = (message: string) => new DomainError('invalid', message, [{ field: 'to', message }]);

/** The unix seconds the original was signed with (t= of X-Webhook-Signature, or webhook-timestamp). */
function originalTimestamp(record: WebhookExchange): number {
  const headers = record.request.headers;
  const stamp = headers[STANDARD_HEADERS.timestamp] ?? /(?:^|,)\s*t=(\d+)/.exec(headers['x-webhook-signature'] ?? '')?.[1];
  if (stamp && /^\d+$/.test(stamp)) return Number(stamp);
  return Math.floor(Date.parse(record.at) / 1000);
}
