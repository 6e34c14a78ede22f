// Turns a lifecycle message as the operator describes it (flags, or a scenario step's keys)
// into the body of POST /sandbox/switch/messages (a sandbox extension, docs/switch.md),
// checking what the server would reject before anything is sent (usage errors, exit 2).
import type { LifecycleBody } from './schemas.js';
import { UsageError } from '../core/errors.js';
import { buildSimulateBody, flagName, type Namer, type SimulationInput } from './simulate-request.js';

export const LIFECYCLE_MESSAGES = ['increment', 'completion', 'refund', 'advice'] as const;
export type LifecycleMessage = (typeof LIFECYCLE_MESSAGES)[number];

/** One lifecycle message: a linked one names its original; an advice has the card fields of a simulation. */
export interface LifecycleInput extends Omit<SimulationInput, 'intent' | 'originalStan' | 'originalRrn' | 'date'> {
  message: LifecycleMessage;
  /** advice: the network's decision (default 00). */
  networkCode?: string;
}

export function buildLifecycleBody(input: LifecycleInput, name: Namer = flagName, prefix = ''): LifecycleBody {
  const fail = (message: string): never => {
    throw new UsageError(`${prefix}${message}`);
  };
  const named = name as (key: string) => string;
  if (!(LIFECYCLE_MESSAGES as readonly string[]).includes(input.message)) fail(`the message must be one of ${LIFECYCLE_MESSAGES.join(', ')}`);
  const networkCode = input.networkCode === undefined ? undefined : String(input.networkCode).trim().toUpperCase();
  if (input.message === 'advice') {
    if (input.originalTx) fail(`${named('originalTx')} is not used by an advice: it is an authorization of its own`);
    if (networkCode !== undefined && !/^[0-9A-Z]{2}$/.test(networkCode)) fail(`invalid ${named('networkCode')} "${networkCode}": expected a two-character response code such as 00 or 51`);
    // An advice carries what an authorization would: the simulate rules check its card fields.
    const { body } = buildSimulateBody({ ...input, intent: 'authorization' }, name, prefix);
    const { intent: _intent, transactionDate: _date, originalTransactionId: _o, originalStan: _s, originalRrn: _r, ...fields } = body;
    return { message: 'advice', ...fields, ...(networkCode ? { networkResponseCode: networkCode } : {}) };
  }
  if (networkCode !== undefined) fail(`${named('networkCode')} is only for advices`);
  for (const key of ['card', 'pan', 'expiry', 'account', 'channel', 'method', 'merchant', 'terminal'] as const) {
    if (input[key] !== undefined && String(input[key]).trim() !== '') fail(`${named(key)} is not used by ${articled(input.message)}: it applies to the original's card`);
  }
  const originalTx = input.originalTx === undefined ? '' : String(input.originalTx).trim();
  if (!originalTx) fail(`${articled(input.message)} needs the original: ${named('originalTx')}`);
  // Built as a reversal of the original (no card fields) to reuse the amount, currency and --set rules.
  const { body } = buildSimulateBody({ ...input, intent: 'reversal', originalTx }, name, prefix);
  return {
    message: input.message,
    originalTransactionId: originalTx,
    amount: body.amount,
    ...(body.currency ? { currency: body.currency } : {}),
    ...(body.responseMode ? { responseMode: body.responseMode } : {}),
    ...(body.overrides ? { overrides: body.overrides } : {}),
  };
}

function articled(message: LifecycleMessage): string {
  return message === 'increment' || message === 'advice' ? `an ${message}` : `a ${message}`;
}
