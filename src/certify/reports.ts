// The certification's reports: JSON (every check, its verdict, reason and masked evidence),
// JUnit XML (one test case per check, for CI) and Markdown (to attach to a ticket). Every one is
// built from the report as the disclosure rule shows it (redactValue: card numbers, text or
// numbers, masked; secret fields and signatures redacted) and passed through scrub() before it is
// written: no secret, no full card number.
import { maskPansInText, redactValue, secretReplacer } from '../core/redact.js';
import type { Evidence } from './grade.js';
import type { CertifyReport } from './runner.js';

/** Text with the secret replaced wherever it appears and card numbers masked: the last guard of every output. */
export function scrub(text: string, secret: string): string {
  return secretReplacer([secret])(maskPansInText(text));
}

/** The report as any output may show it (core/redact.ts). */
function disclosed(report: CertifyReport): CertifyReport {
  return redactValue(report) as CertifyReport;
}

export function jsonReport(report: CertifyReport): string {
  return `${JSON.stringify(disclosed(report), null, 2)}\n`;
}

/** XML text and attribute content, escaped; characters XML 1.0 cannot hold are dropped. */
export function escapeXml(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

export function junitReport(given: CertifyReport): string {
  const report = disclosed(given);
  const { passed, failed, skipped } = report.summary;
  const total = passed + failed + skipped;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const time = report.checks.reduce((sum, check) => sum + check.durationMs, 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cardctl webhook certify" tests="${total}" failures="${failed}" skipped="${skipped}" time="${seconds(time)}">`,
    `  <testsuite name="${escapeXml(`webhook certify ${report.url}`)}" tests="${total}" failures="${failed}" skipped="${skipped}" errors="0" time="${seconds(time)}" timestamp="${escapeXml(report.date)}">`,
    '    <properties>',
    ...([['cardctl', report.cardctl], ['url', report.url], ['scheme', report.scheme], ['seed', String(report.seed)], ['sandbox', report.sandbox]] as const)
      .map(([name, value]) => `      <property name="${name}" value="${escapeXml(value)}"/>`),
    '    </properties>',
  ];
  for (const check of report.checks) {
    const open = `    <testcase classname="webhook.certify" name="${escapeXml(check.name)}" time="${seconds(check.durationMs)}"`;
    if (check.verdict === 'pass') {
      lines.push(`${open}/>`);
    } else if (check.verdict === 'skip') {
      lines.push(`${open}>`, `      <skipped message="${escapeXml(check.reason)}"/>`, '    </testcase>');
    } else {
      lines.push(`${open}>`, `      <failure message="${escapeXml(check.reason)}" type="${escapeXml(check.name)}">${escapeXml(evidenceText(check.evidence))}</failure>`, '    </testcase>');
    }
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

/** Evidence as lines of text: each message sent and what came back. */
export function evidenceText(evidence: Evidence[]): string {
  return evidence.map(({ request, response }) => {
    const sent = [request.mti, request.stan && `STAN ${request.stan}`, request.rrn && `RRN ${request.rrn}`, request.pan && `PAN ${request.pan}`, request.amount && `amount ${request.amount}`,
      request.faults?.length && `faults ${request.faults.join(', ')}`].filter(Boolean).join(', ');
    const got = [response.mti && `reply ${response.mti}`, response.code && `39=${response.code}`, response.latencyMs !== undefined && `${response.latencyMs} ms`,
      response.failure && `failure: ${response.failure}`, response.standIn && `stand-in ${response.standIn}`,
      response.acknowledged !== undefined && `${response.acknowledged ? 'acknowledged' : 'not acknowledged'} after ${response.attempts} attempt(s): ${response.lastResult}`].filter(Boolean).join(', ');
    return `sent ${sent} → ${got || 'nothing'}`;
  }).join('\n');
}

const VERDICT_MARK = { pass: '✅ pass', fail: '❌ fail', skip: '⏭ skip' } as const;

export function markdownReport(given: CertifyReport): string {
  const report = disclosed(given);
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const { passed, failed, skipped } = report.summary;
  const lines = [
    '# Webhook certification',
    '',
    `- Webhook: \`${report.url}\``,
    `- Signature scheme: ${report.scheme}`,
    `- Result: **${failed === 0 ? 'passed' : 'failed'}** (${passed} passed, ${failed} failed, ${skipped} skipped)`,
    `- Date: ${report.date}; cardctl ${report.cardctl}; seed ${report.seed}; sandbox ${report.sandbox}`,
    '',
    'Every check is graded by the sandbox from what crossed the wire: what it sent, what came back, what it retried.',
    '',
    '| Check | Verdict | Reason |',
    '|---|---|---|',
    ...report.checks.map((check) => `| \`${check.name}\` | ${VERDICT_MARK[check.verdict]} | ${cell(check.reason)} |`),
    '',
    '## Checks',
    '',
  ];
  for (const check of report.checks) {
    lines.push(`### ${check.name}: ${check.verdict}`, '', check.proves, '', `Reason: ${check.reason}`, '');
    if (check.evidence.length > 0) lines.push('```', evidenceText(check.evidence), '```', '');
  }
  return lines.join('\n');
}
