// simulate load's parts without a server: the schedule on a fake clock, the mix, the flags'
// bounds, the SLO verdicts, and the report built from recorded outcomes.
import { describe, expect, it } from 'vitest';
import { intentSequence, parseMix } from '../../src/load/mix.js';
import type { SimulateBody, SimulateResult } from '../../src/api/schemas.js';
import { Originals } from '../../src/load/originals.js';
import { checkTarget, liveLine, mixSender, NOTHING_TO_REVERSE, parseBounds, parseLoad, parseShape } from '../../src/load/run.js';
import { dueOffset, runSchedule, type Clock, type LoadBounds, type LoadShape } from '../../src/load/scheduler.js';
import { missedSlos, parseMillis, parsePercent } from '../../src/load/slo.js';
import { buildReport, LoadStats, outcomeOf, type Outcome } from '../../src/load/stats.js';
import { renderReport } from '../../src/load/render.js';
import { createStyle } from '../../src/output/style.js';
import type { FlagValues } from '../../src/core/flags.js';
import type { LOAD_FLAGS } from '../../src/load/flags.js';

const START = 1_000;

/** `simulate load`'s flags as its run receives them: each one not given undefined, --amount its default. */
function loadFlags(given: Partial<FlagValues<typeof LOAD_FLAGS>>): FlagValues<typeof LOAD_FLAGS> {
  return {
    rate: undefined, ramp: undefined, concurrency: undefined, duration: undefined, count: undefined, mix: undefined, mixFile: undefined,
    card: undefined, cardsFromList: undefined, channel: undefined, amount: '10.00', maxP99: undefined, maxTimeouts: undefined,
    maxErrors: undefined, minApproval: undefined, export: undefined, url: undefined, allowRemote: undefined,
    ...given,
  };
}

/** Time moves only when the scheduler sleeps, or when a send advances it. */
function fakeClock(): Clock & { advance(ms: number): void } {
  let now = START;
  return {
    now: () => now,
    sleepUntil: async (at) => { now = Math.max(now, at); },
    advance: (ms) => { now += ms; },
  };
}

const never = new AbortController().signal;

describe('the open-loop schedule', () => {
  it('--ramp: the rate rises linearly from 0 (R·t²/2T requests by t), then holds for the duration', async () => {
    const clock = fakeClock();
    const dues: number[] = [];
    await runSchedule({ kind: 'rate', perSecond: 10, rampMs: 2000 }, { durationMs: 1000, count: 1_000 }, async (_index, dueAt) => { dues.push(dueAt - START); }, { clock, signal: never });
    // 10 requests in the 2 s ramp (half the rate on average), then 10 in the second at 10/s.
    expect(dues).toHaveLength(20);
    dues.slice(0, 10).forEach((due, i) => expect(due).toBeCloseTo(dueOffset(i, 10, 2000), 6));
    expect(dueOffset(1, 10, 2000)).toBeCloseTo(Math.sqrt(400_000), 6);
    expect(dues.slice(10)).toEqual([2000, 2100, 2200, 2300, 2400, 2500, 2600, 2700, 2800, 2900]);
    // The gaps shrink through the ramp.
    for (let i = 2; i < 10; i++) expect(dues[i]! - dues[i - 1]!).toBeLessThan(dues[i - 1]! - dues[i - 2]!);
  });

  it('sends request i at start + i/rate without waiting for any answer, up to the duration', async () => {
    const clock = fakeClock();
    const sends: Array<{ index: number; dueAt: number; sentAt: number }> = [];
    let answerAll!: () => void;
    const answers = new Promise<void>((resolve) => (answerAll = resolve));
    const result = await runSchedule({ kind: 'rate', perSecond: 50 }, { durationMs: 1000, count: 1_000 }, (index, dueAt) => {
      sends.push({ index, dueAt, sentAt: clock.now() });
      if (sends.length === 50) answerAll(); // no answer arrives before the last send
      return answers;
    }, { clock, signal: never });
    expect(sends).toHaveLength(50);
    sends.forEach((send, i) => expect(send).toEqual({ index: i, dueAt: START + i * 20, sentAt: START + i * 20 }));
    expect(result).toMatchObject({ sent: 50, startedAt: START, firstSentAt: START, lastSentAt: START + 49 * 20 });
  });

  it('a send that falls behind does not move the schedule: the late ones go at once and keep their due times', async () => {
    const clock = fakeClock();
    const sends: Array<{ dueAt: number; sentAt: number }> = [];
    await runSchedule({ kind: 'rate', perSecond: 100 }, { durationMs: 100, count: 1_000 }, async (index, dueAt) => {
      sends.push({ dueAt, sentAt: clock.now() });
      if (index === 0) clock.advance(45); // the event loop was busy
    }, { clock, signal: never });
    expect(sends.map((send) => send.dueAt)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90].map((ms) => START + ms));
    expect(sends.slice(1, 5).map((send) => send.sentAt)).toEqual([1045, 1045, 1045, 1045]);
    expect(sends.slice(5).map((send) => send.sentAt)).toEqual([1050, 1060, 1070, 1080, 1090]);
  });

  it('sends rate × duration requests whatever the start time (starts where start + 2000 - start < 2000 in floating point included)', async () => {
    for (const start of [0, 48.989999999999995, 67.265, 1234.567]) {
      let now = start;
      const clock: Clock = { now: () => now, sleepUntil: async (at) => { now = Math.max(now, at); } };
      expect((await runSchedule({ kind: 'rate', perSecond: 50 }, { durationMs: 2000, count: 1_000 }, async () => {}, { clock, signal: never })).sent).toBe(100);
    }
  });

  it('stops at the count, and on abort', async () => {
    const clock = fakeClock();
    expect((await runSchedule({ kind: 'rate', perSecond: 10 }, { durationMs: 60_000, count: 7 }, async () => {}, { clock, signal: never })).sent).toBe(7);
    const controller = new AbortController();
    let sent = 0;
    const result = await runSchedule({ kind: 'rate', perSecond: 10 }, { durationMs: 60_000, count: 100 }, async () => {
      if (++sent === 3) controller.abort();
    }, { clock: fakeClock(), signal: controller.signal });
    expect(result.sent).toBe(3);
  });
});

describe('the closed-loop schedule', () => {
  it('keeps N requests in flight, each sender sending again once answered, up to the count', async () => {
    const clock = fakeClock();
    let inFlight = 0;
    let most = 0;
    const result = await runSchedule({ kind: 'concurrency', senders: 3 }, { durationMs: 60_000, count: 10 }, async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      clock.advance(5);
      inFlight--;
    }, { clock, signal: never });
    expect(result.sent).toBe(10);
    expect(most).toBe(3);
  });

  it('sends nothing new once the duration is over', async () => {
    const clock = fakeClock();
    const result = await runSchedule({ kind: 'concurrency', senders: 1 }, { durationMs: 250, count: 1_000 }, async () => clock.advance(100), { clock, signal: never });
    expect(result.sent).toBe(3); // at 0, 100 and 200 ms
    expect(result.endedAt).toBe(START + 300);
  });
});

describe('the mix', () => {
  it('spreads the intents by weight, evenly and in the same order every run', () => {
    const next = intentSequence(parseMix('authorization=80,financial=15,reversal=5'));
    const hundred = Array.from({ length: 100 }, next);
    expect(hundred.filter((i) => i === 'authorization')).toHaveLength(80);
    expect(hundred.filter((i) => i === 'financial')).toHaveLength(15);
    expect(hundred.filter((i) => i === 'reversal')).toHaveLength(5);
    expect(hundred.slice(0, 20).filter((i) => i === 'reversal')).toHaveLength(1);
    const again = intentSequence(parseMix('authorization=80,financial=15,reversal=5'));
    expect(Array.from({ length: 100 }, again)).toEqual(hundred);
  });

  it('refuses an unknown intent, a repeated one, and reversals alone', () => {
    expect(() => parseMix('purchase=10')).toThrow(/invalid --mix "purchase=10"/);
    expect(() => parseMix('authorization=1,authorization=2')).toThrow(/given twice/);
    expect(() => parseMix('reversal=5')).toThrow(/reversals need/);
    expect(() => parseMix('authorization=0')).toThrow(/weight above 0/);
  });
});

describe('the flags', () => {
  it('one loop kind, a bounded rate and run', () => {
    expect(parseShape({ rate: '50/s' })).toEqual({ kind: 'rate', perSecond: 50 });
    expect(parseShape({ concurrency: '8' })).toEqual({ kind: 'concurrency', senders: 8 });
    expect(() => parseShape({})).toThrow(/either --rate/);
    expect(() => parseShape({ rate: 'fast' })).toThrow(/invalid --rate/);
    expect(parseBounds({})).toEqual({ durationMs: 10_000, count: 10_000_000 });
    expect(parseBounds({ count: '500' })).toEqual({ durationMs: 3_600_000, count: 500 });
    expect(parseBounds({ duration: '2m', count: '5' })).toEqual({ durationMs: 120_000, count: 5 });
    expect(() => parseBounds({ duration: '61m' })).toThrow(/longer than the limit of 1h/);
    expect(() => parseBounds({ count: '10000001' })).toThrow(/above the limit of 10,000,000/);
  });

  it('--ramp: for --rate only, a duration, within the hour with --duration', async () => {
    expect(parseShape({ rate: '50/s', ramp: '30s' })).toEqual({ kind: 'rate', perSecond: 50, rampMs: 30_000 });
    expect(() => parseShape({ concurrency: '8', ramp: '30s' })).toThrow(/--ramp is for --rate/);
    expect(() => parseShape({ rate: '5', ramp: 'slowly' })).toThrow(/invalid --ramp "slowly"/);
    await expect(parseLoad(loadFlags({ rate: '5', ramp: '30m', duration: '31m', card: ['c'], amount: '1.00' }))).rejects.toThrow(/--ramp 30m and --duration make a run longer than the limit of 1h/);
  });

  it('load goes to this machine unless --allow-remote', () => {
    for (const url of ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010']) expect(() => checkTarget(url, false)).not.toThrow();
    expect(() => checkTarget('https://api.example.com', false)).toThrow(/refusing to send load/);
    // "This machine" is the one rule of src/core/loopback.ts, not a prefix: a name that starts like 127. is a name.
    for (const url of ['http://127.attacker.example:4010', 'http://127.0.0.1.attacker.example:4010', 'http://localhost.attacker.example', 'http://0.0.0.0:4010']) {
      expect(() => checkTarget(url, false), url).toThrow(/refusing to send load/);
    }
    expect(() => checkTarget('https://api.example.com', true)).not.toThrow();
  });
});

// Every answered message here went to the webhook, which took all of the switch's time.
const outcome = (code: string, switchMs: number | undefined, extra: Partial<Outcome> = {}): Outcome => ({
  intent: code === '51' ? 'financial' : 'authorization', code, endToEndMs: (switchMs ?? 0) + 2, switchMs, webhookMs: switchMs,
  ...(switchMs === undefined ? {} : { decidedBy: 'webhook' as const }), webhookReplied: switchMs !== undefined, standIn: false, timeout: false, ...extra,
});
const timeoutOutcome = (ms: number) => outcome('96', ms, { decidedBy: 'stand-in', standInCause: 'timeout', webhookReplied: false, standIn: true, timeout: true });

function reportOf(outcomes: Outcome[]) {
  const stats = new LoadStats();
  outcomes.forEach((o) => stats.add(o));
  const schedule = { sent: outcomes.length, startedAt: 0, firstSentAt: 0, lastSentAt: (outcomes.length - 1) * 10, endedAt: outcomes.length * 10 };
  return buildReport(stats, schedule, { shape: { kind: 'rate', perSecond: 100 }, durationMs: 1000, count: 10_000_000, deadlineMs: 5000, interrupted: false });
}

describe('the report', () => {
  // 96 approvals at 1..96 ms, 2 declines at 10 ms, one timeout (stand-in 96), one HTTP error
  // (no switch time): of the 99 switch times the 50th is 48 ms, the 98th 96 ms.
  const outcomes = [
    ...Array.from({ length: 96 }, (_, i) => outcome('00', i + 1)),
    outcome('51', 10), outcome('51', 10),
    timeoutOutcome(5000),
    outcome('HTTP 400', undefined),
  ];
  const report = reportOf(outcomes);

  it('counts outcomes by kind and by response code, and the achieved rate', () => {
    expect(report).toMatchObject({ requests: 100, approved: 96, declined: 3, standIns: 1, timeouts: 1, errors: 1, deadlineMs: 5000, achievedRate: 100, interrupted: false });
    expect(report.intents).toEqual([{ intent: 'authorization', count: 98 }, { intent: 'financial', count: 2 }]);
    expect(report.responseCodes).toEqual([{ code: '00', count: 96 }, { code: '51', count: 2 }, { code: '96', count: 1 }, { code: 'HTTP 400', count: 1 }]);
  });

  it("has the webhook's percentiles from the histogram (within its 3 significant figures)", () => {
    const webhook = report.latencyMs.webhook!;
    expect(webhook.p50).toBeCloseTo(48, 0);
    expect(webhook.p99).toBeCloseTo(96, 0);
    expect(webhook.max).toBeGreaterThanOrEqual(4995);
    expect(webhook.max).toBeLessThanOrEqual(5005);
    expect(report.latencyMs.endToEnd!.p50).toBeGreaterThan(webhook.p50);
  });

  it('renders a table with the percentiles as bars against the deadline', () => {
    const text = renderReport(report, createStyle(false));
    expect(text).toMatch(/Requests\s+100: 98 authorization, 2 financial\n/);
    expect(text).toMatch(/Stand-ins\s+1 \(1%\)/);
    expect(text).toMatch(/Codes\s+00: 96, 51: 2, 96: 1, HTTP 400: 1/);
    expect(text).toMatch(/deadline 5000 ms/);
    expect(text).toMatch(/\n {2}max +█{40} 5001\.2 ms\n {2}deadline +█{40} 5000 ms\n/);
    expect(text).toMatch(/\n {2}p50 +█{1} 48 ms\n/);
  });

  it('shows a deadline beyond the slowest answer as a figure, not a bar', () => {
    const text = renderReport(reportOf([outcome('00', 10), outcome('00', 20)]), createStyle(false));
    expect(text).toMatch(/\n {2}max +█{40} 20 ms\n {2}deadline 5000 ms \(250× the slowest answer\)\n/);
  });
});

describe('an answer as an outcome', () => {
  const base = { transactionId: 't', mti: '0100', stan: '000001', rrn: '633114000001', responseMessage: '', transactionStatus: 'pending' as const, request: {}, response: {}, duration: 7 };

  it('reads stand-ins and timeouts from the answer\'s fields, whatever its message says', () => {
    // A stand-in approval answers 00 ("Transaction approved"): still a stand-in.
    const approvedInStandIn = outcomeOf('authorization', { ...base, responseCode: '00', standIn: { decision: '00', reason: 'the webhook answered HTTP 500' }, webhook: { latencyMs: 3, timedOut: false, failure: 'the webhook answered HTTP 500' } }, 9);
    expect(approvedInStandIn).toEqual({ intent: 'authorization', code: '00', endToEndMs: 9, switchMs: 7, decidedBy: 'stand-in', standInCause: 'invalid reply', webhookReplied: false, standIn: true, timeout: false });
    const timedOut = outcomeOf('financial', { ...base, responseCode: '96', standIn: { decision: '96', reason: 'no reply' }, webhook: { latencyMs: 2000, timedOut: true, failure: 'no reply' } }, 2001);
    expect(timedOut).toMatchObject({ code: '96', decidedBy: 'stand-in', standInCause: 'timeout', webhookMs: 2000, webhookReplied: false, standIn: true, timeout: true });
  });

  it('has no webhook latency for a message the webhook never saw (declined by the service)', () => {
    const declined = outcomeOf('authorization', { ...base, responseCode: '61' }, 4);
    expect(declined).toEqual({ intent: 'authorization', code: '61', endToEndMs: 4, switchMs: 7, decidedBy: 'sandbox', webhookReplied: false, standIn: false, timeout: false });
    const stats = new LoadStats();
    stats.add(declined);
    expect(stats.webhookTime.count).toBe(0);
    expect(stats.declined).toBe(1);
  });
});

describe('who decided, and what is a webhook latency', () => {
  const base = { transactionId: 't', mti: '0100', stan: '000001', rrn: '633114000001', responseMessage: '', transactionStatus: 'failed' as const, request: {}, response: {}, duration: 1 };
  const failed = (failure: string, extra: { timedOut?: boolean; latencyMs?: number } = {}) =>
    outcomeOf('authorization', { ...base, responseCode: '96', standIn: { decision: '96', reason: failure }, webhook: { latencyMs: extra.latencyMs ?? 0, timedOut: extra.timedOut ?? false, failure } }, 3);

  // The failure texts as the sandbox words them (src/sandbox/switch/webhook.ts, exchange.ts).
  it.each<[string, Outcome['standInCause'], boolean]>([
    ['the card program has no webHookConfig.url (set one, e.g. `cardctl sandbox serve --webhook-url URL`)', 'no webhook URL', false],
    ['the webhook could not be reached: ECONNREFUSED', 'unreachable', false],
    ['the webhook call failed: socket hang up', 'unreachable', false],
    ['the card program\'s webhook URL "x" is not a valid http(s) URL', 'unreachable', false],
    // An unusable reply is no reply, and its speed no latency of an answer.
    ['the webhook answered HTTP 500', 'invalid reply', false],
    ['the webhook reply is not JSON', 'invalid reply', false],
  ])('%s: stand-in, %s; a reply and a latency sample: %s', (failure, cause, sample) => {
    const o = failed(failure, { latencyMs: 4 });
    expect(o).toMatchObject({ decidedBy: 'stand-in', standInCause: cause, webhookReplied: sample });
    expect(o.webhookMs).toBe(sample ? 4 : undefined);
  });

  it('a webhook answering HTTP 500 to everything has no replies and no latency: --max-p99 is missed, not met by fast errors', () => {
    const report = reportOf(Array.from({ length: 5 }, () => failed('the webhook answered HTTP 500', { latencyMs: 2 })));
    expect(report.webhookReplies).toBe(0);
    expect(report.latencyMs.webhook).toBeUndefined();
    expect(missedSlos(report, { maxP99Ms: 1_000 })).toEqual([expect.stringMatching(/^--max-p99 1000 ms: /)]);
  });

  it('a timeout is a sample at the time the network gave up, not a reply', () => {
    expect(failed('no reply from the webhook within 5 s (timeout)', { timedOut: true, latencyMs: 5000 })).toMatchObject({ standInCause: 'timeout', webhookMs: 5000, webhookReplied: false });
  });

  it('the report groups declines by who decided, and the webhook failures by cause', () => {
    const report = reportOf([
      outcome('00', 5), outcome('05', 5), outcome('05', 6),
      outcome('61', 1, { decidedBy: 'sandbox', webhookMs: undefined, webhookReplied: false }),
      outcome('96', 1, { decidedBy: 'stand-in', standInCause: 'unreachable', webhookMs: undefined, webhookReplied: false, standIn: true }),
      outcome('00', 1, { decidedBy: 'stand-in', standInCause: 'unreachable', webhookMs: undefined, webhookReplied: false, standIn: true }),
      timeoutOutcome(100),
    ]);
    expect(report.declinedBy).toEqual({
      sandbox: { count: 1, responseCodes: [{ code: '61', count: 1 }] },
      webhook: { count: 2, responseCodes: [{ code: '05', count: 2 }] },
      standIn: { count: 2, causes: [{ cause: 'timeout', count: 1 }, { cause: 'unreachable', count: 1 }] },
    });
    expect(report.webhookFailures).toEqual([{ cause: 'unreachable', count: 2 }, { cause: 'timeout', count: 1 }]);
    expect(report.webhookReplies).toBe(3);
    const text = renderReport(report, createStyle(false));
    expect(text).toMatch(/Declined +5 \(71\.4%\)\n {4}by the sandbox 1 \(61: 1\)\n {4}by the webhook 2 \(05: 2\)\n {4}by stand-in +2 \(timeout: 1, unreachable: 1\)\n/);
    expect(text).toMatch(/Webhook +3 replies: p50 .*; no usable reply: unreachable: 2, timeout: 1\n/);
  });

  it('--max-errors: requests without a valid answer (webhook failures of every cause, no simulator answer) against the share', () => {
    const report = reportOf([
      outcome('00', 5), outcome('00', 5), outcome('61', 1, { decidedBy: 'sandbox', webhookMs: undefined, webhookReplied: false }),
      outcome('96', 1, { decidedBy: 'stand-in', standInCause: 'invalid reply', standIn: true }),
      timeoutOutcome(100),
    ]);
    expect(missedSlos(report, { maxErrors: 0.4 })).toEqual([]);
    expect(missedSlos(report, { maxErrors: 0.1 })).toEqual(['errors 40% (2 of 5 without a valid answer from the webhook) are above --max-errors 10%']);
    expect(missedSlos(reportOf([]), { maxErrors: 0.5 })).toEqual(['--max-errors 50%: no request was sent']);
  });

  it('the live line counts sends and requests in flight apart from answers', () => {
    const stats = new LoadStats();
    stats.sent = 30;
    for (let i = 0; i < 10; i++) stats.add(outcome('00', 100));
    expect(liveLine(stats, 2)).toBe('2 s  sent 30 (15.0/s)  in flight 20  answered 10  approved 10  declined 0  timeouts 0  webhook p99 100 ms');
  });
});

describe('the SLOs', () => {
  it('parse durations and percentages', () => {
    expect(parseMillis('--max-p99', '1500ms')).toBe(1500);
    expect(parseMillis('--max-p99', '1.5s')).toBe(1500);
    expect(parsePercent('--max-timeouts', '0.1%')).toBeCloseTo(0.001);
    expect(() => parsePercent('--min-approval', '95')).toThrow(/invalid --min-approval "95"/);
    expect(() => parsePercent('--min-approval', '120%')).toThrow(/0% to 100%/);
  });

  it('are met, or each missed one is a line', () => {
    const met = reportOf(Array.from({ length: 100 }, (_, i) => outcome('00', i + 1)));
    expect(missedSlos(met, { maxP99Ms: 1500, maxTimeouts: 0.001, minApproval: 0.95 })).toEqual([]);
    const bad = reportOf([...Array.from({ length: 9 }, () => outcome('00', 2000)), timeoutOutcome(5000)]);
    expect(missedSlos(bad, { maxP99Ms: 1500, maxTimeouts: 0.001, minApproval: 0.95 })).toEqual([
      expect.stringMatching(/^p99 latency 50\d\d(\.\d+)? ms is above --max-p99 1500 ms$/),
      'timeouts 10% (1 of 10) are above --max-timeouts 0.1%',
      'approvals 90% (9 of 10) are below --min-approval 95%',
    ]);
  });

  // No samples is no pass: a webhook never reached took no 0 ms.
  it('are missed when no webhook answered: no URL, every request declined by the sandbox, nothing answered', () => {
    const slos = { maxP99Ms: 1500, maxTimeouts: 0.001, minApproval: 0 };
    const noUrl = reportOf(Array.from({ length: 3 }, () => outcome('96', 1, { decidedBy: 'stand-in', standInCause: 'no webhook URL', webhookMs: undefined, webhookReplied: false, standIn: true })));
    expect(noUrl.latencyMs.webhook).toBeUndefined();
    expect(missedSlos(noUrl, slos)).toEqual([
      '--max-p99 1500 ms: no webhook answered (of 3 requests: no webhook URL 3)',
      '--max-timeouts 0.1%: no webhook answered (of 3 requests: no webhook URL 3)',
    ]);
    const typo = reportOf(Array.from({ length: 2 }, () => outcome('14', 1, { decidedBy: 'sandbox', webhookMs: undefined, webhookReplied: false })));
    expect(missedSlos(typo, { maxP99Ms: 1500 })).toEqual(['--max-p99 1500 ms: no webhook answered (of 2 requests: declined by the sandbox 2 (14: 2))']);
    const timeouts = reportOf([timeoutOutcome(100), timeoutOutcome(100)]);
    expect(missedSlos(timeouts, { maxP99Ms: 1500, maxTimeouts: 1 })).toEqual([
      '--max-p99 1500 ms: no webhook answered (of 2 requests: timeout 2)',
      '--max-timeouts 100%: no webhook answered (of 2 requests: timeout 2)',
    ]);
    const errors = reportOf([outcome('HTTP 500', undefined)]);
    expect(missedSlos(errors, slos)).toEqual([
      '--max-p99 1500 ms: no webhook answered (of 1 request: no simulator answer 1)',
      '--max-timeouts 0.1%: no webhook answered (of 1 request: no simulator answer 1)',
      '--min-approval 0%: no request was answered (1 of 1 had no simulator answer)',
    ]);
    expect(missedSlos(reportOf([]), { minApproval: 0 })).toEqual(['--min-approval 0%: no request was answered (none sent)']);
  });
});

describe('the mix with a slow switch', () => {
  /** Answers after the event loop turns (so after every send of a fake-clock run): approvals unless `code` says otherwise. */
  function slowSwitch(code: (body: SimulateBody) => string = () => '00') {
    const sent: SimulateBody[] = [];
    let next = 0;
    const send = async (body: SimulateBody): Promise<SimulateResult> => {
      sent.push(body);
      const id = `tx${next++}`;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { transactionId: id, mti: '0100', stan: '', rrn: '', responseCode: code(body), responseMessage: '', transactionStatus: 'pending', request: {}, response: {}, duration: 1 };
    };
    return { sent, send };
  }

  async function runMix(shape: LoadShape, bounds: LoadBounds, mix: string, fake: ReturnType<typeof slowSwitch>) {
    const clock = fakeClock();
    const stats = new LoadStats();
    const originals = new Originals(shape.kind === 'rate' ? 1 : shape.senders, shape.kind === 'concurrency');
    const fire = mixSender({
      nextIntent: intentSequence(parseMix(mix, '--mix')),
      bodyFor: (intent, original) => ({ intent, amount: 1, ...(original ? { originalTransactionId: original } : { cardId: 'c1' }) }) as SimulateBody,
      send: fake.send, originals, stats, clock, signal: never, interrupted: () => false,
    });
    const schedule = await runSchedule(shape, bounds, fire, { clock, signal: never, onSenderDone: () => originals.senderDone() });
    return buildReport(stats, schedule, { shape, ...bounds, deadlineMs: 5000, interrupted: false });
  }

  it('open loop: reversals due before any approval wait for one, so the counts are the mix', async () => {
    const fake = slowSwitch();
    const report = await runMix({ kind: 'rate', perSecond: 50 }, { durationMs: 2000, count: 1_000 }, 'authorization=80,financial=15,reversal=5', fake);
    expect(report.intents).toEqual([{ intent: 'authorization', count: 80 }, { intent: 'financial', count: 15 }, { intent: 'reversal', count: 5 }]);
    expect(report.notSent).toEqual([]);
    const reversed = fake.sent.filter((body) => body.intent === 'reversal').map((body) => body.originalTransactionId);
    // Each reverses another original, oldest approved first.
    expect(new Set(reversed).size).toBe(5);
    expect(reversed.every((id) => id !== undefined)).toBe(true);
  });

  it('a reversal whose original never comes is not sent, with its reason, and the run ends', async () => {
    const declined = slowSwitch(() => '51');
    const report = await runMix({ kind: 'rate', perSecond: 50 }, { durationMs: 2000, count: 1_000 }, 'authorization=80,financial=15,reversal=5', declined);
    expect(report.intents).toEqual([{ intent: 'authorization', count: 80 }, { intent: 'financial', count: 15 }]);
    expect(report.notSent).toEqual([{ reason: NOTHING_TO_REVERSE, count: 5 }]);
    expect(renderReport(report, createStyle(false))).toContain(`Not sent    5 (${NOTHING_TO_REVERSE})`);
  });

  it('closed loop: a reversal waits while another sender may approve one; with every sender waiting it is not sent', async () => {
    const two = await runMix({ kind: 'concurrency', senders: 2 }, { durationMs: 60_000, count: 8 }, 'reversal=1,authorization=1', slowSwitch());
    expect(two.intents).toEqual([{ intent: 'authorization', count: 4 }, { intent: 'reversal', count: 4 }]);
    expect(two.notSent).toEqual([]);
    const one = await runMix({ kind: 'concurrency', senders: 1 }, { durationMs: 60_000, count: 6 }, 'reversal=1,financial=1', slowSwitch());
    expect(one.intents).toEqual([{ intent: 'financial', count: 3 }, { intent: 'reversal', count: 2 }]);
    expect(one.notSent).toEqual([{ reason: NOTHING_TO_REVERSE, count: 1 }]);
  });
});
