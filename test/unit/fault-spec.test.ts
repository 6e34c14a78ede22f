// The fault specs' text (HTTP faults and webhook faults): one duration parser for every duration
// key, whole milliseconds, and a key given twice refused by name.
import { describe, expect, it } from 'vitest';
import { parseDuration, parseDurationRange } from '../../src/core/duration.js';
import { faultSpecFrom, FaultSpecError, parseFaultSpec } from '../../src/sandbox/faults.js';
import { parseWebhookFaults, webhookFaultsFrom, WebhookFaultSpecError } from '../../src/sandbox/switch/webhook-faults.js';

describe('parseDuration', () => {
  it.each<[string, 'ms' | 's' | undefined, number | RegExp]>([
    ['500ms', undefined, 500], ['2s', undefined, 2000], ['1.5s', undefined, 1500], ['1.1s', undefined, 1100], ['1m', undefined, 60_000],
    ['0.001s', undefined, 1], ['250', 'ms', 250], ['2', 's', 2000], [' 3 s ', undefined, 3000],
    ['0.5ms', undefined, /finer than a millisecond/], ['1.0005s', undefined, /finer than a millisecond/], ['0.5', 'ms', /finer than a millisecond/],
    ['250', undefined, /not a duration/], ['fast', 'ms', /not a duration/], ['-1s', undefined, /not a duration/], ['1d', undefined, /not a duration/],
  ])('%s (a plain number in %s)', (text, bare, expected) => {
    const parsed = parseDuration(text, bare);
    if (typeof expected === 'number') expect(parsed).toEqual({ ok: true, ms: expected });
    else expect(parsed.ok ? '' : parsed.reason).toMatch(expected);
  });

  it('ranges take the unit written last for both ends, or each its own', () => {
    expect(parseDurationRange('100-300ms', 'ms')).toEqual({ ok: true, range: [100, 300] });
    expect(parseDurationRange('1-2s', 'ms')).toEqual({ ok: true, range: [1000, 2000] });
    expect(parseDurationRange('500ms-2s', 'ms')).toEqual({ ok: true, range: [500, 2000] });
    expect(parseDurationRange('5s', 'ms')).toEqual({ ok: true, range: [5000, 5000] });
    expect(parseDurationRange('200', 'ms')).toEqual({ ok: true, range: [200, 200] });
    expect(parseDurationRange('2s-1s', 'ms')).toMatchObject({ ok: false, reason: 'goes from high to low' });
    expect(parseDurationRange('0.5-1ms', 'ms')).toMatchObject({ ok: false, reason: expect.stringMatching(/finer than a millisecond/) });
  });
});

describe('webhook fault specs', () => {
  it('every duration key takes the same units', () => {
    expect(parseWebhookFaults('delay=5s,deadline=10s')).toMatchObject({ delay: [5000, 5000], deadlineMs: 10_000 });
    expect(parseWebhookFaults('delay=1-2s,deadline=1500ms')).toMatchObject({ delay: [1000, 2000], deadlineMs: 1500 });
    expect(parseWebhookFaults('delay=200,deadline=2000')).toMatchObject({ delay: [200, 200], deadlineMs: 2000 });
    expect(webhookFaultsFrom({ delay: 200, deadlineMs: 2000 })).toMatchObject({ delay: [200, 200], deadlineMs: 2000 });
  });

  it.each([
    ['deadline=0.5ms', 'deadline', /finer than a millisecond/],
    ['deadline=1.0005s', 'deadline', /finer than a millisecond/],
    ['delay=0.5ms', 'delay', /finer than a millisecond/],
    ['deadline=1s,deadline=2s', 'deadline', /"deadline" is given twice/],
    ['reset=0.1,reset=0.2', 'reset', /"reset" is given twice/],
    ['delay=2s-1s', 'delay', /high to low/],
    ['delay=61s', 'delay', /within 0-60000ms/],
    ['reset=', 'reset', /probability/],
    ['garbage=1e-1', 'garbage', /probability/],
    ['duplicate=0x1', 'duplicate', /probability/],
    ['delay=100ms,,reset=0.1', 'spec', /an empty webhook fault in "delay=100ms,,reset=0.1"/],
    ['delay=100ms,', 'spec', /an empty webhook fault/],
    [',reset=0.1', 'spec', /an empty webhook fault/],
    ['reset=0.1, ,garbage=0.1', 'spec', /an empty webhook fault/],
  ])('%s is refused naming %s', (text, key, message) => {
    const error = (() => { try { parseWebhookFaults(text); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(WebhookFaultSpecError);
    expect((error as WebhookFaultSpecError).key).toBe(key);
    expect((error as Error).message).toMatch(message);
  });

  it('the JSON form refuses a key under two names', () => {
    expect(() => webhookFaultsFrom({ deadline: '1s', deadlineMs: 2000 })).toThrow(/"deadline" is given twice \(also as deadlineMs\)/);
    expect(() => webhookFaultsFrom({ 'reply-lost': 0.1, replyLost: 0.2 })).toThrow(/"reply-lost" is given twice/);
  });
});

describe('HTTP fault specs', () => {
  it('every duration key takes the same units', () => {
    expect(parseFaultSpec('latency=1-2s,hold=500ms,retry-after=2s,429=0.1')).toMatchObject({ latency: [1000, 2000], holdSeconds: 0.5, retryAfterSeconds: 2 });
    expect(parseFaultSpec('latency=300,hold=2')).toMatchObject({ latency: [300, 300], holdSeconds: 2 });
    expect(faultSpecFrom({ latency: [100, 200], holdSeconds: 3 })).toMatchObject({ latency: [100, 200], holdSeconds: 3 });
  });

  it.each([
    ['latency=0.5ms', 'latency', /finer than a millisecond/],
    ['hold=0.0005', 'hold', /finer than a millisecond/],
    ['rate=0.1,rate=0.2', 'rate', /"rate" is given twice/],
    ['hold=1,hold=2', 'hold', /"hold" is given twice/],
    ['rate=0.1,,reset=0.1', 'spec', /an empty fault in "rate=0.1,,reset=0.1"/],
    ['rate=0.1,', 'spec', /an empty fault/],
    ['rate=0.1,codes=500||503', 'codes', /give HTTP error statuses/],
    ['rate=0.1,codes=500|', 'codes', /give HTTP error statuses/],
    ['rate=0.1,methods=POST||PUT', 'methods', /give HTTP methods/],
  ])('%s is refused naming %s', (text, key, message) => {
    const error = (() => { try { parseFaultSpec(text); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(FaultSpecError);
    expect((error as FaultSpecError).key).toBe(key);
    expect((error as Error).message).toMatch(message);
  });

  it('empty text is no faults', () => {
    expect(parseFaultSpec('')).toEqual(parseFaultSpec(' '));
    expect(parseWebhookFaults('')).toEqual(parseWebhookFaults('  '));
  });

  it('the JSON form refuses a key under two names', () => {
    expect(() => faultSpecFrom({ hold: 1, holdSeconds: 2 })).toThrow(/"hold" is given twice \(also as holdSeconds\)/);
  });
});
