// The run() of the lifecycle verbs (sandbox extensions, docs/switch.md): increment, complete,
// refund and advice send a message to POST /sandbox/switch/messages; repeat, expire and clock
// use their own routes. Each prints what `simulate authorization` prints, and
// `--expect-approved` turns a decline into exit 5 the same way.
import type { SimulateResult } from '../../api/schemas.js';
import type { Context } from '../../contract/context.js';
import { RejectedError, UsageError } from '../../core/errors.js';
import { defineFlags } from '../../core/flags.js';
import { SIMULATION_FLAGS } from './options.js';
import type { LifecycleInput, LifecycleMessage } from '../../api/lifecycle-request.js';

/** The flags of a message linked to an original (increment, complete, refund). */
export const LINKED_FLAGS = defineFlags({
  originalTx: { type: 'string', value: 'id', description: 'the original transaction' },
  amount: SIMULATION_FLAGS.amount,
  currency: SIMULATION_FLAGS.currency,
  forward: SIMULATION_FLAGS.forward,
  set: SIMULATION_FLAGS.set,
  expectApproved: SIMULATION_FLAGS.expectApproved,
  messages: SIMULATION_FLAGS.messages,
});

/** The flags of an advice: a simulation's card fields, and the network's decision. */
export const ADVICE_FLAGS = defineFlags({
  amount: SIMULATION_FLAGS.amount,
  flow: SIMULATION_FLAGS.flow,
  card: SIMULATION_FLAGS.card,
  pan: SIMULATION_FLAGS.pan,
  expiry: SIMULATION_FLAGS.expiry,
  account: SIMULATION_FLAGS.account,
  channel: SIMULATION_FLAGS.channel,
  method: SIMULATION_FLAGS.method,
  currency: SIMULATION_FLAGS.currency,
  merchant: SIMULATION_FLAGS.merchant,
  terminal: SIMULATION_FLAGS.terminal,
  networkCode: { type: 'string', value: 'code', description: "the network's decision, which the webhook cannot change (default 00)" },
  forward: SIMULATION_FLAGS.forward,
  set: SIMULATION_FLAGS.set,
  expectApproved: SIMULATION_FLAGS.expectApproved,
  messages: SIMULATION_FLAGS.messages,
});

interface Shown {
  expectApproved?: boolean;
  messages?: boolean;
}

/** A lifecycle verb's input once checked: the message, and how its answer is shown. */
export interface LifecycleCommandInput extends Shown {
  input: LifecycleInput;
}

/**
 * Flags → the message, checked by the rules of its body before anything is sent. A completion
 * without --amount captures what the original holds, read in run(): it is checked with the
 * amount left out of the rules (buildLifecycleBody again once it is known).
 */
export async function parseLifecycle(message: LifecycleMessage, opts: Omit<LifecycleInput, 'message'> & Shown): Promise<LifecycleCommandInput> {
  const { buildLifecycleBody } = await import('../../api/lifecycle-request.js');
  const { expectApproved, messages, ...fields } = opts;
  const input: LifecycleInput = { message, ...fields };
  const amountFromOriginal = message === 'completion' && input.amount === undefined && Boolean(input.originalTx);
  buildLifecycleBody(amountFromOriginal ? { ...input, amount: '0' } : input);
  return { input, expectApproved, messages };
}

/** Sends one lifecycle message built from the flags; a completion without --amount captures what the original holds. */
export async function lifecycleRun(ctx: Context, { input, expectApproved, messages }: LifecycleCommandInput): Promise<void> {
  if (input.message === 'completion' && input.amount === undefined && input.originalTx) {
    const { getLifecycle } = await import('../../api/simulate.js');
    input.amount = (await getLifecycle(await ctx.client(), input.originalTx, { signal: ctx.signal })).data.amounts.held;
  }
  const { buildLifecycleBody } = await import('../../api/lifecycle-request.js');
  const body = buildLifecycleBody(input);
  const [{ sendLifecycleMessage }, client] = await Promise.all([import('../../api/simulate.js'), ctx.client()]);
  const response = await sendLifecycleMessage(client, body, { signal: ctx.signal });
  await show(ctx, response.data.data, response.raw, { expectApproved, messages });
}

/** `simulate repeat`: the network resends a message; the answer is the first one's. */
export interface RepeatInput extends Shown {
  tx: string;
  forward?: boolean;
}

export function parseRepeat(opts: { tx?: string; forward?: boolean } & Shown): RepeatInput {
  return { ...opts, tx: requiredId('--tx', opts.tx) };
}

export async function repeatRun(ctx: Context, opts: RepeatInput): Promise<void> {
  const [{ repeatMessage }, client] = await Promise.all([import('../../api/simulate.js'), ctx.client()]);
  const response = await repeatMessage(client, opts.tx, { forward: opts.forward, signal: ctx.signal });
  await show(ctx, response.data.data, response.raw, opts);
}

async function show(ctx: Context, result: SimulateResult, raw: string | undefined, opts: Shown): Promise<void> {
  const { renderResult, requireApproved } = await import('./execute.js');
  await renderResult(ctx, result, { messages: Boolean(opts.messages), raw });
  if (opts.expectApproved) requireApproved(result);
}

/** `simulate expire`: the hold of an approved authorization is released now, as its period ending would. */
export function parseExpire(opts: { originalTx?: string }): { originalTx: string } {
  return { originalTx: requiredId('--original-tx', opts.originalTx) };
}

export async function expireRun(ctx: Context, { originalTx: id }: { originalTx: string }): Promise<void> {
  const [{ expireHold }, client] = await Promise.all([import('../../api/simulate.js'), ctx.client()]);
  const response = await expireHold(client, id, { signal: ctx.signal });
  const renderer = ctx.output();
  if (renderer.format !== 'table' || renderer.settings.quiet) {
    await renderer.record(response.data, { raw: response.raw });
    return;
  }
  const { transactionRows } = await import('../../output/columns/transactions.js');
  await renderer.record(response.data, { rows: transactionRows });
}

function requiredId(flag: string, value: string | undefined): string {
  const id = value?.trim();
  if (!id) throw new UsageError(`${flag} is required`, { hint: 'find a transaction with `cardctl tx list`' });
  return id;
}
