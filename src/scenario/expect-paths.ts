// The shapes of the `expect` paths that read a recorded state part whose fields are known:
// `exchanges.*` (the sandbox's exchange log) and `webhook.*` (what `webhook listen` received).
// A misspelt field there would only ever read "nothing", so loading refuses it.
import type { TSchema } from '@sinclair/typebox';
import { WebhookExchange } from '../api/schemas.js';

/** Fields of one recorded exchange, as GET /sandbox/webhook-exchanges serves it. */
const EXCHANGE_FIELDS = Object.keys(WebhookExchange.properties);
/** Exchange fields whose members are paths of their own (request.body.39, response.status, faults.0). */
const EXCHANGE_OPEN = new Set(EXCHANGE_FIELDS.filter((field) => hasMembers(WebhookExchange.properties[field as keyof typeof WebhookExchange.properties])));

/** Fields of what `webhook listen` answers at GET /exchanges?stan&rrn (its `Received`). */
export const WEBHOOK_FIELDS = ['stan', 'rrn', 'deliveries', 'repeats', 'signature', 'messages'] as const;

const INDEX = /^(0|[1-9]\d{0,5})$/;

/**
 * Why `path` cannot be read, or undefined when it can (or is not one of these parts).
 * `exchanges.length`, `exchanges.N.<field>`; `webhook.<field>`, `webhook.messages.N.<field>`.
 */
export function expectPathProblem(path: string): string | undefined {
  const [head, ...rest] = path.split('.');
  if (head === 'exchanges') {
    const shape = `exchanges.length or exchanges.N.<field> (N from 0, oldest first; fields: ${EXCHANGE_FIELDS.join(', ')})`;
    if (rest.length === 1 && rest[0] === 'length') return undefined;
    const [index, field, ...deeper] = rest;
    if (!index || !INDEX.test(index) || !field || !EXCHANGE_FIELDS.includes(field)) return `expect: "${path}" is not ${shape}`;
    if (deeper.length > 0 && !EXCHANGE_OPEN.has(field)) return `expect: "${path}": ${field} has no members`;
    if (deeper.some((key) => key === '')) return `expect: "${path}" has an empty member`;
    return undefined;
  }
  if (head === 'webhook') {
    const [field, index, ...deeper] = rest;
    if (!field || !(WEBHOOK_FIELDS as readonly string[]).includes(field)) return `expect: "${path}" is not webhook.<field> (fields: ${WEBHOOK_FIELDS.join(', ')}; what \`webhook listen\` received)`;
    if (field !== 'messages') return index === undefined ? undefined : `expect: "${path}": webhook.${field} has no members`;
    if (index === 'length') return deeper.length === 0 ? undefined : `expect: "${path}": length has no members`;
    if (!index || !INDEX.test(index) || deeper.length === 0 || deeper.some((key) => key === '')) return `expect: "${path}" is not webhook.messages.length or webhook.messages.N.<field> (mti, status, responseCode, …)`;
    return undefined;
  }
  return undefined;
}

/** An object, an array or anything (a nullable one too): a field a path may go into. */
function hasMembers(schema: TSchema): boolean {
  if (schema.type === 'object' || schema.type === 'array' || schema.type === undefined && !schema.anyOf) return true;
  return Array.isArray(schema.anyOf) && schema.anyOf.some((option: TSchema) => option.type === 'object' || option.type === 'array');
}
