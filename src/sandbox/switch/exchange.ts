// The exchange with the institution's webhook in forward mode, through the faults on the webhook
// path (webhook-faults.ts), and the network's stand-in decision when it gives no usable answer.
import type { CardProgram } from '../../api/schemas.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import type { SwitchDeps } from './deps.js';
import { recordCall, type ExchangeSubject } from './exchange-record.js';
import * as ledger from './ledger.js';
import type { Plan } from './plan.js';
import type { SwitchStore } from './store-port.js';
import { describeDraw } from './webhook-faults.js';
import { sameAnswer } from '../../webhook-protocol/reply.js';
import { callWebhook, messageIdOf, WEBHOOK_TIMEOUT_MS, type WebhookOutcome, type WireCapture } from './webhook.js';

/** How long a late reply is still read after the network's deadline (to send a timeout reversal). */
export const LATE_REPLY_WINDOW_MS = 5_000;

export interface Exchange {
  outcome: WebhookOutcome;
  sentAt: Date;
  /** From the network sending the message (an injected delay included) to the outcome, ms. */
  latencyMs: number;
  /** The faults injected, as recorded on the transaction. */
  faults: string[];
  /** With a duplicate delivery: whether the webhook answered both copies alike. */
  duplicateAgreed?: boolean;
  /** The webhook's answer when the network did not take it (after the deadline, or lost). */
  late?: Promise<WebhookOutcome>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One exchange with the webhook of `program`, through the faults of that program (or of its
 * institution, webhook-faults.ts): delay, the network's deadline
 * (past it the answer is not taken, but still read for LATE_REPLY_WINDOW_MS when the caller
 * can act on it), duplicate delivery, reset after sending, reply lost, garbage. Every delivery
 * of the message (a duplicate included) carries the transaction's `webhook-id`. With a subject,
 * each HTTP call (two with a duplicate delivery) is recorded in the exchange log as the network saw it.
 */
export async function exchangeWithWebhook(deps: SwitchDeps, program: Pick<CardProgram, 'id' | 'webHookConfig'> | undefined, request: SwitchMessage, transactionId: string, institutionId: string, subject?: ExchangeSubject): Promise<Exchange> {
  const config = program?.webHookConfig;
  const now = deps.now;
  const baseDeadline = deps.webhook?.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const draw = deps.webhookFaults?.draw({ institutionId, programId: program?.id }) ?? { delayMs: 0, deadlineMs: baseDeadline, duplicate: false, reset: false, replyLost: false, garbage: false };
  const faults = describeDraw(draw);
  if (!config?.url) {
    return { outcome: { ok: false, cause: 'no-url', reason: 'the card program has no webHookConfig.url (set one, e.g. `cardctl sandbox serve --webhook-url URL`)' }, sentAt: now(), latencyMs: 0, faults };
  }
  const started = Date.now();
  const startedPerf = performance.now();
  if (draw.delayMs > 0) await sleep(draw.delayMs);
  const sentAt = now();
  // A delay that used up the deadline: the message still reaches the webhook, too late.
  const remaining = Math.max(0, draw.deadlineMs - (Date.now() - started));
  const readFor = deps.background ? remaining + LATE_REPLY_WINDOW_MS : Math.max(1, remaining);
  const call = (wire: WireCapture) => (deps.callWebhook ?? callWebhook)(config, request, { ...deps.webhook, timeoutMs: readFor, messageId: messageIdOf(transactionId), ...(draw.signature ? { signatureFault: draw.signature } : {}), wire })
    .catch((error: Error): WebhookOutcome => ({ ok: false, reason: `the webhook call failed: ${error.message}` }));
  const wires: [WireCapture, WireCapture] = [{}, {}];
  const first = call(wires[0]);
  const second = draw.duplicate ? call(wires[1]) : undefined;
  const timeout: WebhookOutcome = { ok: false, timedOut: true, cause: 'timeout', reason: `no reply from the webhook within ${draw.deadlineMs / 1000} s (timeout)` };
  let outcome: WebhookOutcome;
  let late: Promise<WebhookOutcome> | undefined;
  if (remaining === 0) {
    outcome = timeout;
    late = first;
  } else if (readFor > remaining) {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => { timer = setTimeout(() => resolve('deadline'), remaining); });
    const raced = await Promise.race([first, deadline]);
    clearTimeout(timer);
    if (raced === 'deadline') { outcome = timeout; late = first; } else outcome = raced;
  } else {
    outcome = await first;
  }
  const latencyMs = Math.round(performance.now() - startedPerf);
  let duplicateAgreed: boolean | undefined;
  let duplicate: { outcome: WebhookOutcome; latencyMs: number } | undefined;
  if (second) {
    const other = await second;
    duplicate = { outcome: other, latencyMs: performance.now() - startedPerf };
    duplicateAgreed = outcome.ok && other.ok ? sameAnswer(outcome.reply, other.reply) : outcome.ok === other.ok;
  }
  if (outcome.ok) {
    if (draw.reset) outcome = { ok: false, cause: 'reset', reason: 'the connection was reset after the message was sent (injected fault)' };
    else if (draw.replyLost) { late = Promise.resolve(outcome); outcome = { ok: false, cause: 'reply-lost', reason: "the webhook's reply was lost on the way to the network (injected fault)" }; }
    else if (draw.garbage) outcome = { ok: false, cause: 'invalid-reply', reason: 'the webhook reply is not JSON (injected garbage)' };
  }
  if (subject) {
    const record = (wire: WireCapture, taken: WebhookOutcome, ms: number) =>
      recordCall(deps.exchanges, { subject, config, message: request, wire, outcome: taken, at: sentAt, latencyMs: ms, faults });
    record(wires[0], outcome, latencyMs);
    if (duplicate) record(wires[1], duplicate.outcome, duplicate.latencyMs);
  }
  return { outcome, sentAt, latencyMs, faults, ...(duplicateAgreed !== undefined ? { duplicateAgreed } : {}), ...(late ? { late } : {}) };
}

/**
 * The network's decision when the webhook gave no usable answer: the program's stand-in policy
 * (`decline` → 96, the default; `approve` → 00 for at most `maxAmount` each and `dailyAmount` a
 * card and UTC day). Only for requests that hold or take money; a refund fails with 96.
 */
export function standInDecision(store: SwitchStore, plan: Plan, entry: ledger.Entry, day: string, reason: string): { decision: string; reason: string } | undefined {
  if (plan.kind === 'refund' || plan.intent === 'reversal') return undefined;
  const policy = plan.program?.standIn;
  if (!policy || policy.mode !== 'approve' || !plan.card) return { decision: '96', reason };
  const fits = ledger.standInFits(store, policy, plan.card.id, entry, day);
  return fits ? { decision: '00', reason } : { decision: '96', reason: `${reason}; over the stand-in amounts` };
}
