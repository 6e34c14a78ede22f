// A scenario written from recorded traffic (webhook exchanges --as-scenario): a valid scenario
// file whose steps are the messages as asked, in order, expecting what was seen; wait steps for
// the spacing; the faults met as a spec that repeats them; and the `wait` step itself.
import { describe, expect, it } from 'vitest';
import { faultSpecOf, scenarioFromExchanges, type RecordedLifecycle, type RecordedMessage, type RecordedTransaction } from '../../src/scenario/from-exchanges.js';
import { runScenario } from '../../src/scenario/runner.js';
import { loadScenario } from '../../src/scenario/scenario.js';
import { stepAction } from '../../src/scenario/steps.js';

const T0 = Date.parse('2026-11-27T10:00:00.000Z');

function tx(id: string, fields: Partial<RecordedTransaction>, offsetMs: number): RecordedTransaction {
  return {
    id, mti: '0100', processingCode: '000000', responseCode: '00', amount: 100, amounts: { currency: '566' },
    card: { id: 'card-a' }, transactionChannel: { channelType: 'pos' }, createdAt: new Date(T0 + offsetMs).toISOString(), ...fields,
  };
}

const exchange = (offsetMs: number, faults: string[] = []) => ({ at: new Date(T0 + offsetMs).toISOString(), faults });

const lifecycle = (originalTransactionId: string, ids: string[]): RecordedLifecycle => ({
  originalTransactionId,
  amounts: { requested: 100, authorized: 120, held: 0, captured: 60, released: 60, refunded: 0 },
  messages: ids.map((transactionId) => ({ transactionId })),
});

const auth = tx('a1', {}, 0);
const increment = tx('i1', { messageKind: 'increment', originalTransactionId: 'a1', amount: 20 }, 400);
const reversal = tx('r1', { mti: '0420', amount: 40 }, 900);
const completion = tx('c1', { mti: '0220', messageKind: 'completion', originalTransactionId: 'a1', amount: 60 }, 1500);
const messages: RecordedMessage[] = [auth, increment, reversal, completion].map((t, i) => ({ transaction: t, exchange: exchange([0, 400, 900, 1500][i]!, i === 2 ? ['delay 120ms', 'duplicate'] : []) }));
const lifecycles = new Map([['a1', lifecycle('a1', ['a1', 'i1', 'r1', 'c1'])]]);

describe('scenarioFromExchanges', () => {
  it('writes a valid scenario: each message as asked, in order, linked to its original, expecting what was seen', async () => {
    const { yaml, steps } = scenarioFromExchanges({ name: 'recorded', messages, lifecycles, keepSpacing: false });
    expect(steps).toBe(4);
    const scenario = await loadScenario(yaml, 'recorded.yaml');
    expect(scenario.vars).toEqual({ card: 'card-a' });
    expect(scenario.steps.map((s) => [s.id, s.input.intent])).toEqual([
      ['authorization1', 'authorization'], ['increment1', 'increment'], ['reversal1', 'reversal'], ['completion1', 'completion'],
    ]);
    expect(scenario.steps[0]!.input).toMatchObject({ card: '{{vars.card}}', amount: 100, flow: 'purchase', channel: 'pos', currency: '566', forward: true });
    expect(scenario.steps[2]!.input).toMatchObject({ originalTx: '{{steps.authorization1.transactionId}}', amount: 40, webhookFaults: 'delay=120ms,duplicate=1' });
    expect(scenario.steps[0]!.expect).toEqual({ responseCode: '00' });
    // Every message of the original is in the file: its amounts are expected after the last one.
    expect(scenario.steps[3]!.expect).toEqual({
      responseCode: '00', 'lifecycle.amounts.authorized': 120, 'lifecycle.amounts.held': 0, 'lifecycle.amounts.captured': 60,
      'lifecycle.amounts.released': 60, 'lifecycle.amounts.refunded': 0,
    });
  });

  it('keeps the verdict: a message no fault spoiled must be accepted; one that got no usable answer expects neither its stand-in code nor its amounts', async () => {
    const answered = { transaction: tx('a2', { responseCode: '05' }, 0), exchange: { ...exchange(0), verdict: 'accepted' as const } };
    const refused = { transaction: tx('a3', { responseCode: '96' }, 100), exchange: { ...exchange(100), verdict: 'refused' as const } };
    const faulted = { transaction: tx('a4', { responseCode: '96' }, 200), exchange: { ...exchange(200, ['reset']), verdict: 'no-answer' as const } };
    const recorded = new Map([['a3', lifecycle('a3', ['a3'])]]);
    const { yaml } = scenarioFromExchanges({ name: 'verdicts', messages: [answered, refused, faulted], lifecycles: recorded, keepSpacing: false });
    const scenario = await loadScenario(yaml, 'verdicts.yaml');
    expect(scenario.steps.map((step) => step.expect)).toEqual([
      { responseCode: '05', 'exchanges.0.verdict': 'accepted' },
      { 'exchanges.0.verdict': 'accepted' },
      // A fault spoiled it on purpose: what was seen is what the replay expects.
      { responseCode: '96' },
    ]);
  });

  it('no amounts expected when a message of the original is missing; an original not in the file is named by its id', async () => {
    const partial = scenarioFromExchanges({ name: 'part', messages: messages.slice(1, 2), lifecycles, keepSpacing: false });
    const scenario = await loadScenario(partial.yaml, 'part.yaml');
    expect(scenario.steps[0]!.input.originalTx).toBe('a1');
    expect(scenario.steps[0]!.expect).toEqual({ responseCode: '00' });
  });

  it('--keep-spacing: a wait step for each gap between messages', async () => {
    const { yaml, steps } = scenarioFromExchanges({ name: 'spaced', messages, lifecycles, keepSpacing: true });
    expect(steps).toBe(7);
    const scenario = await loadScenario(yaml, 'spaced.yaml');
    expect(scenario.steps.filter((s) => s.input.intent === 'wait').map((s) => s.input.for)).toEqual(['400ms', '500ms', '600ms']);
  });

  it('two cards: a var each; a stub message (no exchange) is sent in stub mode; values stay strings', async () => {
    const other = tx('b1', { card: { id: 'card-b' }, responseCode: '51', processingCode: '310000', amount: 0 }, 50);
    const { yaml } = scenarioFromExchanges({ name: 'two', messages: [{ transaction: auth, exchange: exchange(0) }, { transaction: other }], lifecycles: new Map(), keepSpacing: false });
    const scenario = await loadScenario(yaml, 'two.yaml');
    expect(scenario.vars).toEqual({ card1: 'card-a', card2: 'card-b' });
    expect(scenario.steps[1]!.input).toMatchObject({ card: '{{vars.card2}}', flow: 'balance_inquiry', forward: false });
    expect(scenario.steps[1]!.expect).toEqual({ responseCode: '51' });
  });

  it('faults as recorded become a spec that repeats them', () => {
    expect(faultSpecOf(['delay 250ms', 'deadline 30ms', 'duplicate', 'reset', 'reply-lost', 'garbage'])).toBe('delay=250ms,deadline=30ms,duplicate=1,reset=1,reply-lost=1,garbage=1');
    expect(faultSpecOf(['signature stale-past'])).toBe('signature=stale-past');
    expect(faultSpecOf([])).toBe('');
  });
});

describe('the wait step', () => {
  it('takes a duration up to an hour', () => {
    expect(stepAction({ intent: 'wait', for: '250ms' })).toEqual({ kind: 'wait', seconds: 0.25 });
    expect(() => stepAction({ intent: 'wait', for: '2h' })).toThrow(/up to an hour/);
    expect(() => stepAction({ intent: 'wait' })).toThrow(/need for/);
    expect(() => stepAction({ intent: 'wait', for: '1s', amount: 3 })).toThrow(/not a key of wait steps/);
  });

  it('waits through the runner\'s clock, needing no sandbox', async () => {
    const slept: number[] = [];
    const scenario = await loadScenario('steps:\n  - intent: wait\n    for: 3s\n', 'w.yaml');
    const summary = await runScenario(scenario, { send: async () => { throw new Error('nothing is sent'); }, sleep: async (ms) => { slept.push(ms); } });
    expect(slept).toEqual([3000]);
    expect(summary).toMatchObject({ passed: 1, failed: 0 });
  });
});
