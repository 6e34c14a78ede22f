// The run of `cardctl webhook certify`: the secret, the sandbox (in this process, or the
// profile's running one), the session, the checks, the table, the failures' evidence, the reports.
import { randomInt } from 'node:crypto';
import type { Context } from '../../contract/context.js';
import { InterruptedError, UsageError } from '../../core/errors.js';
import { redactUrl } from '../../core/redact.js';
import { writeFileAtomic } from '../../core/write-file.js';
import type { Column } from '../../output/renderer.js';
import { VERSION } from '../../version.js';
import { WEBHOOK_TIMEOUT_MS } from '../../webhook-protocol/reply.js';
import type { SignatureScheme } from '../../webhook-protocol/signature.js';
import { ACKNOWLEDGEMENT_WINDOW_MS } from '../../certify/context.js';
import { CertifySession } from '../../certify/session.js';
import { buildReport, runChecks, type CheckResult } from '../../certify/runner.js';
import { evidenceText, jsonReport, junitReport, markdownReport, scrub } from '../../certify/reports.js';
import { isApproved } from '../../iso8583/codes.js';
import { checkSecretForScheme, readSecretStdin, WEBHOOK_PREVIOUS_SECRET_ENV, WEBHOOK_SECRET_ENV, webhookSecret } from './secret-stdin.js';
import { terminalLine } from '../../output/format.js';

export interface CertifyInput {
  url: string;
  secretStdin: boolean;
  /** The retired secret from stdin (the current one then comes from the environment). */
  previousSecretStdin: boolean;
  scheme: SignatureScheme;
  checks: string[];
  expect: Record<string, readonly string[]>;
  latency: { perSecond: number; durationMs: number };
  seed: number;
  outputs: { report?: string | undefined; junit?: string | undefined; markdown?: string | undefined };
  profile?: string | undefined;
}

const COLUMNS: Column<CheckResult>[] = [
  { header: 'CHECK', path: 'name' },
  { header: 'VERDICT', path: 'verdict', status: true },
  { header: 'REASON', path: 'reason' },
];

/** In-process, the sandbox retries an unacknowledged advice after 0.5 s, doubling: three attempts within the window. */
const ADVICE_RETRY_FIRST_MS = 500;

export async function certify(ctx: Context, input: CertifyInput): Promise<{ failed: string[] }> {
  const { secret, retired } = await readSecrets(ctx, input);
  const { ApiClient } = await import('../../api/client.js');
  let client: InstanceType<typeof ApiClient>;
  let close = async () => {};
  let where: string;
  if (input.profile) {
    if (ctx.settings().profile.env !== 'sandbox') {
      throw new UsageError(`profile "${input.profile}" is not a sandbox: certify drives a sandbox`, { hint: 'store one with `cardctl sandbox serve --profile NAME`, or leave out -p to start one in this process' });
    }
    client = await ctx.client();
    where = `profile ${input.profile}`;
  } else {
    const { startSandbox } = await import('../../sandbox/index.js');
    // STANs start at a random point each run: a handler that remembers STAN+RRN (as a network's
    // duplicate check does) must not answer this run from an earlier run's record of the same hour.
    const sandbox = await startSandbox({ memory: true, port: 0, adviceRetryFirstMs: ADVICE_RETRY_FIRST_MS, webhookFaultsSeed: input.seed, firstStan: randomInt(1, 900_000) });
    close = () => sandbox.close();
    client = new ApiClient({ baseUrl: sandbox.baseUrl, getToken: async () => sandbox.token, ...ctx.connection() });
    where = 'in-process';
  }
  try {
    const session = await CertifySession.open(client, { url: input.url, secret, retiredSecret: retired, scheme: input.scheme, seed: input.seed, freshStans: Boolean(input.profile) }, ctx.signal);
    ctx.log.info(`Certifying ${scrub(redactUrl(input.url), secret)} (${input.scheme} signatures, seed ${input.seed}, sandbox ${where}): ${input.checks.length} checks`);
    const results = await session.isolated(() => runChecks(input.checks, {
      session, deadlineMs: WEBHOOK_TIMEOUT_MS, windowMs: ACKNOWLEDGEMENT_WINDOW_MS, latency: input.latency, signal: ctx.signal,
      expect: (check) => input.expect[check],
      declinesByPolicy: (code) => !isApproved(code) && (input.expect['authorization-reply'] ?? []).includes(code),
    }, (result) => ctx.log.info(`${result.verdict === 'pass' ? '✓' : result.verdict === 'skip' ? '-' : '✗'} ${result.name}`, 'dim')));
    const report = buildReport(results, { version: VERSION, date: ctx.clock.now(), url: input.url, scheme: input.scheme, seed: input.seed, sandbox: where });
    const clean = (text: string) => scrub(retired ? scrub(text, retired) : text, secret);
    // The table, and everything after, through the same guard as the files.
    const shown = JSON.parse(clean(JSON.stringify(report.checks))) as CheckResult[];
    await ctx.output().list(shown, COLUMNS, { idPath: 'name' });
    for (const check of shown.filter((c) => c.verdict === 'fail')) {
      const lines = [`✗ ${check.name}: ${check.reason}`, ...(check.evidence.length > 0 ? evidenceText(check.evidence).split('\n').map((line) => `    ${line}`) : [])];
      ctx.io.err(`\n${lines.map(terminalLine).join('\n')}\n`);
    }
    const { report: json, junit, markdown } = input.outputs;
    if (json) writeFileAtomic(json, clean(jsonReport(report)), { mode: 0o644 });
    if (junit) writeFileAtomic(junit, clean(junitReport(report)), { mode: 0o644 });
    if (markdown) writeFileAtomic(markdown, clean(markdownReport(report)), { mode: 0o644 });
    const { passed, failed, skipped } = report.summary;
    ctx.log.info(`${passed} passed, ${failed} failed, ${skipped} skipped`);
    // Interrupted: the checks run so far are reported, and the run is not a verdict.
    if (ctx.signal.aborted) throw new InterruptedError();
    return { failed: results.filter((r) => r.verdict === 'fail').map((r) => r.name) };
  } finally {
    await close();
  }
}

/**
 * The webhook secret, and the retired one of a rotation when given (CARDCTL_WEBHOOK_PREVIOUS_SECRET,
 * or --previous-secret-stdin while the current comes from the environment); each checked against
 * the scheme. Usage errors, before anything is sent.
 */
async function readSecrets(ctx: Context, input: CertifyInput): Promise<{ secret: string; retired?: string | undefined }> {
  if (input.secretStdin && input.previousSecretStdin) {
    throw new UsageError('--secret-stdin and --previous-secret-stdin both read stdin: give one of the two secrets in the environment', { hint: `${WEBHOOK_SECRET_ENV} for the current secret, then pipe the retired one to --previous-secret-stdin` });
  }
  const secret = await webhookSecret(ctx, input.secretStdin, 'webhook certify --url URL');
  if (!secret) throw new UsageError(`no webhook secret: give it on stdin with --secret-stdin, or in ${WEBHOOK_SECRET_ENV}`, { hint: 'echo "$SECRET" | cardctl webhook certify --url URL --secret-stdin' });
  const retired = input.previousSecretStdin ? await readSecretStdin(ctx.io, 'webhook certify --url URL', '--previous-secret-stdin') : ctx.env[WEBHOOK_PREVIOUS_SECRET_ENV]?.trim() || undefined;
  checkSecretForScheme(secret, input.scheme, 'the webhook secret');
  if (retired !== undefined) {
    checkSecretForScheme(retired, input.scheme, 'the retired secret');
    if (retired === secret) throw new UsageError('the retired secret is the webhook secret itself: give the one the rotation replaced');
  }
  return { secret, retired };
}
