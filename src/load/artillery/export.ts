// `simulate load --export artillery DIR`: the run's traffic written as an Artillery script
// instead of sent, for load past one machine (docs/load-past-one-machine.md). The sandbox gives
// the cards in the clear (POST /sandbox/card-pool); the directory gets the script (phases from
// --rate/--duration, `ensure` conditions from the SLO flags), the processor (the switch's message
// builder and the protocol's signing and reply rules, bundled: scripts/artillery-processor.mjs),
// traffic.json, cards.json (0600) and a README. Written whole or not at all; never the secret.
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Context } from '../../contract/context.js';
import { UsageError } from '../../core/errors.js';
import { redactUrl } from '../../core/redact.js';
import { cardCurrency, DEFAULT_CURRENCY, parseAmount, toField4 } from '../../iso8583/amount.js';
import { WEBHOOK_TIMEOUT_MS } from '../../webhook-protocol/reply.js';
import { schemeOfWebhookType } from '../../webhook-protocol/signature.js';
import type { Mix } from '../mix.js';
import type { LoadBounds, LoadShape } from '../scheduler.js';
import type { Slos } from '../slo.js';
import { COUNTERS, EXPORT_FILES, SECRET_VARIABLE, type CardPoolFile, type Traffic } from './files.js';

export const EXPORT_FORMATS = ['artillery'] as const;

/** The export asked for: where, and to which URL (else the program's webhook URL). */
export interface ExportPlan {
  dir: string;
  url?: string;
  /** Artillery's phases: a ramp from 0 up to the rate (when asked for), then arrivals a second for whole seconds. */
  ratePerSecond: number;
  rampSeconds?: number;
  durationSeconds: number;
}

/** `--export artillery DIR` (and --url) checked with the rest of the flags: what Artillery can run. */
export function parseExport(opts: { export?: string[]; url?: string; count?: string; duration?: string }, shape: LoadShape, bounds: LoadBounds): ExportPlan | undefined {
  if (opts.export === undefined) {
    if (opts.url !== undefined) throw new UsageError('--url is for --export: a load run sends through the sandbox to the program\'s webhook');
    return undefined;
  }
  const [format, dir, ...rest] = opts.export;
  if (!(EXPORT_FORMATS as readonly string[]).includes(format ?? '') || dir === undefined || dir === '' || rest.length > 0) {
    throw new UsageError(`invalid --export ${opts.export.join(' ')}: expected a format (${EXPORT_FORMATS.join(', ')}) and a directory`, { hint: 'e.g. --export artillery ./load' });
  }
  if (shape.kind !== 'rate') throw new UsageError('--export artillery needs --rate: Artillery sends at a rate whatever the answers (an open loop), not --concurrency');
  if (opts.count !== undefined) throw new UsageError('--export artillery takes --duration, not --count: an Artillery phase is a rate for a time');
  const durationSeconds = Math.round(bounds.durationMs / 1000);
  if (durationSeconds < 1 || durationSeconds * 1000 !== bounds.durationMs) throw new UsageError(`--duration ${opts.duration ?? ''} for --export artillery: give whole seconds, e.g. 30s or 5m`);
  if (!Number.isInteger(shape.perSecond)) throw new UsageError(`--rate ${shape.perSecond}/s for --export artillery: give whole requests a second`);
  const rampSeconds = shape.rampMs === undefined ? undefined : Math.round(shape.rampMs / 1000);
  if (rampSeconds !== undefined && (rampSeconds < 1 || rampSeconds * 1000 !== shape.rampMs)) throw new UsageError(`--ramp ${shape.rampMs} ms for --export artillery: give whole seconds, e.g. 30s`);
  if (opts.url !== undefined) checkUrl(opts.url, '--url');
  checkTargetFree(resolve(dir));
  return { dir, ...(opts.url !== undefined ? { url: opts.url } : {}), ratePerSecond: shape.perSecond, ...(rampSeconds !== undefined ? { rampSeconds } : {}), durationSeconds };
}

function checkUrl(url: string, source: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${source} "${url.slice(0, 80)}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`${source} "${url.slice(0, 80)}" is not an http(s) URL`);
  return parsed;
}

/** One `ensure` condition: Artillery's expression over the report, and what it means. */
export interface EnsureCondition {
  expression: string;
  meaning: string;
}

const percent = (fraction: number) => `${Math.round(fraction * 10_000) / 100}%`;

/**
 * The SLO flags as `ensure` conditions over the summed report of every runner. A bound is on a
 * share of cardctl.requests, so a run that sent nothing misses it (0/0 is no number). An export
 * always bounds the errors: 0% unless --max-errors says otherwise.
 */
export function ensureConditions(slos: Slos): EnsureCondition[] {
  const share = (counter: string) => `${counter} / ${COUNTERS.requests}`;
  const maxErrors = slos.maxErrors ?? 0;
  const conditions: EnsureCondition[] = [
    { expression: `${share(COUNTERS.failed)} <= ${maxErrors}`, meaning: `requests without a valid answer (an HTTP error, an invalid reply, unreachable, a timeout) at most ${percent(maxErrors)} (--max-errors${slos.maxErrors === undefined ? ', 0% by default' : ''})` },
  ];
  if (slos.maxP99Ms !== undefined) conditions.push({ expression: `http.response_time.p99 <= ${slos.maxP99Ms}`, meaning: `the webhook's p99 latency (its replies' time to first byte) at most ${slos.maxP99Ms} ms (--max-p99); with no reply, missed` });
  if (slos.maxTimeouts !== undefined) conditions.push({ expression: `${share(COUNTERS.timeout)} <= ${slos.maxTimeouts}`, meaning: `requests with no reply within ${WEBHOOK_TIMEOUT_MS / 1000} s (the network's deadline) at most ${percent(slos.maxTimeouts)} (--max-timeouts)` });
  if (slos.minApproval !== undefined) conditions.push({ expression: `${share(COUNTERS.approved)} >= ${slos.minApproval}`, meaning: `approvals at least ${percent(slos.minApproval)} of requests (--min-approval)` });
  return conditions;
}

/** What the export needs of the run's plan. */
export interface ExportInput {
  plan: ExportPlan;
  cards: string[];
  mix: Mix;
  channels: string[];
  amount: string;
  slos: Slos;
}

export async function runExport(ctx: Context, input: ExportInput): Promise<void> {
  const { plan } = input;
  const target = resolve(plan.dir);
  const currency = cardCurrency(DEFAULT_CURRENCY);
  const amountField4 = toField4(parseAmount(input.amount, currency.digits));
  const { getCardPool } = await import('../../api/simulate.js');
  const pool = (await getCardPool(await ctx.client(), input.cards, ctx.signal)).data;
  if (pool.programs.length !== 1) {
    throw new UsageError(`the cards are of ${pool.programs.length} card programs (${pool.programs.map((p) => p.id).join(', ')}): an export sends to one webhook in one scheme`, { hint: 'give cards of one card program' });
  }
  const program = pool.programs[0]!;
  if (plan.url === undefined && program.webhook.url.trim() === '') throw new UsageError(`card program ${program.id} has no webhook URL to send to`, { hint: 'set its webHookConfig.url, or give --url' });
  const url = checkUrl(plan.url ?? program.webhook.url, plan.url !== undefined ? '--url' : `card program ${program.id}'s webhook URL`);
  const traffic: Traffic = {
    mix: input.mix,
    channels: input.channels,
    amountField4,
    currency: currency.number,
    scheme: schemeOfWebhookType(program.webhook.type),
    ...(program.webhook.header.trim() !== '' ? { secretHeader: program.webhook.header.trim().toLowerCase() } : {}),
    reversalWaitMs: WEBHOOK_TIMEOUT_MS,
  };
  const cardsFile: CardPoolFile = {
    sandboxTestData: 'Test cards of a cardctl sandbox (full card numbers, expiry and the data of track 2), for load tests of a webhook only. Not real cards; keep this file to the people who run the test.',
    cards: pool.cards.map(({ cardProgram: _program, ...card }) => card),
  };
  const conditions = ensureConditions(input.slos);
  const { default: processorText } = await import('cardctl:artillery-processor');
  const files: Array<{ name: string; text: string; mode: number }> = [
    { name: EXPORT_FILES.script, text: await scriptText(url, plan, conditions), mode: 0o644 },
    { name: EXPORT_FILES.processor, text: processorText, mode: 0o644 },
    { name: EXPORT_FILES.traffic, text: `${JSON.stringify(traffic, null, 2)}\n`, mode: 0o644 },
    { name: EXPORT_FILES.cards, text: `${JSON.stringify(cardsFile, null, 2)}\n`, mode: 0o600 },
    { name: EXPORT_FILES.readme, text: readmeText(plan, url, traffic, conditions), mode: 0o644 },
  ];
  writeDirectory(target, files);

  const summary = { directory: target, files: files.map((file) => file.name), target: redactUrl(url), phases: phasesOf(plan), ensure: conditions, run: runCommands(plan.dir, plan.ratePerSecond) };
  const renderer = ctx.output();
  if (renderer.format === 'table' && !renderer.settings.quiet) ctx.io.out(summaryText(plan, url, conditions));
  else await renderer.record(summary);
}

/** The directory must be new, or empty: an export never mixes with other files. */
function checkTargetFree(target: string): void {
  let entries: string[];
  try {
    if (!statSync(target).isDirectory()) throw new UsageError(`--export: ${target} exists and is not a directory`);
    entries = readdirSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (entries.length > 0) throw new UsageError(`--export: ${target} is not empty`, { hint: 'give a new directory (an export never mixes with other files)' });
}

/** The files into a sibling temporary directory, renamed into place at the end: the directory appears whole or not at all. */
function writeDirectory(target: string, files: Array<{ name: string; text: string; mode: number }>): void {
  const parent = dirname(target);
  const temporary = join(parent, `.${basename(target)}.cardctl-${process.pid}.tmp`);
  try {
    mkdirSync(temporary, { mode: 0o700 });
    for (const file of files) {
      writeFileSync(join(temporary, file.name), file.text, { mode: file.mode });
      chmodSync(join(temporary, file.name), file.mode); // the umask may have taken bits of a 0644
    }
    try {
      rmdirSync(target); // empty, or absent
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code) throw new UsageError(`--export: cannot write ${target}: ${code}`);
    throw error;
  }
}

/** --ramp, --rate and --duration as Artillery phases: arrivals rising from 0 to the rate, then at the rate. */
export function phasesOf(plan: Pick<ExportPlan, 'ratePerSecond' | 'rampSeconds' | 'durationSeconds'>): Array<Record<string, string | number>> {
  const ramp = plan.rampSeconds === undefined ? [] : [{ name: `ramp to ${plan.ratePerSecond}/s over ${plan.rampSeconds} s`, duration: plan.rampSeconds, arrivalRate: 0, rampTo: plan.ratePerSecond }];
  return [...ramp, { name: `${plan.ratePerSecond}/s for ${plan.durationSeconds} s`, duration: plan.durationSeconds, arrivalRate: plan.ratePerSecond }];
}

async function scriptText(url: URL, plan: ExportPlan, conditions: EnsureCondition[]): Promise<string> {
  const { stringifyYaml } = await import('../../core/yaml.js');
  const script = {
    config: {
      target: url.origin,
      phases: phasesOf(plan),
      processor: `./${EXPORT_FILES.processor}`,
      // Sent with the script to every runner (run-fargate, run-lambda): the processor reads them.
      includeFiles: [`./${EXPORT_FILES.traffic}`, `./${EXPORT_FILES.cards}`],
      // The network's deadline: no reply by then is a timeout.
      http: { timeout: WEBHOOK_TIMEOUT_MS / 1000 },
      ensure: { conditions: conditions.map(({ expression }) => ({ expression })) },
      // Loads the ensure plugin on Artillery versions that do not load it by default.
      plugins: { ensure: {} },
    },
    scenarios: [{
      name: 'cardctl simulate load',
      onError: ['cardctlOnError'],
      flow: [
        { function: 'cardctlNextMessage' },
        { post: { url: `${url.pathname}${url.search}`, ifTrue: 'cardctlSend', beforeRequest: ['cardctlSign'], afterResponse: ['cardctlCheckReply'] } },
      ],
    }],
  };
  return `# Written by cardctl simulate load --export artillery (README.md says how to run it).\n${await stringifyYaml(script)}`;
}

/** How to run the export, on this machine and on AWS: the same lines in the README and on screen. */
function runCommands(dir: string, rate: number): { local: string; fargate: string; lambda: string; note: string } {
  const script = join(dir, EXPORT_FILES.script);
  return {
    local: `ARTILLERY_DISABLE_TELEMETRY=true artillery run ${script}`,
    fargate: `artillery run-fargate --count N --region REGION --secret ${SECRET_VARIABLE} ${script}`,
    lambda: `artillery run-lambda --count N --region REGION --dotenv FILE ${script}`,
    note: `Each runner sends the script's ${rate}/s: N runners send N × ${rate}/s. Artillery sums their counters and merges their latencies into one report (--output report.json), and checks ensure against it: exit 1 when a condition is missed.`,
  };
}

function summaryText(plan: ExportPlan, url: URL, conditions: EnsureCondition[]): string {
  const commands = runCommands(plan.dir, plan.ratePerSecond);
  return [
    `Wrote an Artillery load script to ${plan.dir} (nothing was sent): ${plan.rampSeconds ? `a ramp over ${plan.rampSeconds} s, then ` : ''}${plan.ratePerSecond}/s for ${plan.durationSeconds} s to ${redactUrl(url)}`,
    `  ${EXPORT_FILES.script}  phases and ensure conditions; ${EXPORT_FILES.processor} builds, signs and checks each message (Node only)`,
    `  ${EXPORT_FILES.cards}  the run's test cards in the clear (sandbox test data, mode 0600); ${EXPORT_FILES.traffic}  the mix, channels, amount`,
    'Ensure:',
    ...conditions.map(({ expression, meaning }) => `  ${expression}    ${meaning}`),
    `Run it with Artillery 2 (yours: npm install -g artillery), the program's webhook secret in ${SECRET_VARIABLE} (never written into ${plan.dir}):`,
    `  ${commands.local}`,
    `  ${commands.fargate}`,
    `  ${commands.lambda}`,
    commands.note,
    '',
  ].join('\n');
}

function readmeText(plan: ExportPlan, url: URL, traffic: Traffic, conditions: EnsureCondition[]): string {
  const commands = runCommands('.', plan.ratePerSecond);
  const mix = traffic.mix.map(({ intent, weight }) => `${intent}=${weight}`).join(', ');
  return `# A cardctl load test, as an Artillery script

Written by \`cardctl simulate load --export artillery\`. Each virtual user sends one message of the
run's traffic straight to the webhook at ${redactUrl(url)}, as the cardctl sandbox's switch would: the
mix (${mix}) in turn, the cards of \`${EXPORT_FILES.cards}\` and the channels (${traffic.channels.join(', ')}) in turn,
reversals of approved authorizations and financials of the same runner, signed at send time in
the ${traffic.scheme} scheme${traffic.secretHeader ? ` with the secret in the ${traffic.secretHeader} header too` : ''}. Each reply is judged by the rules the sandbox
judges a webhook's reply by (a 2xx application/json response message answering the request);
one that is not counts as an error, as does no reply within ${WEBHOOK_TIMEOUT_MS / 1000} s.

## The secret

The processor reads the card program's webhook secret from the environment variable
\`${SECRET_VARIABLE}\` when it starts. It is never written into this directory; keep it out of
version control and of the command line:

    read -rs ${SECRET_VARIABLE} && export ${SECRET_VARIABLE}

\`${EXPORT_FILES.cards}\` holds the sandbox's test cards in the clear (full card numbers and the data
of track 2), mode 0600: test data, never real cards, but keep it to the people who run the test.

## Running it

Artillery 2 is installed by the person who runs the test (\`npm install -g artillery\`; cardctl
does not depend on it). ARTILLERY_DISABLE_TELEMETRY=true keeps Artillery from reporting usage.

On this machine, from this directory:

    ${commands.local}

On AWS Fargate, N runners, the secret kept in SSM Parameter Store as
/artilleryio/${SECRET_VARIABLE} in that region:

    ${commands.fargate}

On AWS Lambda, the secret in a dotenv file of your own, outside this directory:

    ${commands.lambda}

${commands.note}

## What fails the run (ensure)

${conditions.map(({ expression, meaning }) => `- \`${expression}\`: ${meaning}`).join('\n')}

The processor's counters (in Artillery's report, summed over the runners): ${Object.values(COUNTERS).map((name) => `\`${name}\``).join(', ')}.
`;
}
