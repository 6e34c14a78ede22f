// One webhook call as the exchange log records it (../exchange-log.ts): the request as sent and
// the reply as read, with every signature, the program's secret header and the secret wherever it
// appears redacted, card numbers masked (text or JSON numbers, bodies and headers) and card
// secrets (track data, PIN block, chip data) redacted; the verdict the network reached, its reason, the faults injected, the attempt.
import type { Transaction, WebhookExchange } from '../../api/schemas.js';
import { REDACTED, redactBodyText, redactHeaders, redactUrl, redactValue, secretReplacer } from '../../core/redact.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { isRepeatMti } from '../../webhook-protocol/reply.js';
import { STANDARD_HEADERS } from '../../webhook-protocol/signature.js';
import type { ExchangeLog } from '../exchange-log.js';
import { newId } from '../ids.js';
import type { WebhookOutcome, WireCapture } from './webhook.js';

/** What a call is about: the transaction, its kind, which attempt (and, for a replay, of what). */
export interface ExchangeSubject {
  institutionId: string;
  transactionId: string;
  originalId: string | null;
  cardId: string | null;
  kind: string;
  attempt: number;
  replayOf?: string;
}

/**
 * The subject of sending `record`'s message as `mti`: a repeat MTI (0101, 0121, 0421) makes the
 * kind `<kind>-repeat`. `originalId`: the original it belongs to, as the store links it (a plain
 * reversal's record does not name it).
 */
export function subjectOf(institutionId: string, record: Transaction, attempt: number, mti: string, originalId?: string): ExchangeSubject {
  const kind = record.messageKind ?? (record.processingCode.startsWith('31') ? 'balance' : record.messageType);
  return {
    institutionId,
    transactionId: record.id,
    originalId: originalId ?? record.originalTransactionId ?? null,
    cardId: record.card?.id ?? null,
    kind: isRepeatMti(mti) ? `${kind}-repeat` : kind,
    attempt,
  };
}

export interface RecordedCall {
  subject: ExchangeSubject;
  /** The webhook settings the call used: its URL, secret header and secrets are what is redacted. */
  config: { url: string; header?: string; secret?: string; previousSecret?: string };
  message: SwitchMessage;
  wire: WireCapture;
  outcome: WebhookOutcome;
  at: Date;
  latencyMs: number;
  faults: string[];
}

/** Records the call in `log` (nothing without one); the record. */
export function recordCall(log: ExchangeLog | undefined, call: RecordedCall): WebhookExchange | undefined {
  if (!log) return undefined;
  const record = exchangeRecord(call);
  log.add(call.subject.institutionId, record, call.message);
  return record;
}

export function exchangeRecord({ subject, config, message, wire, outcome, at, latencyMs, faults }: RecordedCall): WebhookExchange {
  const secrets = [config.secret, config.previousSecret].filter((one): one is string => Boolean(one && one.length >= 4));
  const scrub = secretReplacer(secrets);
  const secretHeader = config.header?.trim().toLowerCase();
  // Both ways: every signature (two during a rotation) and card number by the one rule (redactHeaders).
  const headers = (given: Record<string, string | string[] | undefined>) => {
    const out = redactHeaders(given);
    for (const [name, value] of Object.entries(out)) out[name] = name.toLowerCase() === secretHeader ? REDACTED : scrub(value);
    return out;
  };
  const sent = wire.request;
  const verdict = outcome.ok ? 'accepted' : wire.response && (outcome.cause === 'http-error' || outcome.cause === 'invalid-reply') ? 'refused' : 'no-answer';
  const reply = verdict === 'no-answer' ? undefined : wire.response;
  return {
    id: `wx_${newId()}`,
    at: at.toISOString(),
    transactionId: subject.transactionId,
    originalId: subject.originalId,
    cardId: subject.cardId,
    kind: subject.kind,
    mti: message['0'] ?? '',
    attempt: subject.attempt,
    replayOf: subject.replayOf ?? null,
    signatureScheme: sent && STANDARD_HEADERS.signature in sent.headers ? 'standard-webhooks' : 'cardctl',
    request: {
      method: sent?.method ?? 'POST',
      url: redactUrl(sent?.url ?? config.url),
      headers: headers(sent?.headers ?? {}),
      // What went out (a signature fault may have changed it after signing), else the message.
      body: redactValue(sentBody(sent?.body) ?? message),
    },
    response: reply ? { status: reply.status, headers: headers(reply.headers), body: redactBodyText(scrub(reply.body)), truncated: reply.truncated } : null,
    latencyMs: Math.max(0, Math.round(latencyMs)),
    verdict,
    reason: outcome.ok ? null : outcome.reason,
    responseCode: outcome.ok ? outcome.reply['39'] ?? null : null,
    faults,
  };
}

function sentBody(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
