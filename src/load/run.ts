// `cardctl simulate load`: the flags made into a plan (every usage error before a request),
// the run, the live line, the report and the SLO verdict.
import { isLoopbackHost } from '../core/loopback.js';
import { setMaxListeners } from 'node:events';
import type { SimulateBody, SimulateResult } from '../api/schemas.js';
import type { LOAD_FLAGS } from './flags.js';
import type { Context } from '../contract/context.js';
import { CliError, InterruptedError, RejectedError, UsageError } from '../core/errors.js';
import type { FlagValues } from '../core/flags.js';
import { validatePositiveInt } from '../core/validate.js';
import { isApproved } from '../iso8583/codes.js';
import { buildSimulateBody } from '../api/simulate-request.js';
import { checkMix, DEFAULT_MIX, intentSequence, parseMix, roundRobin, type Intent, type Mix } from './mix.js';
import { Originals } from './originals.js';
import { runSchedule, type Clock, type Fire, type LoadBounds, type LoadShape } from './scheduler.js';
import { missedSlos, parseMillis, parsePercent, type Slos } from './slo.js';
import { parseDuration } from '../core/duration.js';
import { buildReport, LoadStats, outcomeOf, type Outcome } from './stats.js';
import { parseExport, type ExportPlan } from './artillery/export.js';

type LoadFlags = FlagValues<typeof LOAD_FLAGS>;

export const MAX_DURATION_MS = 3_600_000;
export const MAX_COUNT = 10_000_000;
const MAX_RATE = 10_000;
const MAX_CONCURRENCY = 1_000;
const DEFAULT_DURATION_MS = 10_000;
/** The sandbox's deadline for the webhook when no webhook fault sets one (docs/switch.md). */
const DEFAULT_DEADLINE_MS = 5_000;

export function parseShape(opts: Partial<Pick<LoadFlags, 'rate' | 'concurrency' | 'ramp'>>): LoadShape {
  if ((opts.rate === undefined) === (opts.concurrency === undefined)) {
    throw new UsageError('give either --rate (open loop) or --concurrency (closed loop)', { hint: 'e.g. --rate 50/s, or --concurrency 8' });
  }
  if (opts.rate !== undefined) {
    const match = /^(\d+(?:\.\d+)?)\s*(?:\/s)?$/.exec(opts.rate.trim());
    const perSecond = match ? Number(match[1]) : NaN;
    if (!(perSecond > 0 && perSecond <= MAX_RATE)) throw new UsageError(`invalid --rate "${opts.rate}": give requests a second up to ${MAX_RATE}, e.g. 50/s`);
    if (opts.ramp === undefined) return { kind: 'rate', perSecond };
    const ramp = parseDuration(opts.ramp);
    if (!ramp.ok || !(ramp.ms > 0)) throw new UsageError(`invalid --ramp "${opts.ramp}": give a duration such as 30s or 2m`);
    return { kind: 'rate', perSecond, rampMs: ramp.ms };
  }
  if (opts.ramp !== undefined) throw new UsageError('--ramp is for --rate: a closed loop (--concurrency) has no rate to rise to');
  return { kind: 'concurrency', senders: validatePositiveInt('--concurrency', opts.concurrency!, MAX_CONCURRENCY) };
}

export function parseBounds(opts: Partial<Pick<LoadFlags, 'duration' | 'count'>>): LoadBounds {
  let durationMs = opts.count === undefined ? DEFAULT_DURATION_MS : MAX_DURATION_MS;
  if (opts.duration !== undefined) {
    const parsed = parseDuration(opts.duration);
    durationMs = parsed.ok ? parsed.ms : NaN;
    if (!(durationMs > 0)) throw new UsageError(`invalid --duration "${opts.duration}": give a duration such as 30s or 5m`);
    if (durationMs > MAX_DURATION_MS) throw new UsageError(`--duration ${opts.duration} is longer than the limit of 1h: a load run is bounded in time`);
  }
  let count = MAX_COUNT;
  if (opts.count !== undefined) {
    if (/^\d+$/.test(opts.count.trim()) && Number(opts.count) > MAX_COUNT) throw new UsageError(`--count ${opts.count} is above the limit of ${MAX_COUNT.toLocaleString('en')}: a load run is bounded in count`);
    count = validatePositiveInt('--count', opts.count, MAX_COUNT);
  }
  return { durationMs, count };
}

export function parseSlos(opts: Partial<Pick<LoadFlags, 'maxP99' | 'maxTimeouts' | 'maxErrors' | 'minApproval'>>): Slos {
  return {
    ...(opts.maxP99 !== undefined && { maxP99Ms: parseMillis('--max-p99', opts.maxP99) }),
    ...(opts.maxTimeouts !== undefined && { maxTimeouts: parsePercent('--max-timeouts', opts.maxTimeouts) }),
    ...(opts.maxErrors !== undefined && { maxErrors: parsePercent('--max-errors', opts.maxErrors) }),
    ...(opts.minApproval !== undefined && { minApproval: parsePercent('--min-approval', opts.minApproval) }),
  };
}

/** Load goes to this machine only, unless the operator says otherwise. */
export function checkTarget(baseUrl: string | undefined, allowRemote: boolean): void {
  if (baseUrl === undefined) return; // ctx.client() says what is missing
  if (!isLoopbackHost(new URL(baseUrl).hostname) && !allowRemote) {
    throw new UsageError(`refusing to send load to ${baseUrl}: it is not on this machine`, { hint: 'run it against `cardctl sandbox serve`; --allow-remote if you really mean a remote deployment' });
  }
}

async function readMix(opts: LoadFlags): Promise<Mix> {
  if (opts.mix !== undefined && opts.mixFile !== undefined) throw new UsageError('give either --mix or --mix-file, not both');
  if (opts.mix !== undefined) return parseMix(opts.mix);
  if (opts.mixFile === undefined) return DEFAULT_MIX;
  const [{ readNamedFile }, { parseYamlFile, YAML_LIMITS }] = await Promise.all([import('../core/text.js'), import('../core/yaml.js')]);
  const text = await readNamedFile(opts.mixFile, '--mix-file', YAML_LIMITS.maxBytes);
  const parsed = (await parseYamlFile(text, opts.mixFile, '--mix-file')).value;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--mix-file ${opts.mixFile}: expected a map of intent to weight, e.g. {authorization: 80, reversal: 20}`);
  return parseMix(Object.entries(parsed).map(([intent, weight]) => `${intent}=${String(weight)}`).join(','), `--mix-file ${opts.mixFile}`);
}

/** The cards: given with --card, or how many `cards list` gives (--cards-from-list N). */
type CardsWanted = { given: string[] } | { fromList: number };

function parseCards(opts: LoadFlags): CardsWanted {
  const given = opts.card ?? [];
  if (opts.cardsFromList === undefined) {
    if (given.length === 0) throw new UsageError('give the cards: --card ID (repeatable) or --cards-from-list N');
    return { given };
  }
  if (given.length > 0) throw new UsageError('give either --card or --cards-from-list, not both');
  return { fromList: validatePositiveInt('--cards-from-list', opts.cardsFromList, 10_000) };
}

async function readCards(ctx: Context, wanted: CardsWanted): Promise<string[]> {
  if ('given' in wanted) return wanted.given;
  const { listAllCards } = await import('../api/cards.js');
  const cards: string[] = [];
  for await (const page of listAllCards(await ctx.client(), {}, ctx.signal)) {
    for (const card of page.data) if (cards.length < wanted.fromList) cards.push(card.id);
    if (cards.length >= wanted.fromList) break;
  }
  if (cards.length === 0) throw new UsageError('--cards-from-list: `cards list` has no cards');
  return cards;
}

/** The network's deadline: the sandbox's webhook faults may set one. */
async function readDeadline(ctx: Context): Promise<number> {
  try {
    const { getWebhookFaults } = await import('../api/simulate.js');
    const { spec } = (await getWebhookFaults(await ctx.client(), { signal: ctx.signal })).data;
    const deadline = /(?:^|,)\s*deadline=([^,]+)/.exec(spec)?.[1];
    const parsed = deadline === undefined ? undefined : parseDuration(deadline, 'ms');
    return parsed?.ok ? parsed.ms : DEFAULT_DEADLINE_MS;
  } catch {
    return DEFAULT_DEADLINE_MS;
  }
}

/** `simulate load`'s flags once checked (and --mix-file read): the plan of the run. */
export interface LoadInput {
  opts: LoadFlags;
  shape: LoadShape;
  bounds: LoadBounds;
  slos: Slos;
  mix: Mix;
  cards: CardsWanted;
  channels: string[];
  /** `--export artillery DIR`: write the traffic as a script instead of sending it. */
  exportTo?: ExportPlan;
}

/** Flags → the plan; every usage error the flags alone can give, before anything is read or sent. */
export async function parseLoad(opts: LoadFlags): Promise<LoadInput> {
  const shape = parseShape(opts);
  const bounds = parseBounds(opts);
  if (shape.kind === 'rate' && shape.rampMs !== undefined && shape.rampMs + bounds.durationMs > MAX_DURATION_MS) {
    throw new UsageError(`--ramp ${opts.ramp} and --duration make a run longer than the limit of 1h`);
  }
  const slos = parseSlos(opts);
  const mix = checkMix(await readMix(opts), '--mix');
  const cards = parseCards(opts);
  const channels = opts.channel?.length ? opts.channel : ['pos'];
  checkBodies(opts, 'given' in cards ? cards.given : [], channels);
  const exportTo = parseExport(opts, shape, bounds);
  return { opts, shape, bounds, slos, mix, cards, channels, ...(exportTo ? { exportTo } : {}) };
}

/** Each card and channel makes a valid authorization with --amount. */
function checkBodies(opts: LoadFlags, cards: readonly string[], channels: readonly string[]): void {
  for (const card of cards) for (const channel of channels) buildSimulateBody({ intent: 'authorization', amount: opts.amount, card, channel, forward: true });
}

export async function runLoad(ctx: Context, input: LoadInput): Promise<void> {
  const { opts, shape, bounds, slos, mix, channels } = input;
  checkTarget(ctx.settings().baseUrl, Boolean(opts.allowRemote));
  const cards = await readCards(ctx, input.cards);
  // Every usage error now, before the first request (the cards of a listing too).
  checkBodies(opts, cards, channels);
  if (input.exportTo) {
    const { runExport } = await import('./artillery/export.js');
    return runExport(ctx, { plan: input.exportTo, cards, mix, channels, amount: opts.amount, slos });
  }

  const [{ simulate }, client, deadlineMs] = await Promise.all([import('../api/simulate.js'), ctx.client(), readDeadline(ctx)]);
  const switchSegment = ctx.settings().profile.switch;
  const nextIntent = intentSequence(mix);
  const nextCard = roundRobin(cards);
  const nextChannel = roundRobin(channels);
  const originals = new Originals(shape.kind === 'rate' ? 1 : shape.senders, shape.kind === 'concurrency');
  const stats = new LoadStats();
  // Every request in flight listens for Ctrl-C: one signal for all of them, without Node's
  // warning about more than 10 listeners.
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  ctx.signal.addEventListener('abort', () => stop.abort(ctx.signal.reason), { once: true });
  const clock = (await import('./scheduler.js')).realClock;
  const fire = mixSender({
    nextIntent,
    bodyFor: (intent, original) => (original !== undefined
      ? buildSimulateBody({ intent, amount: opts.amount, originalTx: original, forward: true }).body
      : buildSimulateBody({ intent, amount: opts.amount, card: nextCard(), channel: nextChannel(), forward: true }).body),
    send: async (body) => (await simulate(client, body, { switchSegment, signal: stop.signal })).data.data,
    originals, stats, clock, signal: stop.signal, interrupted: () => ctx.signal.aborted,
  });

  const live = ctx.io.stderrIsTTY ? startLiveLine(ctx, stats, clock.now()) : undefined;
  let schedule;
  try {
    schedule = await runSchedule(shape, bounds, fire, { clock, signal: stop.signal, onSenderDone: () => originals.senderDone() });
  } finally {
    live?.stop();
  }
  const interrupted = ctx.signal.aborted;
  const report = buildReport(stats, schedule, { shape, ...bounds, deadlineMs, interrupted });
  const renderer = ctx.output();
  if (renderer.format === 'table' && !renderer.settings.quiet) ctx.io.out((await import('./render.js')).renderReport(report, ctx.style));
  else await renderer.record(report);
  if (interrupted) throw new InterruptedError();
  const missed = missedSlos(report, slos);
  if (missed.length > 0) {
    for (const line of missed) ctx.io.err(`SLO missed: ${line}\n`);
    throw new RejectedError(`${missed.length} SLO${missed.length > 1 ? 's' : ''} missed`, { code: 'SLO_MISSED', details: { missed } });
  }
}

/** Why a reversal was not sent: no authorization or financial of the run was approved before the run ended. */
export const NOTHING_TO_REVERSE = 'reversal: nothing approved to reverse';

export interface MixSenderParts {
  nextIntent: () => Intent;
  /** A request's body: a reversal of `original`, else the intent on the next card and channel. */
  bodyFor: (intent: Intent, original?: string) => SimulateBody;
  send: (body: SimulateBody) => Promise<SimulateResult>;
  originals: Originals;
  stats: LoadStats;
  clock: Clock;
  signal: AbortSignal;
  /** Ctrl-C: a request cut short is not an outcome. */
  interrupted: () => boolean;
}

/**
 * Sends the mix: each turn the next intent. A reversal takes the oldest approved original of
 * the run, waiting for one when none is approved yet (Originals says how long); one that never
 * comes makes the reversal not sent, counted with its reason. Its latency runs from when it
 * could be sent: the wait for an approval is the run's, not the switch's.
 */
export function mixSender(parts: MixSenderParts): Fire {
  const { originals, stats, clock } = parts;
  return async (_index, dueAt) => {
    const intent = parts.nextIntent();
    let original: string | undefined;
    let from = dueAt;
    if (intent === 'reversal') {
      original = await originals.take(parts.signal);
      if (original === undefined) {
        if (!parts.interrupted()) stats.notSend(NOTHING_TO_REVERSE);
        return;
      }
      from = Math.max(dueAt, clock.now());
    } else {
      originals.sent();
    }
    const body = parts.bodyFor(intent, original);
    stats.sent++;
    let outcome: Outcome | undefined;
    let approvedId: string | undefined;
    try {
      const result = await parts.send(body);
      outcome = outcomeOf(body.intent, result, clock.now() - from);
      if (isApproved(result.responseCode)) approvedId = result.transactionId;
    } catch (error) {
      if (!parts.interrupted()) {
        const label = error instanceof CliError ? (error.status ? `HTTP ${error.status}` : error.code) : 'error';
        outcome = { intent: body.intent, code: label, endToEndMs: clock.now() - from, webhookReplied: false, standIn: false, timeout: false };
      }
    } finally {
      if (intent !== 'reversal') originals.answered(approvedId);
    }
    if (outcome) stats.add(outcome);
  };
}

/** What a run has done so far: sends (and their rate) apart from answers, so a slow webhook shows as requests in flight. */
export function liveLine(stats: LoadStats, seconds: number): string {
  const p99 = stats.webhookTime.count ? `${Math.round(stats.webhookTime.percentile(99) / 100) / 10} ms` : '-';
  return `${seconds.toFixed(0)} s  sent ${stats.sent} (${(stats.sent / Math.max(seconds, 0.001)).toFixed(1)}/s)  in flight ${stats.inFlight}  answered ${stats.requests}  `
    + `approved ${stats.approved}  declined ${stats.declined}  timeouts ${stats.timeouts}  webhook p99 ${p99}`;
}

function startLiveLine(ctx: Context, stats: LoadStats, startedAt: number): { stop(): void } {
  const draw = () => {
    ctx.io.err(`\r\x1b[K${liveLine(stats, (performance.now() - startedAt) / 1000)}`);
  };
  const timer = setInterval(draw, 1000);
  return {
    stop() {
      clearInterval(timer);
      ctx.io.err('\r\x1b[K');
    },
  };
}
