// The report of `simulate load` as text: the figures, the declines by who decided, then the
// webhook's latency percentiles as bars, with the network's deadline.
import type { Style } from '../output/style.js';
import type { LatencySummary, LoadReport } from './stats.js';

const BAR_WIDTH = 40;

export function renderReport(report: LoadReport, style: Style): string {
  const ramp = report.target.rampMs ? `, after a ramp of ${report.target.rampMs / 1000} s` : '';
  const target = report.target.rate !== undefined ? `${report.target.rate}/s (open loop${ramp})` : `concurrency ${report.target.concurrency} (closed loop)`;
  const share = (n: number) => (report.requests ? ` (${Math.round((n / report.requests) * 1000) / 10}%)` : '');
  const lines = [
    style.bold(report.interrupted ? 'Load run (interrupted: the report so far)' : 'Load run'),
    row('Target', target),
    row('Achieved', `${report.achievedRate}/s ${report.target.rate !== undefined ? 'sent' : 'answered'} over ${(report.elapsedMs / 1000).toFixed(1)} s`),
    row('Requests', `${report.requests}: ${report.intents.map(({ intent, count }) => `${count} ${intent}`).join(', ') || '-'}`),
    ...report.notSent.map(({ reason, count }) => row('Not sent', `${count} (${reason})`)),
    row('Approved', `${report.approved}${share(report.approved)}`),
    row('Declined', `${report.declined}${share(report.declined)}`),
    ...declineRows(report),
    row('Stand-ins', `${report.standIns}${share(report.standIns)}`),
    row('Timeouts', `${report.timeouts}${share(report.timeouts)}`),
    ...(report.errors ? [row('Errors', `${report.errors}${share(report.errors)} (no simulator answer)`)] : []),
    row('Codes', report.responseCodes.map(({ code, count }) => `${code}: ${count}`).join(', ') || '-'),
    row('Webhook', webhookText(report)),
    row('End to end', latencyText(report.latencyMs.endToEnd)),
  ];
  const webhook = report.latencyMs.webhook;
  if (webhook) lines.push('', style.bold('Webhook latency'), ...bars(webhook, report.deadlineMs));
  return `${lines.join('\n')}\n`;
}

const row = (label: string, value: string) => `  ${label.padEnd(11)} ${value}`;

const counts = (entries: Array<{ count: number; code?: string; cause?: string }>) => entries.map((e) => `${e.code ?? e.cause}: ${e.count}`).join(', ');

/** Who declined: the sandbox's own checks (limits, card state…), the webhook, or the network standing in (by cause). */
function declineRows({ declinedBy: { sandbox, webhook, standIn } }: LoadReport): string[] {
  return [
    ...(sandbox.count ? [`    by the sandbox ${sandbox.count} (${counts(sandbox.responseCodes)})`] : []),
    ...(webhook.count ? [`    by the webhook ${webhook.count} (${counts(webhook.responseCodes)})`] : []),
    ...(standIn.count ? [`    by stand-in    ${standIn.count} (${counts(standIn.causes)})`] : []),
  ];
}

function webhookText(report: LoadReport): string {
  const failures = counts(report.webhookFailures);
  if (report.webhookReplies === 0) return failures ? `no reply (${failures})` : 'no reply';
  const replies = `${report.webhookReplies} repl${report.webhookReplies === 1 ? 'y' : 'ies'}`;
  return `${replies}: ${latencyText(report.latencyMs.webhook, report.deadlineMs)}${failures ? `; no usable reply: ${failures}` : ''}`;
}

function latencyText(latency: LatencySummary | undefined, deadlineMs?: number): string {
  if (!latency) return '-';
  const text = `p50 ${latency.p50} ms  p90 ${latency.p90} ms  p99 ${latency.p99} ms  max ${latency.max} ms`;
  return deadlineMs === undefined ? text : `${text}  (deadline ${deadlineMs} ms)`;
}

function bars(latency: LatencySummary, deadlineMs: number): string[] {
  const entries: Array<[string, number]> = [['p50', latency.p50], ['p90', latency.p90], ['p99', latency.p99], ['max', latency.max]];
  // Scaled to the slowest answer; the deadline gets a bar only when it falls within that scale.
  if (deadlineMs <= latency.max) entries.push(['deadline', deadlineMs]);
  const scale = latency.max || 1;
  const lines = entries.map(([label, ms]) => `  ${label.padEnd(9)}${'█'.repeat(Math.max(1, Math.round((ms / scale) * BAR_WIDTH)))} ${ms} ms`);
  if (deadlineMs > latency.max) lines.push(`  ${'deadline'.padEnd(9)}${deadlineMs} ms (${Math.round((deadlineMs / scale) * 10) / 10}× the slowest answer)`);
  return lines;
}
