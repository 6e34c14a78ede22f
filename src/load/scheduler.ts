// When `simulate load` sends. Open loop (a rate): request i is due at start + i/rate (after a
// linear ramp up to the rate, when there is one) whatever the answers, so a slow answer never delays the next send and latency is measured from the
// due time (no coordinated omission). Closed loop (a concurrency): N senders, each sending
// again as soon as its answer arrives. Both stop at the count or the duration, or on abort.

/** Milliseconds on a monotonic clock; a fake one in tests. */
export interface Clock {
  now(): number;
  /** Resolves at `at` (at once when it is past), or early when `signal` aborts. */
  sleepUntil(at: number, signal: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => performance.now(),
  sleepUntil: (at, signal) => new Promise((resolve) => {
    const wait = at - performance.now();
    if (wait <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(done, wait);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  }),
};

/** `rampMs`: the open loop rises linearly from 0 to its rate over this long before its duration at the rate. */
export type LoadShape = { kind: 'rate'; perSecond: number; rampMs?: number } | { kind: 'concurrency'; senders: number };

/**
 * When request `index` of an open loop is due, ms after the start. During a ramp of T ms the rate
 * rises linearly from 0 to R, so R·t²/2T requests are due by t: request i at √(2·T·i/R); after the
 * ramp one every 1/R.
 */
export function dueOffset(index: number, perSecond: number, rampMs = 0): number {
  const rampCount = (perSecond * rampMs) / 2000;
  if (index < rampCount) return Math.sqrt((2 * rampMs * index * 1000) / perSecond);
  return rampMs + ((index - rampCount) * 1000) / perSecond;
}

export interface LoadBounds {
  durationMs: number;
  count: number;
}

/** Sends request `index`; `dueAt` is when it was due (open loop) or sent (closed loop). Must not reject. */
export type Fire = (index: number, dueAt: number) => Promise<void>;

export interface ScheduleResult {
  sent: number;
  startedAt: number;
  /** When the first and last requests actually went out. */
  firstSentAt?: number;
  lastSentAt?: number;
  /** When the last answer arrived. */
  endedAt: number;
}

/** `onSenderDone`: a sender (the open loop's schedule, one of the closed loop's) sends no more; its last requests may still be in flight. */
export async function runSchedule(shape: LoadShape, bounds: LoadBounds, fire: Fire, options: { clock?: Clock; signal: AbortSignal; onSenderDone?: () => void }): Promise<ScheduleResult> {
  const clock = options.clock ?? realClock;
  const { signal } = options;
  const startedAt = clock.now();
  const result: ScheduleResult = { sent: 0, startedAt, endedAt: startedAt };
  const send = (index: number, dueAt: number) => {
    const now = clock.now();
    result.firstSentAt ??= now;
    result.lastSentAt = now;
    result.sent++;
    return fire(index, dueAt);
  };

  if (shape.kind === 'rate') {
    const inFlight = new Set<Promise<void>>();
    const rampMs = shape.rampMs ?? 0;
    // In time by the offset itself: (start + offset) - start can fall short of the offset in floating point.
    for (let index = 0; index < bounds.count && dueOffset(index, shape.perSecond, rampMs) < rampMs + bounds.durationMs; index++) {
      const dueAt = startedAt + dueOffset(index, shape.perSecond, rampMs);
      await clock.sleepUntil(dueAt, signal);
      if (signal.aborted) break;
      const request = send(index, dueAt).finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    options.onSenderDone?.();
    await Promise.all(inFlight);
  } else {
    let next = 0;
    const sender = async () => {
      while (!signal.aborted && next < bounds.count && clock.now() - startedAt < bounds.durationMs) await send(next++, clock.now());
      options.onSenderDone?.();
    };
    await Promise.all(Array.from({ length: shape.senders }, sender));
  }
  result.endedAt = clock.now();
  return result;
}
