// What `simulate load` counts while it runs, and the report it makes of it. Percentiles come
// from Node's HDR histogram (perf_hooks.createHistogram), recorded in microseconds.
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { SimulateResult } from '../api/schemas.js';
import { isApproved } from '../iso8583/codes.js';
import type { LoadShape, ScheduleResult } from './scheduler.js';

/** Who decided a request: the sandbox's own checks (it never went to the webhook), the webhook's reply, or the network in its place. */
export type Decider = 'sandbox' | 'webhook' | 'stand-in';

/** Why the network stood in: the webhook gave no usable reply. */
export type StandInCause = 'timeout' | 'unreachable' | 'no webhook URL' | 'invalid reply';

/** One request's fate, as the command reads it from the simulator's answer. */
export interface Outcome {
  /** The intent sent. */
  intent: string;
  /** Field 39, or a label such as `HTTP 400` / `error` when there was no simulator answer. */
  code: string;
  /** From the due time (open loop) or the send (closed loop) to the answer. */
  endToEndMs: number;
  /** The switch's own time for the message (its `duration`); absent when there was no simulator answer. */
  switchMs?: number;
  /** Absent when there was no simulator answer. */
  decidedBy?: Decider;
  /** When the network stood in: why. */
  standInCause?: StandInCause;
  /**
   * The webhook's latency as the network saw it (the answer's `webhook.latencyMs`): a usable
   * reply's, or the time the network gave up on one (a timeout). Absent otherwise: an unusable
   * reply's speed is no latency of an answer.
   */
  webhookMs?: number;
  /** A usable reply from the webhook arrived (an error status or an invalid reply is none). */
  webhookReplied: boolean;
  /** The network stood in for the webhook (the answer's `standIn`). */
  standIn: boolean;
  /** The webhook did not answer within the deadline (the answer's `webhook.timedOut`). */
  timeout: boolean;
}

/** A simulator answer as an outcome: read from its fields, never from its message. */
export function outcomeOf(intent: string, result: SimulateResult, endToEndMs: number): Outcome {
  const exchange = result.webhook;
  const cause = exchange?.failure === undefined ? undefined : standInCause(exchange);
  // Only a usable reply counts as one: an error status or an invalid reply answered nothing.
  const replied = exchange !== undefined && cause === undefined;
  return {
    intent,
    code: result.responseCode,
    endToEndMs,
    switchMs: result.duration,
    decidedBy: exchange === undefined ? 'sandbox' : cause === undefined ? 'webhook' : 'stand-in',
    ...(cause ? { standInCause: cause } : {}),
    // A webhook never reached took no time: its 0 ms is not a latency.
    ...(exchange && (replied || exchange.timedOut) ? { webhookMs: exchange.latencyMs } : {}),
    webhookReplied: replied,
    standIn: result.standIn !== undefined,
    timeout: exchange?.timedOut === true,
  };
}

/**
 * Why the webhook's reply could not be used. The answer says whether it timed out; the rest is
 * read from its failure text (src/sandbox/switch/webhook.ts words it), which has no code.
 */
export function standInCause(exchange: NonNullable<SimulateResult['webhook']>): StandInCause {
  if (exchange.timedOut) return 'timeout';
  const failure = exchange.failure ?? '';
  if (/no webHookConfig\.url/.test(failure)) return 'no webhook URL';
  if (/could not be reached|closed the connection after the request|webhook call failed|not a valid http\(s\) URL/.test(failure)) return 'unreachable';
  return 'invalid reply';
}

const MAX_RECORDABLE_US = 3_600_000_000; // an hour

function newHistogram(): RecordableHistogram {
  return createHistogram({ lowest: 1, highest: MAX_RECORDABLE_US, figures: 3 });
}

export class LoadStats {
  readonly endToEnd = newHistogram();
  /** The webhook's replies and timeouts (at the time the network gave up). */
  readonly webhookTime = newHistogram();
  readonly codes = new Map<string, number>();
  readonly intents = new Map<string, number>();
  /** Declines by who decided: by response code (sandbox, webhook) or by cause (stand-in). */
  readonly declinedBy: Record<Decider, Map<string, number>> = { sandbox: new Map(), webhook: new Map(), 'stand-in': new Map() };
  /** Exchanges without a usable reply, by cause, approved by a stand-in or not. */
  readonly webhookFailures = new Map<StandInCause, number>();
  /** Requests sent so far (some not answered yet). */
  sent = 0;
  answered = 0;
  webhookReplies = 0;
  approved = 0;
  declined = 0;
  standIns = 0;
  timeouts = 0;
  /** No simulator answer (HTTP error, network). */
  errors = 0;
  /** Turns of the mix not sent, by reason (a reversal with nothing approved to reverse). */
  readonly notSent = new Map<string, number>();

  notSend(reason: string): void {
    count(this.notSent, reason);
  }

  add(outcome: Outcome): void {
    count(this.codes, outcome.code);
    count(this.intents, outcome.intent);
    this.endToEnd.record(toMicros(outcome.endToEndMs));
    if (outcome.switchMs === undefined || outcome.decidedBy === undefined) {
      this.errors++;
      return;
    }
    this.answered++;
    if (outcome.webhookMs !== undefined) this.webhookTime.record(toMicros(outcome.webhookMs));
    if (outcome.webhookReplied) this.webhookReplies++;
    if (outcome.standInCause) count(this.webhookFailures, outcome.standInCause);
    if (isApproved(outcome.code)) this.approved++;
    else {
      this.declined++;
      count(this.declinedBy[outcome.decidedBy], outcome.decidedBy === 'stand-in' ? outcome.standInCause ?? 'unknown' : outcome.code);
    }
    if (outcome.standIn) this.standIns++;
    if (outcome.timeout) this.timeouts++;
  }

  /** Requests with an outcome: answered, or failed without a simulator answer. */
  get requests(): number {
    return this.answered + this.errors;
  }

  get inFlight(): number {
    return this.sent - this.requests;
  }
}

function count<K>(counts: Map<K, number>, key: K): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

const toMicros = (ms: number) => Math.min(MAX_RECORDABLE_US, Math.max(1, Math.round(ms * 1000)));

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function latencySummary(histogram: RecordableHistogram): LatencySummary | undefined {
  if (histogram.count === 0) return undefined;
  // To 0.1 ms: the histogram keeps 3 significant figures, more digits would be noise.
  const ms = (micros: number) => Math.round(micros / 100) / 10;
  return { p50: ms(histogram.percentile(50)), p90: ms(histogram.percentile(90)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
}

export interface LoadReport {
  target: { rate?: number; rampMs?: number; concurrency?: number; durationMs: number; count: number };
  requests: number;
  approved: number;
  declined: number;
  standIns: number;
  timeouts: number;
  errors: number;
  /** Requests by intent sent, most frequent first. */
  intents: Array<{ intent: string; count: number }>;
  /** Turns of the mix not sent, by reason. */
  notSent: Array<{ reason: string; count: number }>;
  /** Requests by response code (or error label), most frequent first. */
  responseCodes: Array<{ code: string; count: number }>;
  /** Declines by who decided: the sandbox's own checks and the webhook by response code, the network's stand-in by cause. */
  declinedBy: {
    sandbox: { count: number; responseCodes: Array<{ code: string; count: number }> };
    webhook: { count: number; responseCodes: Array<{ code: string; count: number }> };
    standIn: { count: number; causes: Array<{ cause: string; count: number }> };
  };
  /** Replies from the webhook that arrived, usable or not: with the timeouts, the samples of its latency. */
  webhookReplies: number;
  /** Messages the webhook gave no usable reply to, by cause (whatever the stand-in decided). */
  webhookFailures: Array<{ cause: string; count: number }>;
  /** The network's deadline for the webhook, in ms. */
  deadlineMs: number;
  latencyMs: { webhook?: LatencySummary; endToEnd?: LatencySummary };
  /** Requests sent per second between the first and the last send (open loop); answers per second (closed loop). */
  achievedRate: number;
  elapsedMs: number;
  interrupted: boolean;
}

export function buildReport(stats: LoadStats, schedule: ScheduleResult, context: { shape: LoadShape; durationMs: number; count: number; deadlineMs: number; interrupted: boolean }): LoadReport {
  const { shape } = context;
  const elapsedMs = schedule.endedAt - schedule.startedAt;
  const responseCodes = byCount(stats.codes).map(([code, count]) => ({ code, count }));
  const intents = byCount(stats.intents).map(([intent, count]) => ({ intent, count }));
  return {
    target: { ...(shape.kind === 'rate' ? { rate: shape.perSecond, ...(shape.rampMs ? { rampMs: shape.rampMs } : {}) } : { concurrency: shape.senders }), durationMs: context.durationMs, count: context.count },
    requests: stats.requests,
    approved: stats.approved,
    declined: stats.declined,
    standIns: stats.standIns,
    timeouts: stats.timeouts,
    errors: stats.errors,
    intents,
    notSent: byCount(stats.notSent).map(([reason, count]) => ({ reason, count })),
    responseCodes,
    declinedBy: {
      sandbox: codeGroup(stats.declinedBy.sandbox),
      webhook: codeGroup(stats.declinedBy.webhook),
      standIn: causeGroup(stats.declinedBy['stand-in']),
    },
    webhookReplies: stats.webhookReplies,
    webhookFailures: causeGroup(stats.webhookFailures).causes,
    deadlineMs: context.deadlineMs,
    latencyMs: { webhook: latencySummary(stats.webhookTime), endToEnd: latencySummary(stats.endToEnd) },
    achievedRate: round2(achievedRate(shape, schedule, stats.requests)),
    elapsedMs: Math.round(elapsedMs),
    interrupted: context.interrupted,
  };
}

function achievedRate(shape: LoadShape, schedule: ScheduleResult, answered: number): number {
  const { sent, firstSentAt, lastSentAt, startedAt, endedAt } = schedule;
  if (shape.kind === 'rate') {
    // n sends on schedule span n-1 intervals.
    if (sent < 2 || firstSentAt === undefined || lastSentAt === undefined || lastSentAt === firstSentAt) return sent;
    return ((sent - 1) * 1000) / (lastSentAt - firstSentAt);
  }
  return endedAt > startedAt ? (answered * 1000) / (endedAt - startedAt) : 0;
}

function codeGroup(counts: Map<string, number>) {
  const responseCodes = byCount(counts).map(([code, count]) => ({ code, count }));
  return { count: responseCodes.reduce((sum, entry) => sum + entry.count, 0), responseCodes };
}

function causeGroup(counts: Map<string, number>) {
  const causes = byCount(counts).map(([cause, count]) => ({ cause, count }));
  return { count: causes.reduce((sum, entry) => sum + entry.count, 0), causes };
}

const byCount = (counts: Map<string, number>) => [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

const round2 = (n: number) => Math.round(n * 100) / 100;
