// Runs the selected checks one after another against the session, each to a verdict: a check
// that cannot run (the sandbox refused its message, a network error) fails with why. After each
// check, and once more at the end, every exchange of the run is held to wire.ts: one that is not
// a usable answer fails the check whose message it was, whatever that check graded.
import { redactUserinfo, redactUrl } from '../core/redact.js';
import type { SignatureScheme } from '../webhook-protocol/signature.js';
import { CHECKS } from './checks.js';
import type { CheckContext } from './context.js';
import { fail, type Evidence, type VerdictKind } from './grade.js';
import { exchangeEvidence, exchangeProblem } from './wire.js';

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
    ctx.session.beginCheck(check.name);
    const verdict = await check.run(ctx).catch((error: Error) => fail(`the check could not run: ${redactUserinfo(error.message)}`));
    const result: CheckResult = { name: check.name, proves: check.proves, ...verdict, durationMs: Math.round(performance.now() - started) };
    results.push(result);
    await holdToTheWire(ctx, results);
    onResult(result);
  }
  // Deliveries that came late (an advice sent again, a timeout reversal) count too.
  if (!ctx.signal.aborted) await holdToTheWire(ctx, results);
  return results;
}

/** Fails each check whose messages got an answer that is not one (wire.ts), naming the first; a check not in the results fails in its place the one that was running. */
async function holdToTheWire(ctx: CheckContext, results: CheckResult[]): Promise<void> {
  const exchanges = await ctx.session.newExchanges().catch((error: Error) => {
    results.at(-1)!.verdict = 'fail';
    results.at(-1)!.reason = `the sandbox's exchange log could not be read: ${redactUserinfo(error.message)}`;
    return [];
  });
  for (const { check, exchange, refusalExpected } of exchanges) {
    const problem = exchangeProblem(exchange, refusalExpected);
    if (!problem) continue;
    const result = results.find((r) => r.name === check) ?? results.at(-1)!;
    if (result.verdict !== 'fail') {
      result.reason = `${problem} (the check had ${result.verdict === 'pass' ? 'passed' : 'been skipped'}: ${result.reason})`;
      result.verdict = 'fail';
    } else if (!result.reason.includes(problem) && result.evidence.length < 8) {
      result.reason = `${result.reason}; and ${problem}`;
    }
    result.evidence = [...result.evidence, exchangeEvidence(exchange)];
  }
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
