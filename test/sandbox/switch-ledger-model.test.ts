// Model-based property test of the switch's ledger (src/sandbox/switch/ledger.ts): random
// sequences of lifecycle messages — authorizations and purchases, increments, completions
// (partial and over), partial and full reversals, refunds, reversals of refunds, expiry — in
// currencies of three exponents (NGN 2, JPY 0, BHD 3), against a plain in-memory model of each
// original's amounts. The switch is driven in-process (its service functions on the sandbox's
// store). After every step the stored amounts must equal the model's and satisfy the ledger's
// invariants, and the card's daily usage per currency must be what the model holds.
//
// Sequentially (stub mode) the model also predicts which messages are accepted. Concurrently,
// batches of messages run in parallel in forward mode against a webhook that approves after a
// random number of event-loop turns, so their answers interleave; the model then follows the
// answers, and the same checks hold after each batch.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/sandbox/errors.js';
import { buildResponse } from '../../src/webhook-protocol/reply.js';
import { checkInvariants } from '../../src/sandbox/switch/ledger.js';
import type { SwitchDeps } from '../../src/sandbox/switch/deps.js';
import { expireHold } from '../../src/sandbox/switch/expiry.js';
import { simulate, simulateLifecycle } from '../../src/sandbox/switch/simulate.js';
import { switchStore } from '../../src/sandbox/switch/store.js';
import type { WebhookOutcome } from '../../src/sandbox/switch/webhook.js';
import { startTestSandbox, type Sandbox } from './helpers.js';
import { cardOf, createProgram } from './switch-helpers.js';

const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 20261127);

const CURRENCIES = [{ code: '566', digits: 2 }, { code: '392', digits: 0 }, { code: '048', digits: 3 }] as const;
type Currency = (typeof CURRENCIES)[number];

interface RefundModel { id: string; amount: number; reversed: number }
interface OriginalModel {
  id: string;
  kind: 'authorization' | 'financial';
  flow: 'purchase' | 'cash_withdrawal';
  currency: Currency;
  state: 'approved' | 'reversed' | 'completed';
  authorized: number;
  released: number;
  captured: number;
  refunded: number;
  refunds: RefundModel[];
}
interface Model { originals: OriginalModel[] }

interface Real {
  deps: SwitchDeps;
  day: Date;
  /** The card's daily usage per currency before this run. */
  baseline: Map<string, bigint>;
  /** forward: the messages go to the (fake) webhook, and their answers interleave. */
  forward: boolean;
}

let sb: Sandbox;
let cardId = '';
let institutionId = '';
let runs = 0;

/**
 * The fake webhook: after `turns()` event-loop turns, approves (00), approves half (10, field 4
 * halved) or declines (05) as `answer()` says; an advice is acknowledged whatever it answers.
 */
let turns: () => number = () => 0;
let answer: () => '00' | '10' | '05' = () => '00';
async function approveLater(_config: unknown, request: Record<string, string>): Promise<WebhookOutcome> {
  for (let i = turns(); i > 0; i--) await new Promise((resolve) => setImmediate(resolve));
  const code = answer();
  const requested = BigInt(request['4'] ?? '0');
  if (code === '10' && requested >= 2n) return { ok: true, status: 200, reply: { ...buildResponse(request, '10', '000001'), '4': String(requested / 2n).padStart(12, '0') } };
  return { ok: true, status: 200, reply: buildResponse(request, code === '10' ? '00' : code, '000001') };
}

beforeAll(async () => {
  sb = await startTestSandbox();
  institutionId = sb.institutionId;
  const none = { enabled: true, dailyLimit: { count: 0, amount: 0 } };
  const program = await createProgram(sb, { channels: { pos: none, atm: none, web: none }, webHookConfig: { url: 'http://127.0.0.1:9/never-called' } });
  cardId = (await cardOf(sb, program.id)).id;
}, 30_000);
afterAll(async () => { await sb?.close(); });

const major = (minor: number, c: Currency) => minor / 10 ** c.digits;
const held = (o: OriginalModel) => (o.kind === 'authorization' && o.state === 'approved' ? o.authorized - o.released : 0);
const capturedOf = (o: OriginalModel) => (o.state === 'completed' ? o.captured : o.kind === 'financial' && o.state === 'approved' ? o.authorized - o.released : 0);
const reversible = (o: OriginalModel) => (o.state === 'approved' ? o.authorized - o.released - o.refunded : 0);

type Outcome = { accepted: boolean; code?: string; id?: string; field4?: string };

/**
 * An amount drawn relative to what the target allows (so the edges are hit often): one of the
 * step's caps (what the ledger allows, and looser sums a broken rule would allow), a share of it,
 * one more or one less, or an absolute amount.
 */
interface AmountSpec { cap: number; percent: number; delta: number; absolute: number }
const amountSpec: fc.Arbitrary<AmountSpec> = fc.record({
  cap: fc.nat({ max: 3 }), percent: fc.oneof(fc.constant(100), fc.integer({ min: 0, max: 100 })), delta: fc.constantFrom(-1, 0, 0, 0, 1), absolute: fc.integer({ min: 0, max: 5_000 }),
});
function amountOf(spec: AmountSpec, caps: number[]): number {
  if (spec.cap >= caps.length) return spec.absolute;
  return Math.max(0, Math.floor((caps[spec.cap]! * spec.percent) / 100) + spec.delta);
}

/** What was approved: the answer's field 4 (less than asked with code 10), else what was asked. */
const approvedOf = (o: Outcome, asked: number) => (o.field4 !== undefined ? Number(o.field4) : asked);

async function outcome(work: () => Promise<{ data: { responseCode: string; transactionId: string; response?: Record<string, string> } }>): Promise<Outcome> {
  try {
    const answer = await work();
    const field4 = answer.data.response?.['4'];
    const approved = answer.data.responseCode === '00' || answer.data.responseCode === '10';
    return { accepted: approved, code: answer.data.responseCode, id: answer.data.transactionId, ...(field4 ? { field4 } : {}) };
  } catch (error) {
    // Refusals are domain errors (400 invalid, 409 conflict); anything else is a bug.
    if (!(error instanceof DomainError) || !['invalid', 'conflict'].includes(error.problem)) throw error;
    return { accepted: false };
  }
}

function mode(real: Real) {
  return real.forward ? 'forward' as const : 'stub' as const;
}

/** One message, applied to the model when the switch approved it; `predict` says whether the model expects that. */
interface Step {
  describe: string;
  predict: (m: Model) => boolean;
  send: (m: Model, real: Real) => Promise<Outcome>;
  apply: (m: Model, o: Outcome) => void;
}

function pick<T>(list: T[], index: number): T | undefined {
  return list.length === 0 ? undefined : list[index % list.length];
}

function originalStep(kind: 'authorization' | 'financial', flow: 'purchase' | 'cash_withdrawal', currency: Currency, minor: number): Step {
  return {
    describe: `${kind} ${flow} ${major(minor, currency)} ${currency.code}`,
    predict: () => true,
    send: (_m, real) => outcome(() => simulate(real.deps, institutionId, {
      intent: kind, processingFlow: flow, amount: major(minor, currency), currency: currency.code, cardId, channel: flow === 'purchase' ? 'pos' : 'atm', responseMode: mode(real),
    })),
    apply: (m, o) => {
      if (!o.accepted) return;
      m.originals.push({ id: o.id!, kind, flow, currency, state: 'approved', authorized: approvedOf(o, minor), released: 0, captured: 0, refunded: 0, refunds: [] });
    },
  };
}

function linkedStep(name: 'increment' | 'completion' | 'refund', index: number, spec: AmountSpec): Step {
  let target: OriginalModel | undefined;
  let minor = 0;
  const caps = (o: OriginalModel) => name === 'increment' ? [o.authorized]
    : name === 'completion' ? [held(o) + Math.floor((held(o) * 20) / 100), held(o), o.authorized]
      : [capturedOf(o) - o.refunded, capturedOf(o), o.authorized];
  return {
    describe: `${name} #${index} ${JSON.stringify(spec)}`,
    predict: (m) => {
      const o = (target = pick(m.originals, index));
      if (!o) return false;
      minor = amountOf(spec, caps(o));
      if (minor <= 0) return false;
      if (name === 'increment') return o.kind === 'authorization' && o.state === 'approved';
      if (name === 'completion') return o.kind === 'authorization' && o.state === 'approved' && minor <= held(o) + Math.floor((held(o) * 20) / 100);
      return o.flow === 'purchase' && capturedOf(o) > 0 && minor <= capturedOf(o) - o.refunded;
    },
    send: async (m, real) => {
      const o = (target = pick(m.originals, index));
      if (!o) return { accepted: false };
      minor = amountOf(spec, caps(o));
      return outcome(() => simulateLifecycle(real.deps, institutionId, { message: name, originalTransactionId: o.id, amount: major(minor, o.currency), responseMode: mode(real) }));
    },
    apply: (_m, out) => {
      const o = target;
      if (!o || !out.accepted) return;
      if (name === 'increment') o.authorized += approvedOf(out, minor);
      else if (name === 'completion') {
        o.released += Math.max(0, held(o) - minor);
        o.captured = minor;
        o.state = 'completed';
      } else {
        o.refunded += approvedOf(out, minor);
        o.refunds.push({ id: out.id!, amount: approvedOf(out, minor), reversed: 0 });
      }
    },
  };
}

function reversalStep(index: number, spec: AmountSpec): Step {
  let target: OriginalModel | undefined;
  let amount = 0;
  const caps = (o: OriginalModel) => [reversible(o), o.authorized - o.released, o.authorized];
  return {
    describe: `reversal #${index} ${JSON.stringify(spec)}`,
    predict: (m) => {
      const o = (target = pick(m.originals, index));
      if (!o) return false;
      amount = amountOf(spec, caps(o));
      return o.state === 'approved' && amount > 0 && amount <= reversible(o);
    },
    send: async (m, real) => {
      const o = (target = pick(m.originals, index));
      if (!o) return { accepted: false };
      amount = amountOf(spec, caps(o));
      return outcome(() => simulate(real.deps, institutionId, { intent: 'reversal', processingFlow: 'purchase', amount: major(amount, o.currency), originalTransactionId: o.id, responseMode: mode(real) }));
    },
    apply: (_m, out) => {
      const o = target;
      if (!o || !out.accepted) return;
      o.released += approvedOf(out, amount);
      if (o.released >= o.authorized) o.state = 'reversed';
    },
  };
}

function refundReversalStep(index: number, spec: AmountSpec): Step {
  let owner: OriginalModel | undefined;
  let target: RefundModel | undefined;
  let minor = 0;
  const find = (m: Model) => {
    const refunds = m.originals.flatMap((o) => o.refunds.map((r) => ({ o, r })));
    const found = pick(refunds, index);
    owner = found?.o;
    target = found?.r;
    minor = target ? amountOf(spec, [target.amount - target.reversed, target.amount]) : 0;
  };
  return {
    describe: `reversal of refund #${index} ${JSON.stringify(spec)}`,
    predict: (m) => { find(m); return Boolean(target) && minor > 0 && minor <= target!.amount - target!.reversed; },
    send: async (m, real) => {
      find(m);
      if (!target) return { accepted: false };
      const id = target.id;
      return outcome(() => simulate(real.deps, institutionId, { intent: 'reversal', processingFlow: 'refund', amount: major(minor, owner!.currency), originalTransactionId: id, responseMode: mode(real) }));
    },
    apply: (_m, out) => {
      if (!target || !out.accepted) return;
      target.reversed += approvedOf(out, minor);
      owner!.refunded -= approvedOf(out, minor);
    },
  };
}

function expiryStep(index: number): Step {
  let target: OriginalModel | undefined;
  return {
    describe: `expire #${index}`,
    predict: (m) => { const o = (target = pick(m.originals, index)); return Boolean(o) && o!.kind === 'authorization' && o!.state === 'approved'; },
    send: async (m, real) => {
      const o = (target = pick(m.originals, index));
      if (!o) return { accepted: false };
      return outcome(async () => {
        const record = expireHold(real.deps.store, institutionId, o.id, real.day);
        return { data: { responseCode: '00', transactionId: record.id } };
      });
    },
    apply: (_m, out) => {
      if (!target || !out.accepted) return;
      target.released = target.authorized;
      target.state = 'reversed';
    },
  };
}

const index = fc.nat({ max: 5 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('authorization', 'financial') as fc.Arbitrary<'authorization' | 'financial'>, fc.constantFrom('purchase', 'purchase', 'cash_withdrawal') as fc.Arbitrary<'purchase' | 'cash_withdrawal'>, fc.constantFrom(...CURRENCIES), fc.integer({ min: 1, max: 5_000 })).map(([k, f, c, a]) => originalStep(k, f, c, a)) },
  { weight: 2, arbitrary: fc.tuple(index, amountSpec).map(([i, a]) => linkedStep('increment', i, a)) },
  { weight: 2, arbitrary: fc.tuple(index, amountSpec).map(([i, a]) => linkedStep('completion', i, a)) },
  { weight: 3, arbitrary: fc.tuple(index, amountSpec).map(([i, a]) => linkedStep('refund', i, a)) },
  { weight: 3, arbitrary: fc.tuple(index, amountSpec).map(([i, a]) => reversalStep(i, a)) },
  { weight: 2, arbitrary: fc.tuple(index, amountSpec).map(([i, a]) => refundReversalStep(i, a)) },
  { weight: 1, arbitrary: index.map((i) => expiryStep(i)) },
);

/** Every approved answer's amount is the ledger's entry of that message. */
function checkAnswers(outcomes: Outcome[], real: Real): void {
  for (const o of outcomes) {
    if (!o.accepted || o.field4 === undefined) continue;
    expect(BigInt(o.field4), `answer ${o.id}`).toBe(BigInt(real.deps.store.get(institutionId, o.id!)!.amountMinor));
  }
}

/** The stored amounts equal the model's, satisfy the invariants, and the daily usage per currency is the model's. */
function checkLedger(m: Model, real: Real): void {
  const store = real.deps.store;
  for (const o of m.originals) {
    const stored = store.get(institutionId, o.id)!;
    const state = stored.state;
    expect(state === 'reversing' ? 'approved' : state, `${o.id} state`).toBe(o.state);
    expect({ authorized: stored.amountMinor, released: stored.reversedMinor, refunded: stored.refundedMinor, captured: o.state === 'completed' ? stored.capturedMinor : o.captured }, o.id)
      .toEqual({ authorized: o.authorized, released: o.released, refunded: o.refunded, captured: o.captured });
    checkInvariants(stored, stored.state);
    // Given back never passes what was captured; a hold is never negative.
    expect(o.released).toBeLessThanOrEqual(o.authorized);
    if (o.kind === 'financial') expect(o.released + o.refunded).toBeLessThanOrEqual(o.authorized);
    if (o.state === 'completed') expect(o.refunded).toBeLessThanOrEqual(o.captured);
    if (o.flow !== 'purchase') expect(o.refunded).toBe(0);
    for (const r of o.refunds) expect(store.get(institutionId, r.id)!.reversedMinor).toBe(r.reversed);
    // The refunds approved, less their reversals, are what the original counts as refunded.
    const linked = store.linked(institutionId, o.id).filter((s) => s.kind === 'refund' && s.state !== 'declined');
    expect(linked.reduce((sum, s) => sum + s.amountMinor - s.reversedMinor, 0)).toBe(o.refunded);
  }
  const day = real.day.toISOString().slice(0, 10);
  for (const currency of CURRENCIES) {
    for (const channel of ['pos', 'atm'] as const) {
      const expected = m.originals
        .filter((o) => o.currency === currency && (o.flow === 'purchase' ? 'pos' : 'atm') === channel)
        .reduce((sum, o) => sum + (o.state === 'completed' ? o.captured : o.state === 'approved' ? o.authorized - o.released : 0), 0);
      const used = store.usage(cardId, channel, day, currency.code).amountMinor - (real.baseline.get(`${channel}${currency.code}`) ?? 0n);
      expect(used, `daily usage ${channel} ${currency.code}`).toBe(BigInt(expected));
    }
  }
}

function newReal(forward: boolean): Real {
  runs += 1;
  // Each run on its own UTC day (after the card was created, within its validity): the daily
  // usage of earlier runs on a day reused by a long fuzz run is the baseline.
  const day = new Date(Date.now() + (1 + (runs % 700)) * 86_400_000);
  const store = switchStore(sb.deps.store);
  const baseline = new Map<string, bigint>();
  for (const currency of CURRENCIES) {
    for (const channel of ['pos', 'atm'] as const) baseline.set(`${channel}${currency.code}`, store.usage(cardId, channel, day.toISOString().slice(0, 10), currency.code).amountMinor);
  }
  return { deps: { store, now: () => day, callWebhook: approveLater as SwitchDeps['callWebhook'] }, day, baseline, forward };
}

class One implements fc.AsyncCommand<Model, Real> {
  constructor(readonly step: Step) {}
  check = () => true;
  async run(m: Model, real: Real): Promise<void> {
    const expected = this.step.predict(m);
    const got = await this.step.send(m, real);
    expect(got.accepted, `${this.step.describe}: ${JSON.stringify(got)}`).toBe(expected);
    this.step.apply(m, got);
    checkAnswers([got], real);
    checkLedger(m, real);
  }
  toString = () => this.step.describe;
}

class Batch implements fc.AsyncCommand<Model, Real> {
  constructor(readonly steps: Step[], readonly delays: number[], readonly answers: Array<'00' | '10' | '05'>) {}
  check = () => true;
  async run(m: Model, real: Real): Promise<void> {
    let nextTurn = 0;
    let nextAnswer = 0;
    turns = () => this.delays[nextTurn++ % this.delays.length]!;
    answer = () => this.answers[nextAnswer++ % this.answers.length]!;
    try {
      const outcomes = await Promise.all(this.steps.map((s) => s.send(m, { ...real, forward: true })));
      // Every answer is the webhook's (approved, in part, declined) or a refusal: never a 96.
      for (const o of outcomes) if (o.code !== undefined) expect(['00', '10', '05']).toContain(o.code);
      this.steps.forEach((s, i) => s.apply(m, outcomes[i]!));
      checkAnswers(outcomes, real);
      checkLedger(m, real);
    } finally {
      answer = () => '00';
    }
  }
  toString = () => `parallel(${this.steps.map((s) => s.describe).join(', ')}; answers ${this.answers.join(' ')})`;
}

describe('the ledger against a model', () => {
  it('sequential lifecycle messages: the model predicts every answer, the invariants hold after each', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands([step.map((s) => new One(s))], { maxCommands: 25 }), async (commands) => {
        await fc.asyncModelRun(() => ({ model: { originals: [] }, real: newReal(false) }), commands);
      }),
      { numRuns: FUZZ_RUNS, seed: SEED },
    );
  }, 600_000);

  it('concurrent lifecycle messages (forward mode, answers interleaved): the invariants hold after each batch', async () => {
    const answers = fc.array(fc.constantFrom('00', '00', '00', '10', '05') as fc.Arbitrary<'00' | '10' | '05'>, { minLength: 1, maxLength: 4 });
    const batch = fc.tuple(fc.array(step, { minLength: 2, maxLength: 4 }), fc.array(fc.nat({ max: 4 }), { minLength: 1, maxLength: 4 }), answers)
      .map(([steps, delays, said]) => new Batch(steps, delays, said));
    await fc.assert(
      fc.asyncProperty(fc.commands([batch, step.map((s) => new One(s))], { maxCommands: 12 }), async (commands) => {
        await fc.asyncModelRun(() => ({ model: { originals: [] }, real: newReal(false) }), commands);
      }),
      { numRuns: FUZZ_RUNS, seed: SEED + 1 },
    );
  }, 600_000);
});
