// Runs the selected checks one after another against the session, each to a verdict: a check
// that cannot run (the sandbox refused its message, a network error) fails with why.
import { redactUserinfo, redactUrl } from '../core/redact.js';
import type { SignatureScheme } from '../webhook-protocol/signature.js';
import { CHECKS } from './checks.js';
import type { CheckContext } from './context.js';
import { fail, type Evidence, type VerdictKind } from './grade.js';

export interface CheckResult {
  name: string;
  proves: string;
  verdict: VerdictKind;
  reason: string;
  evidence: Evidence[];
  durationMs: number;
}

export interface CertifyReport {
  cardctl: string;
  date: string;
  /** The webhook's URL, userinfo redacted. */
  url: string;
  scheme: SignatureScheme;
  seed: number;
  /** Where the sandbox ran: `in-process`, or the profile's name. */
  sandbox: string;
  summary: { passed: number; failed: number; skipped: number };
  checks: CheckResult[];
}

export async function runChecks(names: readonly string[], ctx: CheckContext, onResult: (result: CheckResult) => void = () => {}): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of CHECKS.filter((c) => names.includes(c.name))) {
    if (ctx.signal.aborted) break;
    const started = performance.now();
    const verdict = await check.run(ctx).catch((error: Error) => fail(`the check could not run: ${redactUserinfo(error.message)}`));
    const result = { name: check.name, proves: check.proves, ...verdict, durationMs: Math.round(performance.now() - started) };
    results.push(result);
    onResult(result);
  }
  return results;
}

export function buildReport(results: CheckResult[], meta: { version: string; date: Date; url: string; scheme: SignatureScheme; seed: number; sandbox: string }): CertifyReport {
  const count = (kind: VerdictKind) => results.filter((r) => r.verdict === kind).length;
  return {
    cardctl: meta.version,
    date: meta.date.toISOString(),
    url: redactUrl(meta.url),
    scheme: meta.scheme,
    seed: meta.seed,
    sandbox: meta.sandbox,
    summary: { passed: count('pass'), failed: count('fail'), skipped: count('skip') },
    checks: results,
  };
}
