// The certification's checks, each named, with what it proves and how it is run against the
// sandbox; graded (grade.ts) from what the sandbox recorded of the exchange, never from the
// handler's own account of it.
import { randomBytes } from 'node:crypto';
import type { SimulateResult } from '../api/schemas.js';
import { isApproved } from '../iso8583/codes.js';
import { SIGNATURE_FAULTS, type SignatureFault } from '../webhook-protocol/signature-faults.js';
import { newStandardSecret } from '../webhook-protocol/signature.js';
import { approvedBy, heldAmount, isVerdict, major, moneyBack, reverse, shown } from './funds.js';
import { fail, gradeAcknowledged, gradeDuplicate, gradePartial, gradeRefusal, gradeReply, gradeRepeat, gradeRotation, skip, type AnswerPair, type Verdict } from './grade.js';
import { runLatency } from './latency.js';
import type { Check, CheckContext } from './context.js';

const REFUSALS: Record<SignatureFault, { name: string; what: string; proves: string }> = {
  'wrong-secret': { name: 'refuse-wrong-secret', what: 'a message signed with another secret', proves: 'a message signed with another secret is not approved' },
  'stale-past': { name: 'refuse-stale-past', what: 'a message whose signature timestamp is past the tolerance', proves: 'a signature timestamped beyond the 300 s tolerance in the past is not approved' },
  'stale-future': { name: 'refuse-stale-future', what: 'a message whose signature timestamp is in the future beyond the tolerance', proves: 'a signature timestamped beyond the 300 s tolerance in the future is not approved' },
  missing: { name: 'refuse-missing-signature', what: 'a message with no signature', proves: 'a message without signature headers is not approved' },
  tampered: { name: 'refuse-tampered-body', what: 'a message whose body was changed after signing', proves: 'a message whose amount (field 4) was changed after signing is not approved' },
};

/** An authorization the webhook approved, or the verdict of the check depending on it (failed, or skipped by the rules' policy). */
const approvedAuthorization = async (ctx: CheckContext, amount: number) =>
  approvedBy('an approved authorization', await ctx.session.authorize(amount), ctx.deadlineMs, ctx.declinesByPolicy);

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

/** The bodies of a message's first answer and of its latest other delivery of `kind` (a duplicate, a repeat), from the exchange log. */
async function twoAnswers(ctx: CheckContext, transactionId: string, second: (kind: string) => boolean): Promise<AnswerPair> {
  const exchanges = (await ctx.session.exchangesOf(transactionId)).filter((exchange) => exchange.transactionId === transactionId);
  const first = exchanges.find((exchange) => !second(exchange.kind));
  const other = exchanges.filter((exchange) => exchange !== first && (second(exchange.kind) || exchange.kind === first?.kind)).at(-1);
  return [first?.response?.body, other?.response?.body];
}

/** Another secret of the scheme's form, for the second signature of a rotation window when no retired secret is given. */
const otherSecret = (scheme: string) => (scheme === 'standard-webhooks' ? newStandardSecret() : randomBytes(24).toString('hex'));

/** A message the webhook acknowledges: its delivery, then the sandbox's retries, within the window. */
async function acknowledged(ctx: CheckContext, id: string): Promise<Verdict> {
  const tx = await ctx.session.waitFor(id, (t) => t.advice?.acknowledged === true, ctx.windowMs);
  return gradeAcknowledged(tx, ctx.windowMs);
}

const reversal = (ctx: CheckContext, original: SimulateResult, amount: number) =>
  ctx.session.simulate({ intent: 'reversal', processingFlow: 'purchase', amount, originalTransactionId: original.transactionId });

/** A release graded on its reply, then on the money (funds.ts): `release` sends it for the hold found. */
function releaseCheck(name: string, proves: string, kind: 'authorization' | 'purchase', release: (ctx: CheckContext, hold: { result: SimulateResult; minor: number }) => Promise<{ sent: SimulateResult; askMinor: number; what: string }>): Check {
  return {
    name,
    proves,
    ruled: true,
    async run(ctx) {
      const hold = await heldAmount(ctx, kind);
      if (isVerdict(hold)) return hold;
      const released = await release(ctx, hold);
      const replied = reply(ctx, name, released.sent);
      if (replied.verdict !== 'pass') return replied;
      // A declined release keeps the money: a failure, unless the rules file expects that decline (then there is no money to see come back).
      const code = released.sent.responseCode;
      if (!isApproved(code)) return ctx.expect(name)?.includes(code) ? replied : fail(`${released.what} was declined ${code}: the money stays held`, replied.evidence);
      return moneyBack(ctx, replied, hold, released.askMinor, released.what);
    },
  };
}

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
    name: 'rotation-two-signatures',
    proves: "during a secret rotation a message signed with both the new and the previous secret (two v1 signatures, either one the handler's) gets the answer its twin signed once got",
    async run(ctx) {
      const { secret, retiredSecret, scheme } = ctx.session.target;
      const other = retiredSecret ?? otherSecret(scheme);
      const control = await ctx.session.authorize(20);
      const twice: SimulateResult[] = [];
      try {
        await ctx.session.signWith([secret, other]);
        twice.push(await ctx.session.authorize(20));
        await ctx.session.signWith([other, secret]);
        twice.push(await ctx.session.authorize(20));
      } finally {
        await ctx.session.signWith([secret]);
      }
      return gradeRotation(control, twice);
    },
  },
  {
    name: 'refuse-retired-secret',
    proves: 'after a rotation window closed, a message signed only with the retired secret (CARDCTL_WEBHOOK_PREVIOUS_SECRET, or --previous-secret-stdin) is not approved (skipped when none is given)',
    async run(ctx) {
      const { secret, retiredSecret } = ctx.session.target;
      if (!retiredSecret) return skip('no retired secret given (CARDCTL_WEBHOOK_PREVIOUS_SECRET, or --previous-secret-stdin): nothing to refuse');
      const control = await ctx.session.authorize(21);
      let retired: SimulateResult;
      try {
        await ctx.session.signWith([retiredSecret]);
        retired = ctx.session.expectRefusal(await ctx.session.authorize(21));
      } finally {
        await ctx.session.signWith([secret]);
      }
      return gradeRefusal(retired, 'a message signed only with the retired secret', control);
    },
  },
  {
    name: 'duplicate-delivery',
    proves: 'one message delivered twice gets the same valid answer both times (fields 39, 38, 4)',
    async run(ctx) {
      const result = await ctx.session.withFaults('duplicate=1', () => ctx.session.authorize(12));
      const tx = await ctx.session.transaction(result.transactionId);
      return gradeDuplicate(result, tx, tx.repeats?.[0]?.agreed === false ? await twoAnswers(ctx, result.transactionId, () => false) : undefined);
    },
  },
  {
    name: 'repeat-authorization',
    proves: 'a repeat (0101) is answered 0110 with the first answer (fields 39, 38, 4)',
    async run(ctx) {
      const original = await ctx.session.authorize(13);
      if (!original.webhook || original.webhook.failure) return fail(`needs a replied authorization (${original.webhook?.failure ?? 'not sent'})`);
      await ctx.session.repeat(original.transactionId);
      const tx = await ctx.session.transaction(original.transactionId);
      return gradeRepeat(tx, await twoAnswers(ctx, original.transactionId, (kind) => kind.endsWith('-repeat')));
    },
  },
  {
    name: 'repeat-reversal',
    proves: 'a repeated reversal (0421) is answered 0430 with the first answer (fields 39, 38, 4)',
    async run(ctx) {
      const original = await approvedAuthorization(ctx, 14);
      if (isVerdict(original)) return original;
      const first = await reversal(ctx, original, 14);
      if (!first.webhook || first.webhook.failure) return fail(`needs a replied reversal (${first.webhook?.failure ?? 'not sent'})`);
      await ctx.session.repeat(first.transactionId);
      const tx = await ctx.session.transaction(first.transactionId);
      return gradeRepeat(tx, await twoAnswers(ctx, first.transactionId, (kind) => kind.endsWith('-repeat')));
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
  releaseCheck('refund', 'a refund (0200, processing code 20) of a purchase gets a valid reply and gives the money back: the amount refunded is approved again', 'purchase', async (ctx, hold) => ({
    sent: await ctx.session.lifecycleMessage({ message: 'refund', originalTransactionId: hold.result.transactionId, amount: major(hold.minor) }),
    askMinor: hold.minor,
    what: `the refund of ${shown(hold.minor)}`,
  })),
  releaseCheck('reversal-full', 'a full reversal (0420) gets a valid reply and gives the money back: the amount released is approved again', 'authorization', async (ctx, hold) => ({
    sent: await reverse(ctx, hold.result, hold.minor),
    askMinor: hold.minor,
    what: `the full reversal of ${shown(hold.minor)}`,
  })),
  releaseCheck('reversal-partial', 'a partial reversal (0420 of part of the amount) gets a valid reply and gives that part back: it is approved again', 'authorization', async (ctx, hold) => {
    // All but one minor unit: asked again, it needs the released money whenever the hold was more than half of what the handler approves.
    const part = Math.max(1, hold.minor - 1);
    return { sent: await reverse(ctx, hold.result, part), askMinor: part, what: `the partial reversal of ${shown(part)} of ${shown(hold.minor)}` };
  }),
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
      // A STAN and RRN no run has used: a handler that remembers them must not answer from another run's record.
      const overrides = ctx.session.freshNumbers();
      const advice = await ctx.session.lifecycleMessage({ message: 'advice', cardId: ctx.session.cardId, amount: 18, overrides });
      const ack = await acknowledged(ctx, advice.transactionId);
      if (ack.verdict !== 'pass') return ack;
      const original = reply(ctx, 'advice-before-original', await ctx.session.authorize(18, { overrides }));
      return { ...original, reason: `${ack.reason}; then the original: ${original.reason}`, evidence: [...ack.evidence, ...original.evidence] };
    },
  },
  {
    name: 'timeout-reversal',
    proves: 'when the reply to an approval is lost the network reverses it (0420, a timeout reversal); that reversal is acknowledged within the retry window and gives the money back',
    async run(ctx) {
      // The amount found, held then released by a full reversal, is asked again with its reply lost.
      const hold = await heldAmount(ctx, 'authorization');
      if (isVerdict(hold)) return hold;
      await reverse(ctx, hold.result, hold.minor);
      const original = await ctx.session.withFaults('reply-lost=1', () => ctx.session.authorize(major(hold.minor)));
      const reversalId = await ctx.session.linkedMessage(original.transactionId, 'timeout-reversal', ctx.windowMs);
      if (!reversalId) {
        return fail(`the handler did not approve the authorization of ${shown(hold.minor)} whose reply was lost (it had approved that amount before, and a full reversal released it): there was nothing to reverse`);
      }
      const acknowledgedReversal = await acknowledged(ctx, reversalId);
      if (acknowledgedReversal.verdict !== 'pass') return acknowledgedReversal;
      return moneyBack(ctx, acknowledgedReversal, hold, hold.minor, `the timeout reversal of ${shown(hold.minor)}`);
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
