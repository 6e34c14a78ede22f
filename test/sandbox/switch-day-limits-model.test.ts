// Model-based property test of the switch's daily limits (src/sandbox/switch/): purchases dated
// anywhere against a clock that moves on by hours, driven in-process on the sandbox's store like
// the ledger's model test (switch-ledger-model.test.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SwitchDeps } from '../../src/sandbox/switch/deps.js';
import { simulate } from '../../src/sandbox/switch/simulate.js';
import { switchStore } from '../../src/sandbox/switch/store.js';
import { startTestSandbox, type Sandbox } from './helpers.js';
import { cardOf, createProgram } from './switch-helpers.js';

const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 20261127);

let sb: Sandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
}, 30_000);
afterAll(async () => { await sb?.close(); });

/**
 * The daily limits count against the switch clock's day. Messages dated anywhere (days ahead, or
 * back within the card's life) while the clock moves on by hours: the model tallies each
 * approved amount on the clock's day and predicts every answer; no clock day ever holds more
 * than the limits, however the messages were dated.
 */
describe('daily limits on the switch clock', () => {
  const LIMIT = { count: 3, amount: 1_000 };
  interface DayModel { clock: number; used: Map<string, { count: number; amount: number }> }
  interface DayReal { deps: SwitchDeps; card: { id: string; createdAt: number } }
  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  let limited = '';
  beforeAll(async () => {
    limited = (await createProgram(sb, { channels: { pos: { enabled: true, dailyLimit: LIMIT } } })).id;
  });

  class Purchase implements fc.AsyncCommand<DayModel, DayReal> {
    constructor(readonly amount: number, readonly datedHours: number, readonly kind: 'authorization' | 'financial') {}
    check = () => true;
    async run(m: DayModel, real: DayReal): Promise<void> {
      // Dated from just after the card was made up to a year past the clock.
      const dated = Math.max(real.card.createdAt + 1_000, m.clock + this.datedHours * 3_600_000);
      const today = m.used.get(dayOf(m.clock)) ?? { count: 0, amount: 0 };
      const fits = today.count + 1 <= LIMIT.count && today.amount + this.amount <= LIMIT.amount;
      const answer = await simulate(real.deps, sb.institutionId, {
        intent: this.kind, processingFlow: 'purchase', amount: this.amount, cardId: real.card.id, channel: 'pos', transactionDate: new Date(dated).toISOString(),
      });
      // The amount is checked first (61), then the count (65).
      expect(answer.data.responseCode, this.toString()).toBe(fits ? '00' : today.amount + this.amount > LIMIT.amount ? '61' : '65');
      if (fits) m.used.set(dayOf(m.clock), { count: today.count + 1, amount: today.amount + this.amount });
      // The store's usage of the clock's day is the model's, within the limits.
      const used = real.deps.store.usage(real.card.id, 'pos', dayOf(m.clock), '566');
      expect({ count: used.count, amount: Number(used.amountMinor) / 100 }).toEqual(m.used.get(dayOf(m.clock)) ?? { count: 0, amount: 0 });
      expect(used.count).toBeLessThanOrEqual(LIMIT.count);
      expect(Number(used.amountMinor)).toBeLessThanOrEqual(LIMIT.amount * 100);
    }
    toString = () => `${this.kind} ${this.amount} dated ${this.datedHours} h from the clock`;
  }

  class Advance implements fc.AsyncCommand<DayModel, DayReal> {
    constructor(readonly hours: number) {}
    check = () => true;
    async run(m: DayModel): Promise<void> {
      m.clock += this.hours * 3_600_000;
    }
    toString = () => `clock +${this.hours} h`;
  }

  it('however messages are dated, no switch-clock day holds more than its daily count and amount', async () => {
    const purchase = fc.tuple(fc.integer({ min: 1, max: 700 }), fc.integer({ min: -24 * 30, max: 24 * 365 }), fc.constantFrom('authorization', 'financial') as fc.Arbitrary<'authorization' | 'financial'>)
      .map(([amount, hours, kind]) => new Purchase(amount, hours, kind));
    const advance = fc.integer({ min: 1, max: 30 }).map((hours) => new Advance(hours));
    await fc.assert(
      fc.asyncProperty(fc.commands([purchase, purchase, advance], { maxCommands: 20 }), async (commands) => {
        const card = await cardOf(sb, limited);
        // The clock starts a month after the card was made, so the messages may be dated in its past.
        const model: DayModel = { clock: Date.parse(card.createdAt) + 30 * 86_400_000, used: new Map() };
        const real: DayReal = { deps: { store: switchStore(sb.deps.store), now: () => new Date(model.clock) }, card: { id: card.id, createdAt: Date.parse(card.createdAt) } };
        await fc.asyncModelRun(() => ({ model, real }), commands);
      }),
      { numRuns: Math.max(20, Math.floor(FUZZ_RUNS / 4)), seed: SEED + 2 },
    );
  }, 600_000);
});
