// Money checks from behaviour: does a release (a reversal, a refund) give the money back? The
// handler declares nothing (no balance endpoint, no rules): the sandbox finds what it approves for
// the test card by asking an amount and halving it until approved (a partial approval, 10, says
// it at once), holds that, sends the release, and asks the same again. When a larger amount was
// declined first, the held amount is more than half of what the handler would approve: without
// the money back, asking it again is declined. A handler that approved the first, largest amount
// shows no limit, and the money is not graded (the reason says so).
import type { SimulateResult } from '../api/schemas.js';
import { isApproved, responseMessage } from '../iso8583/codes.js';
import { PARTIAL_APPROVAL_CODE } from '../webhook-protocol/reply.js';
import type { CheckContext } from './context.js';
import { evidenceOf, fail, gradeReply, pass, skip, unusableAnswer, type Verdict } from './grade.js';

/** The first amount asked, minor units of the card's currency (566, two decimals): 10,000,000.00. */
export const PROBE_START_MINOR = 1_000_000_000;
const MINOR_PER_MAJOR = 100;

/** Minor units as the major-unit amount the sandbox's API takes. */
export const major = (minor: number) => minor / MINOR_PER_MAJOR;
/** Minor units as shown: 150.00. */
export const shown = (minor: number) => (minor / MINOR_PER_MAJOR).toFixed(2);

const codeText = (code: string) => `${code} (${responseMessage(code)})`;

/** Money the handler approved and holds (or took, for a purchase), found by halving. */
export interface Hold {
  result: SimulateResult;
  minor: number;
  /** A larger amount was declined (or only partly approved) first: asking this again fails while it is held. */
  limited: boolean;
}

/** Whether a check's step ended in a verdict (rather than giving what the next step needs). */
export const isVerdict = (value: unknown): value is Verdict => typeof value === 'object' && value !== null && 'verdict' in value;

/**
 * `result` when the webhook approved it; else the verdict of the check that needed `what`: failed
 * (an unusable answer, or a decline), or skipped when the rules file gives that decline as the
 * handler's policy.
 */
export function approvedBy(what: string, result: SimulateResult, deadlineMs: number, declinesByPolicy: (code: string) => boolean = () => false): SimulateResult | Verdict {
  if (result.webhook && !result.webhook.failure && !result.standIn && isApproved(result.responseCode)) return result;
  const why = unusableAnswer(result);
  const evidence = [evidenceOf(result)];
  if (why) return fail(`needs ${what}; the handler's answer was not one (${gradeReply(result, { deadlineMs }).reason})`, evidence);
  if (declinesByPolicy(result.responseCode)) return skip(`needs ${what}; the handler declined it ${codeText(result.responseCode)}, its policy by the rules file`, evidence);
  return fail(`needs ${what}; the handler declined it ${codeText(result.responseCode)} (a decline that is the handler's policy goes in --rules: expect: { authorization-reply: ["${result.responseCode}"] })`, evidence);
}

/** An approved authorization (or purchase) of the largest amount the handler approves of those asked, halving from PROBE_START_MINOR. */
export async function heldAmount(ctx: CheckContext, kind: 'authorization' | 'purchase'): Promise<Hold | Verdict> {
  const what = kind === 'authorization' ? 'an approved authorization' : 'an approved purchase (0200)';
  let minor = PROBE_START_MINOR;
  let limited = false;
  for (;;) {
    const result = kind === 'authorization'
      ? await ctx.session.authorize(major(minor))
      : await ctx.session.simulate({ intent: 'financial', processingFlow: 'purchase', amount: major(minor), cardId: ctx.session.cardId });
    if (unusableAnswer(result)) return approvedBy(what, result, ctx.deadlineMs) as Verdict;
    if (result.responseCode === PARTIAL_APPROVAL_CODE && /^\d{12}$/.test(result.response['4'] ?? '')) {
      return { result, minor: Number(result.response['4']), limited: true };
    }
    if (isApproved(result.responseCode)) return { result, minor, limited };
    if (minor === 1 || ctx.signal.aborted) {
      const verdict = approvedBy(what, result, ctx.deadlineMs, ctx.declinesByPolicy) as Verdict;
      return { ...verdict, reason: `${verdict.reason}; every amount from ${shown(PROBE_START_MINOR)} down to ${shown(minor)} was declined` };
    }
    limited = true;
    minor = Math.max(1, Math.floor(minor / 2));
  }
}

/** A full reversal of `minor` of an approved message (the release the money checks end with, or one they need). */
export const reverse = (ctx: CheckContext, original: SimulateResult, minor: number) =>
  ctx.session.simulate({ intent: 'reversal', processingFlow: 'purchase', amount: major(minor), originalTransactionId: original.transactionId });

/**
 * After `released` (a check's reply, already graded valid), whether the money came back: `askMinor`
 * is asked again and must be approved in full. Then that approval is reversed, so the next check
 * finds the card as it was.
 */
export async function moneyBack(ctx: CheckContext, released: Verdict, hold: Hold, askMinor: number, what: string): Promise<Verdict> {
  if (!hold.limited) return pass(`${released.reason}; money not graded: the handler approved ${shown(hold.minor)} at once, so no limit shows whether it came back`, released.evidence);
  const again = await ctx.session.authorize(major(askMinor));
  const evidence = [...released.evidence, evidenceOf(again)];
  const why = unusableAnswer(again);
  if (why) return fail(`after ${what}, asking ${shown(askMinor)} again got no valid answer: ${why}`, evidence);
  const approvedMinor = again.responseCode === PARTIAL_APPROVAL_CODE ? Number(again.response['4'] ?? '0') : isApproved(again.responseCode) ? askMinor : 0;
  if (approvedMinor > 0) await reverse(ctx, again, approvedMinor);
  if (approvedMinor === askMinor) return pass(`${released.reason}; then ${shown(askMinor)} was approved again: the money came back`, evidence);
  return fail(`after ${what}, an authorization of ${shown(askMinor)} was ${approvedMinor > 0 ? `approved for ${shown(approvedMinor)} only` : `declined ${codeText(again.responseCode)}`}: the money did not come back (${shown(hold.minor)} was the most approved, a larger amount declined)`, evidence);
}
