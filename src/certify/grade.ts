// How each check's verdict is read from what the sandbox recorded of the exchange: the message it
// sent, the reply it took (already held to the protocol's rules: MTI, field 39, echoed fields,
// size, content type), its latency, the faults it injected, repeats, acknowledgements. Pure.
import type { SimulateResult, Transaction } from '../api/schemas.js';
import { isApproved, responseMessage } from '../iso8583/codes.js';
import { maskPan } from '../core/redact.js';
import { answerDifferences, answerMtisOf, PARTIAL_APPROVAL_CODE } from '../webhook-protocol/reply.js';
import { fieldName } from '../iso8583/fields.js';

export type VerdictKind = 'pass' | 'fail' | 'skip';

/** One message of a check as the sandbox saw it, card number masked. */
export interface Evidence {
  request: { mti: string; stan?: string; rrn?: string; pan?: string; amount?: string; faults?: string[] };
  response: { mti?: string; code?: string; latencyMs?: number; failure?: string; standIn?: string; acknowledged?: boolean; attempts?: number; lastResult?: string };
}

export interface Verdict {
  verdict: VerdictKind;
  reason: string;
  evidence: Evidence[];
}

export const pass = (reason: string, evidence: Evidence[] = []): Verdict => ({ verdict: 'pass', reason, evidence });
export const fail = (reason: string, evidence: Evidence[] = []): Verdict => ({ verdict: 'fail', reason, evidence });
export const skip = (reason: string, evidence: Evidence[] = []): Verdict => ({ verdict: 'skip', reason, evidence });

const codeText = (code: string) => `${code} (${responseMessage(code)})`;

/** A message and its answer as evidence. */
export function evidenceOf(result: SimulateResult): Evidence {
  const { request } = result;
  return {
    request: { mti: result.mti, stan: result.stan, rrn: result.rrn, ...(request['2'] ? { pan: maskPan(request['2']) } : {}), ...(request['4'] ? { amount: request['4'] } : {}) },
    response: {
      ...(result.webhook && !result.webhook.failure ? { mti: result.response['0'] } : {}),
      code: result.responseCode,
      ...(result.webhook ? { latencyMs: result.webhook.latencyMs } : {}),
      ...(result.webhook?.failure ? { failure: result.webhook.failure } : {}),
      ...(result.standIn ? { standIn: result.standIn.decision } : {}),
    },
  };
}

/** A stored transaction (an advice, a reversal that stands) and its deliveries as evidence. */
export function deliveryEvidence(tx: Transaction): Evidence {
  const pan = tx.originalMessage['2'];
  return {
    request: { mti: tx.mti, stan: tx.stan, rrn: tx.rrn, ...(pan ? { pan: maskPan(pan) } : {}), ...(tx.originalMessage['4'] ? { amount: tx.originalMessage['4'] } : {}), ...(tx.webhookFaults ? { faults: tx.webhookFaults } : {}) },
    response: tx.advice ? { acknowledged: tx.advice.acknowledged, attempts: tx.advice.attempts, lastResult: tx.advice.lastResult } : { code: tx.responseCode },
  };
}

/** Why the webhook's answer to a message was not usable, or undefined when it was. */
export function unusableAnswer(result: SimulateResult): string | undefined {
  if (!result.webhook) return `the message never reached the webhook: the sandbox answered ${codeText(result.responseCode)} itself`;
  if (result.webhook.failure) return result.webhook.failure;
  if (result.standIn) return `the network stood in (${result.standIn.reason})`;
  return undefined;
}

/**
 * Why a correctly signed message went unanswered, with what to check when the handler refused it
 * as unauthenticated (401, 403): most often the HMAC is not over the exact bytes received.
 */
function signedButRefused(why: string): string {
  if (!/\bHTTP 40[13]$/.test(why)) return why;
  return `${why} to a correctly signed message: check the HMAC is over the exact bytes received, keyed with the secret given here`;
}

/**
 * A request answered validly: a reply the sandbox took (the protocol's rules), within the
 * deadline, and, when the rules file names codes for this check, one of them. A decline is valid.
 */
export function gradeReply(result: SimulateResult, options: { deadlineMs: number; expect?: readonly string[] }): Verdict {
  const evidence = [evidenceOf(result)];
  const why = unusableAnswer(result);
  if (why) return fail(signedButRefused(why), evidence);
  const latency = result.webhook!.latencyMs;
  if (latency > options.deadlineMs) return fail(`replied after ${latency} ms, past the ${options.deadlineMs} ms deadline`, evidence);
  if (options.expect && !options.expect.includes(result.responseCode)) {
    return fail(`replied ${codeText(result.responseCode)}; the rules expect ${options.expect.join(' or ')}`, evidence);
  }
  return pass(`replied ${result.response['0'] ?? ''} ${codeText(result.responseCode)} in ${latency} ms`, evidence);
}

/**
 * A message the handler must refuse, beside its control: the same authorization correctly signed,
 * sent just before. No approval passes (an error status, a timeout, a decline) — but a decline
 * proves the refusal only when the control was approved: a handler that declines everything would
 * otherwise pass without checking anything. Such a handler must refuse with a non-2xx status.
 */
export function gradeRefusal(result: SimulateResult, what: string, control: SimulateResult): Verdict {
  const evidence = [evidenceOf(control), evidenceOf(result)];
  const why = unusableAnswer(result);
  if (why) return pass(`refused: ${why}`, evidence);
  if (isApproved(result.responseCode)) return fail(`approved ${what}: replied ${codeText(result.responseCode)}; it must be refused (a non-2xx status, or a decline)`, evidence);
  if (!isApproved(control.responseCode)) {
    return fail(`declined ${what} (${codeText(result.responseCode)}), but declined the same message correctly signed too, so nothing shows the signature was checked; refuse a bad signature with a non-2xx status (401)`, evidence);
  }
  return pass(`declined: replied ${codeText(result.responseCode)}, while the same message correctly signed was approved`, evidence);
}

/**
 * A rotation window: each message signed twice (the handler's secret first, then second) answered
 * validly, and approved when its twin signed once was: a handler that refuses two v1 signatures
 * refuses every message of every real rotation.
 */
export function gradeRotation(control: SimulateResult, twice: SimulateResult[]): Verdict {
  const evidence = [evidenceOf(control), ...twice.map(evidenceOf)];
  for (const [index, result] of twice.entries()) {
    const which = index === 0 ? "the handler's secret first" : "the handler's secret second";
    const why = unusableAnswer(result);
    if (why) return fail(`a message signed with two secrets (${which}) got no valid answer: ${why}; accept a request when any one v1 signature verifies`, evidence);
    if (isApproved(control.responseCode) && !isApproved(result.responseCode)) {
      return fail(`a message signed with two secrets (${which}) was declined ${codeText(result.responseCode)}, while its twin signed once was approved; accept it when any one v1 signature verifies`, evidence);
    }
  }
  return pass(`both messages signed twice were answered as their twin signed once (${codeText(control.responseCode)})`, evidence);
}

/** Two answers to one message, as the exchange log kept their bodies (masked JSON text). */
export type AnswerPair = [string | undefined, string | undefined];

/** How two answers differ, naming the fields (39, 38, 4) and their values; '' when the bodies cannot tell. */
export function differenceText([first, second]: AnswerPair): string {
  const parse = (text: string | undefined): Record<string, string> | undefined => {
    try {
      const value: unknown = JSON.parse(text ?? '');
      return value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)])) : undefined;
    } catch {
      return undefined;
    }
  };
  const [a, b] = [parse(first), parse(second)];
  if (!a || !b) return '';
  const fields = answerDifferences(a, b);
  return fields.map((field) => `field ${field} [${fieldName(field)}] ${JSON.stringify(a[field] ?? '(none)')} then ${JSON.stringify(b[field] ?? '(none)')}`).join(', ');
}

/** A message delivered twice: both copies answered validly and alike (sameAnswer; two unusable answers are not alike), naming the field that differed. */
export function gradeDuplicate(result: SimulateResult, tx: Transaction, answers: AnswerPair = [undefined, undefined]): Verdict {
  const evidence = [evidenceOf(result)];
  const why = unusableAnswer(result);
  if (why) return fail(`needs a replied authorization (${why})`, evidence);
  const entry = tx.repeats?.[0];
  if (!entry) return fail('the sandbox recorded no second delivery', evidence);
  if (entry.agreed) return pass('both deliveries were answered alike', evidence);
  const differ = differenceText(answers);
  return fail(`the two deliveries of one message were answered differently${differ ? `: ${differ}` : ''}`, evidence);
}

/** The latest repeat of `tx`: answered, with the ISO response MTI, as the first time (naming the field that differed). */
export function gradeRepeat(tx: Transaction, answers: AnswerPair = [undefined, undefined]): Verdict {
  const entry = tx.repeats?.at(-1);
  const evidence: Evidence[] = [{ request: { mti: entry?.mti ?? '', stan: tx.stan, rrn: tx.rrn }, response: { ...(entry?.replyMti ? { mti: entry.replyMti } : {}), code: entry?.responseCode ?? '' } }];
  if (!entry) return fail('the sandbox recorded no repeat', evidence);
  if (!entry.responseCode) return fail(`no usable answer to the repeat ${entry.mti}`, evidence);
  const iso = answerMtisOf(entry.mti)[0]!;
  if (entry.replyMti !== undefined && entry.replyMti !== iso) return fail(`answered the repeat ${entry.mti} with ${entry.replyMti}; the ISO answer is ${iso} (the answer to the message it repeats)`, evidence);
  if (!entry.agreed) {
    const differ = differenceText(answers);
    return fail(`answered the repeat ${entry.mti} unlike the first time: ${differ || `${codeText(entry.responseCode)}, the first time ${codeText(tx.responseCode)}`}`, evidence);
  }
  return pass(`answered the repeat ${entry.mti} with ${iso} ${codeText(entry.responseCode)}, as the first time`, evidence);
}

/** A message the webhook acknowledges (an advice, a reversal that stands): acknowledged within the window. */
export function gradeAcknowledged(tx: Transaction, windowMs: number): Verdict {
  const evidence = [deliveryEvidence(tx)];
  const delivery = tx.advice;
  if (!delivery) return fail(`the sandbox recorded no delivery of the ${tx.mti}`, evidence);
  const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
  if (delivery.acknowledged) return pass(`the ${tx.mti} was acknowledged (${attempts}: ${delivery.lastResult})`, evidence);
  return fail(`the ${tx.mti} was not acknowledged within ${windowMs / 1000} s (${attempts}; last: ${signedButRefused(delivery.lastResult)})`, evidence);
}

/** Partial approval, when the handler used it: field 4 more than 0 and below the amount asked. */
export function gradePartial(result: SimulateResult): Verdict {
  const evidence = [evidenceOf(result)];
  const why = unusableAnswer(result);
  if (why) return fail(why, evidence);
  if (result.responseCode !== PARTIAL_APPROVAL_CODE) {
    return skip(`the handler does not partially approve: it answered ${codeText(result.responseCode)} to ${result.request['4'] ?? 'the amount'}, not 10; nothing to grade (a legitimate skip)`, evidence);
  }
  const asked = BigInt(result.request['4'] ?? '0');
  const given = /^\d{12}$/.test(result.response['4'] ?? '') ? BigInt(result.response['4']!) : -1n;
  if (given <= 0n || given > asked) return fail(`partial approval with field 4 ${result.response['4'] ?? '(none)'}: it must be more than 0 and at most ${result.request['4']}`, evidence);
  return pass(`partially approved ${result.response['4']} of ${result.request['4']}`, evidence);
}

export interface LatencyFigures {
  requests: number;
  replies: number;
  timeouts: number;
  p50?: number;
  p99?: number;
  max?: number;
}

/** The latency under load: every message answered usably by the webhook (only those replies are timed), p99 under the deadline. */
export function gradeLatency(figures: LatencyFigures, deadlineMs: number): Verdict {
  const evidence: Evidence[] = [];
  const shown = `${figures.requests} requests, ${figures.replies} replies, ${figures.timeouts} timeouts; p50 ${figures.p50 ?? '-'} ms, p99 ${figures.p99 ?? '-'} ms, max ${figures.max ?? '-'} ms`;
  if (figures.timeouts > 0) return fail(`${figures.timeouts} of ${figures.requests} timed out under load (${shown})`, evidence);
  if (figures.replies === 0 || figures.p99 === undefined) return fail(`no usable reply from the webhook under load (${shown})`, evidence);
  if (figures.replies < figures.requests) return fail(`${figures.requests - figures.replies} of ${figures.requests} got no usable reply under load (${shown})`, evidence);
  if (figures.p99 >= deadlineMs) return fail(`p99 ${figures.p99} ms is not under the ${deadlineMs} ms deadline (${shown})`, evidence);
  return pass(shown, evidence);
}
