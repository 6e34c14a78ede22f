// What `simulate load` counts while it runs, and the report it makes of it. Percentiles come
// from Node's HDR histogram (perf_hooks.createHistogram), recorded in microseconds.
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { SimulateResult } from '../api/schemas.js';
import { isApproved } from '../iso8583/codes.js';
import type { LoadShape, ScheduleResult } from './scheduler.js';

/** One request's fate, as the command reads it from the simulator's answer. */
export interface Outcome {
  /** The intent sent (a reversal with nothing yet to reverse goes as an authorization). */
  intent: string;
  /** Field 39, or a label such as `HTTP 400` / `error` when there was no simulator answer. */
  code: string;
  /** From the due time (open loop) or the send (closed loop) to the answer. */
  endToEndMs: number;
  /** The switch's own time for the message (its `duration`); absent when there was no simulator answer. */
  switchMs?: number;
  /** The webhook's latency as the network saw it (the answer's `webhook.latencyMs`); absent when the message did not go to it. */
  webhookMs?: number;
  /** The network stood in for the webhook (the answer's `standIn`). */
  standIn: boolean;
  /** The webhook did not answer within the deadline (the answer's `webhook.timedOut`). */
  timeout: boolean;
}

/** A simulator answer as an outcome: read from its fields, never from its message. */
export function outcomeOf(intent: string, result: SimulateResult, endToEndMs: number): Outcome {
  return {
    intent,
    code: result.responseCode,
    endToEndMs,
    switchMs: result.duration,
    ...(result.webhook ? { webhookMs: result.webhook.latencyMs } : {}),
    standIn: result.standIn !== undefined,
    timeout: result.webhook?.timedOut === true,
  };
}

const MAX_RECORDABLE_US = 3_600_000_000; // an hour

function newHistogram(): RecordableHistogram {
  return createHistogram({ lowest: 1, highest: MAX_RECORDABLE_US, figures: 3 });
}

export class LoadStats {
  readonly endToEnd = newHistogram();
  readonly webhookTime = newHistogram();
  readonly codes = new Map<string, number>();
  readonly intents = new Map<string, number>();
  answered = 0;
  approved = 0;
  declined = 0;
  standIns = 0;
  timeouts = 0;
  /** No simulator answer (HTTP error, network). */
  errors = 0;

  add(outcome: Outcome): void {
    this.codes.set(outcome.code, (this.codes.get(outcome.code) ?? 0) + 1);
    this.intents.set(outcome.intent, (this.intents.get(outcome.intent) ?? 0) + 1);
    this.endToEnd.record(toMicros(outcome.endToEndMs));
    if (outcome.switchMs === undefined) {
      this.errors++;
      return;
    }
    this.answered++;
    if (outcome.webhookMs !== undefined) this.webhookTime.record(toMicros(outcome.webhookMs));
    if (isApproved(outcome.code)) this.approved++;
    else this.declined++;
    if (outcome.standIn) this.standIns++;
    if (outcome.timeout) this.timeouts++;
  }

  get requests(): number {
    return this.answered + this.errors;
  }
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
  target: { rate?: number; concurrency?: number; durationMs: number; count: number };
  requests: number;
  approved: number;
  declined: number;
  standIns: number;
  timeouts: number;
  errors: number;
  /** Requests by intent sent, most frequent first. */
  intents: Array<{ intent: string; count: number }>;
  /** Requests by response code (or error label), most frequent first. */
  responseCodes: Array<{ code: string; count: number }>;
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
    target: { ...(shape.kind === 'rate' ? { rate: shape.perSecond } : { concurrency: shape.senders }), durationMs: context.durationMs, count: context.count },
    requests: stats.requests,
    approved: stats.approved,
    declined: stats.declined,
    standIns: stats.standIns,
    timeouts: stats.timeouts,
    errors: stats.errors,
    intents,
    responseCodes,
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

const byCount = (counts: Map<string, number>) => [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

const round2 = (n: number) => Math.round(n * 100) / 100;
