// The certification's checks, each named, with what it proves and how it is run against the
// sandbox; graded (grade.ts) from what the sandbox recorded of the exchange, never from the
// handler's own account of it.
import type { SimulateResult } from '../api/schemas.js';
import { isApproved } from '../iso8583/codes.js';
import { SIGNATURE_FAULTS, type SignatureFault } from '../webhook-protocol/signature-faults.js';
import { fail, gradeAcknowledged, gradeDuplicate, gradePartial, gradeRefusal, gradeReply, gradeRepeat, skip, type Verdict } from './grade.js';
import { runLatency } from './latency.js';
import type { Check, CheckContext } from './context.js';

const REFUSALS: Record<SignatureFault, { name: string; what: string; proves: string }> = {
  'wrong-secret': { name: 'refuse-wrong-secret', what: 'a message signed with another secret', proves: 'a message signed with another secret is not approved' },
  'stale-past': { name: 'refuse-stale-past', what: 'a message whose signature timestamp is past the tolerance', proves: 'a signature timestamped beyond the 300 s tolerance in the past is not approved' },
  'stale-future': { name: 'refuse-stale-future', what: 'a message whose signature timestamp is in the future beyond the tolerance', proves: 'a signature timestamped beyond the 300 s tolerance in the future is not approved' },
  missing: { name: 'refuse-missing-signature', what: 'a message with no signature', proves: 'a message without signature headers is not approved' },
  tampered: { name: 'refuse-tampered-body', what: 'a message whose body was changed after signing', proves: 'a message whose amount (field 4) was changed after signing is not approved' },
};

/** `result` when the webhook approved it, else the verdict that the check needing `what` is skipped, saying why. */
export function approvedBy(what: string, result: SimulateResult, deadlineMs: number): SimulateResult | Verdict {
  if (result.webhook && !result.webhook.failure && !result.standIn && isApproved(result.responseCode)) return result;
  const reply = gradeReply(result, { deadlineMs });
  return skip(`needs ${what}; the handler's answer was not one (${reply.reason})`, reply.evidence);
}

/** An authorization the webhook approved, or the verdict that the check depending on it is skipped. */
const approvedAuthorization = async (ctx: CheckContext, amount: number) => approvedBy('an approved authorization', await ctx.session.authorize(amount), ctx.deadlineMs);

const isVerdict = (value: SimulateResult | Verdict): value is Verdict => 'verdict' in value;

const reply = (ctx: CheckContext, name: string, result: SimulateResult) => gradeReply(result, { deadlineMs: ctx.deadlineMs, expect: ctx.expect(name) });

/** A check of a message linked to an approved authorization of `amount`: a valid reply to it. */
function linkedReply(name: string, proves: string, amount: number, send: (ctx: CheckContext, original: SimulateResult) => Promise<SimulateResult>): Check {
  return {
    name,
    proves,
    ruled: true,
    async run(ctx) {
      const original = await approvedAuthorization(ctx, amount);
      if (isVerdict(original)) return original;
      return reply(ctx, name, await send(ctx, original));
    },
  };
}

/** A message the webhook acknowledges: its delivery, then the sandbox's retries, within the window. */
async function acknowledged(ctx: CheckContext, id: string): Promise<Verdict> {
  const tx = await ctx.session.waitFor(id, (t) => t.advice?.acknowledged === true, ctx.windowMs);
  return gradeAcknowledged(tx, ctx.windowMs);
}

const reversal = (ctx: CheckContext, original: SimulateResult, amount: number) =>
  ctx.session.simulate({ intent: 'reversal', processingFlow: 'purchase', amount, originalTransactionId: original.transactionId });

export const CHECKS: readonly Check[] = [
  {
    name: 'authorization-reply',
    ruled: true,
    proves: 'an authorization (0100) gets a valid reply: MTI 0110, field 39, the echoed fields, within the deadline (a decline is valid)',
    run: async (ctx) => reply(ctx, 'authorization-reply', await ctx.session.authorize(10)),
  },
  ...SIGNATURE_FAULTS.map((fault): Check => ({
    name: REFUSALS[fault].name,
    proves: REFUSALS[fault].proves,
    run: async (ctx) => {
      const control = await ctx.session.authorize(11);
      return gradeRefusal(await ctx.session.withFaults(`signature=${fault}`, () => ctx.session.authorize(11)), REFUSALS[fault].what, control);
    },
  })),
  {
    name: 'duplicate-delivery',
    proves: 'one message delivered twice gets the same valid answer both times (fields 39, 38, 4)',
    async run(ctx) {
      const result = await ctx.session.withFaults('duplicate=1', () => ctx.session.authorize(12));
      return gradeDuplicate(result, await ctx.session.transaction(result.transactionId));
    },
  },
  {
    name: 'repeat-authorization',
    proves: 'a repeat (0101) is answered 0110 with the first answer (fields 39, 38, 4)',
    async run(ctx) {
      const original = await ctx.session.authorize(13);
      if (!original.webhook || original.webhook.failure) return skip(`needs a replied authorization (${original.webhook?.failure ?? 'not sent'})`);
      await ctx.session.repeat(original.transactionId);
      return gradeRepeat(await ctx.session.transaction(original.transactionId));
    },
  },
  {
    name: 'repeat-reversal',
    proves: 'a repeated reversal (0421) is answered 0430 with the first answer (fields 39, 38, 4)',
    async run(ctx) {
      const original = await approvedAuthorization(ctx, 14);
      if (isVerdict(original)) return original;
      const first = await reversal(ctx, original, 14);
      if (!first.webhook || first.webhook.failure) return skip(`needs a replied reversal (${first.webhook?.failure ?? 'not sent'})`);
      await ctx.session.repeat(first.transactionId);
      return gradeRepeat(await ctx.session.transaction(first.transactionId));
    },
  },
  {
    name: 'partial-approval',
    proves: 'a partial approval (10), when the handler gives one, carries a field 4 above 0 and at most the amount asked (skipped when it never does)',
    run: async (ctx) => gradePartial(await ctx.session.authorize(2_000)),
  },
  linkedReply('increment', 'an increment (0100 raising a hold) gets a valid reply', 50, (ctx, original) =>
    ctx.session.lifecycleMessage({ message: 'increment', originalTransactionId: original.transactionId, amount: 10 })),
  linkedReply('completion-partial', 'a completion (0220) of less than authorized gets a valid reply', 50, (ctx, original) =>
    ctx.session.lifecycleMessage({ message: 'completion', originalTransactionId: original.transactionId, amount: 30 })),
  linkedReply('completion-over', 'a completion (0220) of more than authorized gets a valid reply', 50, (ctx, original) =>
    ctx.session.lifecycleMessage({ message: 'completion', originalTransactionId: original.transactionId, amount: 55 })),
  {
    name: 'refund',
    ruled: true,
    proves: 'a refund (0200, processing code 20) of a purchase gets a valid reply',
    async run(ctx) {
      const purchase = approvedBy('an approved purchase (0200)', await ctx.session.simulate({ intent: 'financial', processingFlow: 'purchase', amount: 20, cardId: ctx.session.cardId }), ctx.deadlineMs);
      if (isVerdict(purchase)) return purchase;
      return reply(ctx, 'refund', await ctx.session.lifecycleMessage({ message: 'refund', originalTransactionId: purchase.transactionId, amount: 5 }));
    },
  },
  linkedReply('reversal-full', 'a full reversal (0420) gets a valid reply', 30, (ctx, original) => reversal(ctx, original, 30)),
  linkedReply('reversal-partial', 'a partial reversal (0420 of part of the amount) gets a valid reply', 30, (ctx, original) => reversal(ctx, original, 10)),
  {
    name: 'advice-0120',
    proves: 'an authorization advice (0120: the network decided) is acknowledged within the retry window',
    async run(ctx) {
      const advice = await ctx.session.lifecycleMessage({ message: 'advice', cardId: ctx.session.cardId, amount: 15 });
      return acknowledged(ctx, advice.transactionId);
    },
  },
  {
    name: 'advice-0220',
    proves: 'a completion advice (0220) is acknowledged within the retry window',
    async run(ctx) {
      const original = await approvedAuthorization(ctx, 16);
      if (isVerdict(original)) return original;
      const completion = await ctx.session.lifecycleMessage({ message: 'completion', originalTransactionId: original.transactionId, amount: 16 });
      return acknowledged(ctx, completion.transactionId);
    },
  },
  {
    name: 'stand-in-advice',
    proves: 'after a timeout the network stands in and approves; its advice (0120, field 44 timeout) is acknowledged within the retry window',
    async run(ctx) {
      await ctx.session.setStandIn('approve');
      try {
        const original = await ctx.session.withFaults('delay=50ms,deadline=10ms', () => ctx.session.authorize(17));
        if (!original.standIn || !isApproved(original.standIn.decision)) return fail(`the network did not stand in (answered ${original.responseCode}); the sandbox could not set up the check`);
        const advice = await ctx.session.linkedMessage(original.transactionId, 'stand-in-advice', ctx.windowMs);
        if (!advice) return fail('the sandbox recorded no stand-in advice');
        return await acknowledged(ctx, advice);
      } finally {
        await ctx.session.setStandIn('decline');
      }
    },
  },
  {
    name: 'advice-before-original',
    ruled: true,
    proves: 'an advice (0120) that arrives before its late original is acknowledged, and the original (same STAN and RRN) still gets a valid reply',
    async run(ctx) {
      const stan = String(100_000 + (ctx.session.target.seed % 900_000)).padStart(6, '0');
      const overrides = { '11': stan, '37': `9${stan}00000` };
      const advice = await ctx.session.lifecycleMessage({ message: 'advice', cardId: ctx.session.cardId, amount: 18, overrides });
      const ack = await acknowledged(ctx, advice.transactionId);
      if (ack.verdict !== 'pass') return ack;
      const original = reply(ctx, 'advice-before-original', await ctx.session.authorize(18, { overrides }));
      return { ...original, reason: `${ack.reason}; then the original: ${original.reason}`, evidence: [...ack.evidence, ...original.evidence] };
    },
  },
  {
    name: 'timeout-reversal',
    proves: 'when the reply to an approval is lost the network reverses it (0420, a timeout reversal), and that reversal is acknowledged within the retry window',
    async run(ctx) {
      const original = await ctx.session.withFaults('reply-lost=1', () => ctx.session.authorize(19));
      const reversalId = await ctx.session.linkedMessage(original.transactionId, 'timeout-reversal', ctx.windowMs);
      if (!reversalId) return skip('the handler did not approve the message whose reply was lost: there was nothing to reverse');
      return acknowledged(ctx, reversalId);
    },
  },
  {
    name: 'latency',
    proves: 'at a modest rate for a short while (default 5/s for 3 s), every authorization is answered and the p99 latency is under the deadline',
    run: (ctx) => runLatency(ctx),
  },
];

export const CHECK_NAMES: readonly string[] = CHECKS.map((check) => check.name);
/** The checks a rules file may name: those graded on a reply's response code. */
export const RULED_CHECK_NAMES: readonly string[] = CHECKS.filter((check) => check.ruled).map((check) => check.name);
