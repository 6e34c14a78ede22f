// The SLO flags of `simulate load`: parsed up front (usage errors), checked against the report.
import { UsageError } from '../core/errors.js';
import type { LoadReport } from './stats.js';

export interface Slos {
  /** The webhook's p99 (the switch's time; end to end when the sandbox gave none), ms. */
  maxP99Ms?: number;
  /** Timeouts as a fraction of requests. */
  maxTimeouts?: number;
  /** Approvals as a fraction of requests. */
  minApproval?: number;
}

/** `1500ms`, `1.5s` → ms. */
export function parseMillis(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s)$/.exec(text.trim());
  if (!match) throw new UsageError(`invalid ${flag} "${text}": give a duration such as 1500ms or 1.5s`);
  return Number(match[1]) * (match[2] === 's' ? 1000 : 1);
}

/** `0.1%` → 0.001. */
export function parsePercent(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*%$/.exec(text.trim());
  const value = match ? Number(match[1]) : NaN;
  if (!(value >= 0 && value <= 100)) throw new UsageError(`invalid ${flag} "${text}": give a percentage from 0% to 100%, e.g. 0.1%`);
  return value / 100;
}

const percent = (fraction: number) => `${Math.round(fraction * 10_000) / 100}%`;

/** One line per missed SLO; none when all are met. */
export function missedSlos(report: LoadReport, slos: Slos): string[] {
  const missed: string[] = [];
  const requests = report.requests;
  if (slos.maxP99Ms !== undefined) {
    const p99 = (report.latencyMs.webhook ?? report.latencyMs.endToEnd)?.p99;
    if (p99 !== undefined && p99 > slos.maxP99Ms) missed.push(`p99 latency ${p99} ms is above --max-p99 ${slos.maxP99Ms} ms`);
  }
  if (slos.maxTimeouts !== undefined && requests > 0) {
    const share = report.timeouts / requests;
    if (share > slos.maxTimeouts) missed.push(`timeouts ${percent(share)} (${report.timeouts} of ${requests}) are above --max-timeouts ${percent(slos.maxTimeouts)}`);
  }
  if (slos.minApproval !== undefined) {
    const share = requests > 0 ? report.approved / requests : 0;
    if (share < slos.minApproval) missed.push(`approvals ${percent(share)} (${report.approved} of ${requests}) are below --min-approval ${percent(slos.minApproval)}`);
  }
  return missed;
}
