// The SLO flags of `simulate load`: parsed up front (usage errors), checked against the report.
import { UsageError } from '../core/errors.js';
import type { LoadReport } from './stats.js';

export interface Slos {
  /** The webhook's p99 as the network saw it (its replies, and timeouts at the deadline), ms. */
  maxP99Ms?: number;
  /** Timeouts as a fraction of requests. */
  maxTimeouts?: number;
  /** Requests the webhook gave no valid answer to (an HTTP error, an invalid reply, unreachable, a timeout), as a fraction of requests. */
  maxErrors?: number;
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

/**
 * One line per missed SLO; none when all are met. An SLO without samples is missed: the webhook's
 * (--max-p99, --max-timeouts) when no reply from it arrived, --min-approval when nothing was answered.
 */
export function missedSlos(report: LoadReport, slos: Slos): string[] {
  const missed: string[] = [];
  const requests = report.requests;
  const unanswered = report.webhookReplies === 0 ? noReplyText(report) : undefined;
  if (slos.maxP99Ms !== undefined) {
    const p99 = report.latencyMs.webhook?.p99;
    if (unanswered) missed.push(`--max-p99 ${slos.maxP99Ms} ms: ${unanswered}`);
    else if (p99 !== undefined && p99 > slos.maxP99Ms) missed.push(`p99 latency ${p99} ms is above --max-p99 ${slos.maxP99Ms} ms`);
  }
  if (slos.maxTimeouts !== undefined) {
    const share = requests > 0 ? report.timeouts / requests : 0;
    if (unanswered) missed.push(`--max-timeouts ${percent(slos.maxTimeouts)}: ${unanswered}`);
    else if (share > slos.maxTimeouts) missed.push(`timeouts ${percent(share)} (${report.timeouts} of ${requests}) are above --max-timeouts ${percent(slos.maxTimeouts)}`);
  }
  if (slos.maxErrors !== undefined) {
    const failed = report.webhookFailures.reduce((sum, { count }) => sum + count, 0) + report.errors;
    const share = requests > 0 ? failed / requests : 0;
    if (requests === 0) missed.push(`--max-errors ${percent(slos.maxErrors)}: no request was sent`);
    else if (share > slos.maxErrors) missed.push(`errors ${percent(share)} (${failed} of ${requests} without a valid answer from the webhook) are above --max-errors ${percent(slos.maxErrors)}`);
  }
  if (slos.minApproval !== undefined) {
    const answered = requests - report.errors;
    if (answered === 0) missed.push(`--min-approval ${percent(slos.minApproval)}: no request was answered (${requests ? `${report.errors} of ${requests} had no simulator answer` : 'none sent'})`);
    else {
      const share = report.approved / requests;
      if (share < slos.minApproval) missed.push(`approvals ${percent(share)} (${report.approved} of ${requests}) are below --min-approval ${percent(slos.minApproval)}`);
    }
  }
  return missed;
}

/** "no webhook answered (of 96 requests: no webhook URL 96)": who decided instead. */
function noReplyText(report: LoadReport): string {
  const { sandbox } = report.declinedBy;
  const parts = [
    ...(sandbox.count ? [`declined by the sandbox ${sandbox.count} (${sandbox.responseCodes.map(({ code, count }) => `${code}: ${count}`).join(', ')})`] : []),
    ...report.webhookFailures.map(({ cause, count }) => `${cause} ${count}`),
    ...(report.errors ? [`no simulator answer ${report.errors}`] : []),
  ];
  return `no webhook answered (of ${report.requests} request${report.requests === 1 ? '' : 's'}: ${parts.join(', ') || 'none sent'})`;
}
