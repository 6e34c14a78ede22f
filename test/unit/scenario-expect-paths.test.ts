// Expectations on the sandbox's exchange log (`exchanges.*`) and on what `webhook listen`
// received (`webhook.*`): their paths are checked when the file loads, and the runner reads
// the `exchanges` part of the state for them.
import { describe, expect, it } from 'vitest';
import type { WebhookExchange } from '../../src/api/schemas.js';
import { UsageError } from '../../src/core/errors.js';
import type { Received } from '../../src/listener/server.js';
import { expectPathProblem, WEBHOOK_FIELDS } from '../../src/scenario/expect-paths.js';
import { runScenario, type SandboxHooks } from '../../src/scenario/runner.js';
import { loadScenario } from '../../src/scenario/scenario.js';

const step = (expect: string) => `steps:\n  - id: auth\n    intent: authorization\n    card: c\n    amount: 1\n    expect:\n      responseCode: "00"\n      ${expect}\n`;

describe('expectation paths', () => {
  it.each([
    'exchanges.length', 'exchanges.0.verdict', 'exchanges.1.attempt', 'exchanges.0.response.status', 'exchanges.0.responseCode',
    'exchanges.2.request.body.39', 'exchanges.0.faults.0', 'exchanges.0.kind',
    'webhook.deliveries', 'webhook.repeats', 'webhook.signature', 'webhook.messages.1.mti', 'webhook.messages.length',
    // Other parts and result fields are not these parts' business.
    'responseCode', 'response.39', 'transaction.standIn.decision', 'lifecycle.amounts.held',
  ])('%s can be read', (path) => {
    expect(expectPathProblem(path)).toBeUndefined();
  });

  it.each([
    ['exchanges', /is not exchanges\.length or exchanges\.N\.<field>/],
    ['exchanges.count', /is not exchanges\.length or exchanges\.N\.<field>.*fields: id, at/],
    ['exchanges.first.verdict', /is not exchanges\.length/],
    ['exchanges.-1.verdict', /is not exchanges\.length/],
    ['exchanges.01.verdict', /is not exchanges\.length/],
    ['exchanges.0', /is not exchanges\.length/],
    ['exchanges.0.verdit', /is not exchanges\.length/],
    ['exchanges.0.verdict.x', /verdict has no members/],
    ['exchanges.0.at.x', /at has no members/],
    ['exchanges.0.reason.x', /reason has no members/],
    ['exchanges.0.attempt.x', /attempt has no members/],
    ['exchanges.0.response.', /an empty member/],
    ['webhook.delivery', /is not webhook\.<field>.*what `webhook listen` received/],
    ['webhook', /is not webhook\.<field>/],
    ['webhook.deliveries.0', /webhook\.deliveries has no members/],
    ['webhook.messages.x.mti', /is not webhook\.messages\.length or webhook\.messages\.N\.<field>/],
    ['webhook.messages.0', /is not webhook\.messages\.length/],
  ])('%s is refused', (path, message) => {
    expect(expectPathProblem(path)).toMatch(message);
  });

  it('webhook.* fields are those of what webhook listen answers, every one', () => {
    // A field added to the listener's answer fails to compile here until it is listed.
    const answer: Record<keyof Received, true> = { stan: true, rrn: true, deliveries: true, repeats: true, signature: true, messages: true };
    expect([...WEBHOOK_FIELDS].sort()).toEqual(Object.keys(answer).sort());
  });

  it('loading refuses a bad path with the step and its line, before anything is sent', async () => {
    const text = step('exchanges.0.verdit: accepted');
    await expect(loadScenario(text, 'bad.yaml')).rejects.toBeInstanceOf(UsageError);
    await expect(loadScenario(text, 'bad.yaml')).rejects.toThrow(/^invalid scenario bad\.yaml \(line 8\): step 1 \(auth\): expect: "exchanges\.0\.verdit" is not exchanges\.length/);
    await expect(loadScenario(step('webhook.signatures: valid'), 'bad.yaml')).rejects.toThrow(/line 8\b.*"webhook\.signatures" is not webhook\.<field>/);
  });

  it('loading takes good paths of both parts', async () => {
    const scenario = await loadScenario(step('exchanges.length: 1\n      exchanges.0.response.status: 200\n      webhook.deliveries: 1'), 's.yaml');
    expect(Object.keys(scenario.steps[0]!.expect!)).toEqual(['responseCode', 'exchanges.length', 'exchanges.0.response.status', 'webhook.deliveries']);
  });
});

describe('the exchanges part of the state', () => {
  const exchange = (attempt: number, verdict: WebhookExchange['verdict']): WebhookExchange => ({
    id: `wx_${attempt}`, at: '2026-01-01T00:00:00.000Z', transactionId: 'tx1', originalId: null, cardId: 'c', kind: 'authorization', mti: '0100',
    attempt, replayOf: null, signatureScheme: 'cardctl', request: { method: 'POST', url: 'http://127.0.0.1:1/', headers: {}, body: {} },
    response: verdict === 'no-answer' ? null : { status: verdict === 'accepted' ? 200 : 500, headers: {}, body: '{}', truncated: false },
    latencyMs: 3, verdict, reason: verdict === 'accepted' ? null : 'why', responseCode: verdict === 'accepted' ? '00' : null, faults: [],
  });

  it('is asked for only by exchanges.* expectations, and read again until they hold within the time given', async () => {
    const asked: string[] = [];
    let reads = 0;
    const unused = async (): Promise<never> => { throw new Error('not asked of this sandbox'); };
    const sandbox: SandboxHooks = {
      lifecycle: unused, repeat: unused, expire: unused, advanceClock: unused, deliverAdvices: unused, standIn: unused,
      setStandIn: unused, withWebhookFaults: unused,
      async state(result, parts) {
        asked.push(`${result.transactionId} ${[...parts].join(',')}`);
        reads += 1;
        return { exchanges: reads === 1 ? [exchange(1, 'no-answer')] : [exchange(1, 'no-answer'), exchange(2, 'accepted')] };
      },
    };
    const text = `steps:
  - { id: auth, intent: authorization, card: c, amount: 1, within: 1s, expect: { exchanges.length: 2, exchanges.0.verdict: no-answer, exchanges.1.attempt: 2, exchanges.1.response.status: 200, exchanges.1.responseCode: "00" } }
  - { id: wrong, intent: authorization, card: c, amount: 1, expect: { exchanges.0.verdict: accepted, exchanges.5.mti: "0100" } }
  - { id: plain, intent: authorization, card: c, amount: 1, expect: { responseCode: "00" } }
`;
    const send = async () => ({ status: 'success', message: '', data: { transactionId: 'tx1', mti: '0100', stan: '000001', rrn: '632614000001', responseCode: '00', responseMessage: 'Approved', transactionStatus: 'pending' as const, request: { '0': '0100', '4': '000000000100' }, response: { '39': '00' }, duration: 1 } });
    const summary = await runScenario(await loadScenario(text, 's.yaml'), { send, sandbox, sleep: async () => {} });
    expect(summary.steps.map((s) => s.failures)).toEqual([
      [],
      ['expected exchanges.0.verdict "accepted", got "no-answer"', 'expected exchanges.5.mti "0100", got nothing'],
      [],
    ]);
    expect(asked).toEqual(['tx1 exchanges', 'tx1 exchanges', 'tx1 exchanges']);
  });
});
