// The run() of `simulate authorization|financial|reversal`: parse the flags into a simulate
// body, send it to /institutions/{switch}/simulate, print the summary (or the messages).
// Exit 0 whenever the simulation ran; `--expect-approved` turns a decline into exit 5.
import type { SimulateBody, SimulateResult } from '../../api/schemas.js';
import type { Context } from '../../contract/context.js';
import { RejectedError } from '../../core/errors.js';
import { escapeControls } from '../../output/format.js';
import { isApproved } from '../../iso8583/codes.js';
import type { FlagValues } from '../../core/flags.js';
import type { SIMULATION_FLAGS } from './options.js';
import { buildSimulateBody, type IntentName, type SimulationInput } from '../../api/simulate-request.js';

/** The flags of the simulate verbs, as run() gets them. */
export type SimulateFlags = FlagValues<typeof SIMULATION_FLAGS>;

/** A simulate verb's input once checked: the simulation, and how its answer is shown. */
export interface SimulationCommandInput {
  input: SimulationInput;
  expectApproved?: boolean;
  messages?: boolean;
}

/**
 * Flags → the simulation, checked by the rules of its body before anything is sent. What run()
 * may still fill in (the amount a reversal gives back, an amount or a card asked for on a
 * terminal) is left out of the rules here; without a terminal its absence is refused in run(),
 * by the same rules, before any request.
 */
export function parseSimulation(intent: IntentName, opts: SimulateFlags): SimulationCommandInput {
  const input: SimulationInput = { intent, ...pickInput(opts) };
  const probe = { ...input };
  if (probe.amount === undefined) probe.amount = '0';
  if (intent !== 'reversal' && !probe.card && !probe.pan && !probe.expiry && !probe.account) probe.card = 'card';
  buildSimulateBody(probe);
  return { input, expectApproved: opts.expectApproved, messages: opts.messages };
}

export async function simulateRun(ctx: Context, { input, expectApproved, messages }: SimulationCommandInput): Promise<void> {
  if (input.amount === undefined && input.intent === 'reversal' && input.originalTx) {
    // By default a reversal takes the rest: what the original may still give back (the
    // sandbox keeps it in remainingAmount), else what was approved, else what was asked.
    const { getTransaction } = await import('../../api/transactions.js');
    const original = (await getTransaction(await ctx.client(), input.originalTx, { signal: ctx.signal })).data;
    const { currencyInfo, minorToDecimal } = await import('../../iso8583/amount.js');
    const digits = currencyInfo(original.amounts.currency)?.digits ?? 2;
    const rest = original.remainingAmount ?? original.approvedAmount;
    input.amount = rest !== undefined ? rest.toFixed(digits) : minorToDecimal(original.amounts.amount, digits);
  }
  if (input.amount === undefined && input.flow !== 'balance_inquiry' && ctx.io.canPrompt) {
    input.amount = await ctx.prompter.input('Amount (major units, e.g. 1500.00)');
  }
  if (input.intent !== 'reversal' && !input.card && !input.pan && ctx.io.canPrompt) {
    input.card = await ctx.prompter.input('Card ID');
  }
  const { body } = buildSimulateBody(input);
  const result = await sendSimulation(ctx, body);
  await renderResult(ctx, result.data, { messages: Boolean(messages), raw: result.raw });
  if (expectApproved) requireApproved(result.data);
}

/** `--expect-approved`: exit 5 unless the code is an approval (00, 10 partial, 11 VIP…: isApproved). */
export function requireApproved(result: SimulateResult): void {
  if (isApproved(result.responseCode)) return;
  throw new RejectedError(`not approved: ${result.responseCode} ${result.responseMessage} (transaction ${result.transactionId})`, {
    code: 'DECLINED',
    details: { responseCode: result.responseCode, transactionId: result.transactionId },
  });
}

function pickInput(opts: SimulateFlags): Omit<SimulationInput, 'intent'> {
  const { expectApproved: _e, messages: _m, ...rest } = opts;
  const keys = ['amount', 'flow', 'card', 'pan', 'expiry', 'account', 'channel', 'method', 'currency', 'merchant', 'terminal', 'forward', 'originalTx', 'originalStan', 'originalRrn', 'date', 'set'] as const;
  const out: Record<string, unknown> = {};
  for (const key of keys) if (rest[key] !== undefined) out[key] = rest[key];
  return out as Omit<SimulationInput, 'intent'>;
}

/** Sends one simulation with the profile's switch path segment. */
export async function sendSimulation(ctx: Context, body: SimulateBody, signal: AbortSignal = ctx.signal) {
  const [{ simulate }, client] = await Promise.all([import('../../api/simulate.js'), ctx.client()]);
  const response = await simulate(client, body, { switchSegment: ctx.settings().profile.switch, signal });
  return { data: response.data.data, message: response.data.message, status: response.data.status, raw: response.raw };
}

export async function renderResult(ctx: Context, result: SimulateResult, options: { messages: boolean; raw?: string }): Promise<void> {
  const renderer = ctx.output();
  const { simulateRows } = await import('../../output/columns/transactions.js');
  if (renderer.format !== 'table' || renderer.settings.quiet) {
    // Machine formats print the result's own properties; --fields may also name the computed
    // columns (outcome, amount), which the rows define.
    await renderer.record(result, { raw: options.raw, idPath: 'transactionId', ...(renderer.settings.fields?.length ? { rows: simulateRows } : {}) });
    return;
  }
  await renderer.record(result, { rows: simulateRows, idPath: 'transactionId' });
  if (options.messages) {
    await printMessage(ctx, 'Request', result.request);
    await printMessage(ctx, 'Response', result.response);
  }
}

/** A message as field / name / value / meaning rows, under a heading on a terminal. */
export async function printMessage(ctx: Context, title: string, message: Record<string, string> | undefined): Promise<void> {
  const { messageRows } = await import('../../iso8583/message.js');
  const rows = messageRows(message ?? {});
  const renderer = ctx.output();
  if (ctx.io.stdoutIsTTY) ctx.io.out(`\n${ctx.style.bold(escapeControls(`${title} ${message?.['0'] ?? ''}`.trim()))}\n`);
  else ctx.io.out(`# ${title.toLowerCase()}\n`);
  await renderer.list(rows, [
    { header: 'Field', path: 'field' },
    { header: 'Name', path: 'name' },
    { header: 'Value', path: 'value' },
    { header: 'Meaning', path: 'meaning' },
  ], { idPath: 'field', emptyMessage: `(no ${title.toLowerCase()} message)` });
}
