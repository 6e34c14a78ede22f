// The latency check: authorizations at a modest rate for a short while (open loop, through the
// load run's scheduler and statistics), graded on the webhook's latency as the network saw it.
import { runSchedule } from '../load/scheduler.js';
import { latencySummary, LoadStats, outcomeOf } from '../load/stats.js';
import type { CheckContext } from './context.js';
import { gradeLatency, type Verdict } from './grade.js';

export const DEFAULT_LATENCY = { perSecond: 5, durationMs: 3_000 } as const;

export async function runLatency(ctx: CheckContext): Promise<Verdict> {
  const stats = new LoadStats();
  const { perSecond, durationMs } = ctx.latency;
  await runSchedule({ kind: 'rate', perSecond }, { durationMs, count: Math.ceil((perSecond * durationMs) / 1000) }, async (_index, dueAt) => {
    try {
      const result = await ctx.session.authorize(1);
      stats.add(outcomeOf('authorization', result, performance.now() - dueAt));
    } catch {
      stats.add({ intent: 'authorization', code: 'error', endToEndMs: performance.now() - dueAt, webhookReplied: false, standIn: false, timeout: false });
    }
  }, { signal: ctx.signal });
  const summary = latencySummary(stats.webhookTime);
  return gradeLatency({
    requests: stats.answered + stats.errors,
    replies: stats.webhookReplies,
    timeouts: stats.timeouts,
    ...(summary ? { p50: summary.p50, p99: summary.p99, max: summary.max } : {}),
  }, ctx.deadlineMs);
}
