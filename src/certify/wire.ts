// The one rule of what counts on the wire in a certification: every exchange the sandbox had
// with the handler during the run, as its exchange log recorded it, is a valid protocol answer
// (status, content type, JSON, MTI, echoed fields, field 39; within the deadline) carrying no card
// secret — whichever check sent it, graded or not, a setup message, the latency run. Only an
// exchange the sandbox spoiled on purpose (an injected webhook fault) may go unanswered. Pure.
import type { WebhookExchange } from '../api/schemas.js';
import { fieldName } from '../iso8583/fields.js';
import { NOT_ECHOED } from '../webhook-protocol/reply.js';
import type { Evidence } from './grade.js';

/** Faults that spoil an exchange on purpose (a bad signature, a delay past the deadline, a reply lost): its answer may be missing. A duplicate spoils nothing. */
const spoiled = (exchange: WebhookExchange) => exchange.faults.some((fault) => fault !== 'duplicate');

/** The card secrets (and expiry) a reply carries: fields a response never echoes. */
export function cardSecretsIn(replyBody: string | undefined): string[] {
  let reply: unknown;
  try {
    reply = JSON.parse(replyBody ?? '');
  } catch {
    return [];
  }
  if (!reply || typeof reply !== 'object' || Array.isArray(reply)) return [];
  return Object.keys(reply).filter((field) => NOT_ECHOED.has(field)).sort((a, b) => Number(a) - Number(b));
}

/**
 * What is wrong with an exchange of the run, or undefined when it is a usable answer (or may go
 * unanswered: spoiled by an injected fault, or sent to be refused).
 */
export function exchangeProblem(exchange: WebhookExchange, refusalExpected = false): string | undefined {
  const what = `the reply to the ${exchange.kind} ${exchange.mti}${exchange.attempt > 1 ? ` (attempt ${exchange.attempt})` : ''}`;
  const secrets = exchange.response ? cardSecretsIn(exchange.response.body) : [];
  if (secrets.length > 0) {
    return `${what} carries card secret${secrets.length > 1 ? 's' : ''}: ${secrets.map((field) => `field ${field} [${fieldName(field)}]`).join(', ')}; a reply never echoes fields 14, 35, 36, 45, 52, 55`;
  }
  if (exchange.verdict === 'accepted' || spoiled(exchange) || refusalExpected) return undefined;
  return `${what} is not a valid answer: ${exchange.reason ?? exchange.verdict}`;
}

/** An exchange of the log as evidence (its body is already masked and redacted by the sandbox). */
export function exchangeEvidence(exchange: WebhookExchange): Evidence {
  const body = (exchange.request.body ?? {}) as Record<string, unknown>;
  const text = (field: string) => (typeof body[field] === 'string' ? body[field] : undefined);
  const [stan, rrn, pan, amount] = [text('11'), text('37'), text('2'), text('4')];
  return {
    request: { mti: exchange.mti, ...(stan ? { stan } : {}), ...(rrn ? { rrn } : {}), ...(pan ? { pan } : {}), ...(amount ? { amount } : {}), ...(exchange.faults.length > 0 ? { faults: exchange.faults } : {}) },
    response: {
      ...(exchange.responseCode ? { code: exchange.responseCode } : {}),
      latencyMs: exchange.latencyMs,
      ...(exchange.verdict !== 'accepted' ? { failure: exchange.reason ?? exchange.verdict } : {}),
    },
  };
}
