// Faults on the webhook path (forward mode), beside the HTTP faults of ../faults.ts and seeded
// the same way (mulberry32), so a run replays: a delay before the message goes out, the
// network's deadline, the message delivered twice, the connection reset once the message was
// sent (the webhook saw it; its answer is never read), the reply lost (the webhook answered;
// the network never saw it) and a garbage reply; and, deterministic rather than drawn, a bad
// signature (what a handler must refuse). What each message got is recorded on it.
import { parseDuration, parseDurationRange } from '../../core/duration.js';
import { mulberry32, parseProbability, refuseAliases, specEntries } from '../faults.js';
import { WEBHOOK_TIMEOUT_MS } from '../../webhook-protocol/reply.js';
import { SIGNATURE_FAULTS, type SignatureFault } from '../../webhook-protocol/signature-faults.js';

export interface WebhookFaultSpec {
  /** Added before the message is sent, uniformly in [min, max] ms; it counts against the deadline. */
  delay?: [number, number];
  /** The network's timeout for the whole exchange, ms. */
  deadlineMs: number;
  /** Probabilities, each 0..1. */
  duplicate: number;
  reset: number;
  replyLost: number;
  garbage: number;
  /** Every message signed wrongly this way (not drawn: a handler must refuse each one). */
  signature?: SignatureFault;
}

export class WebhookFaultSpecError extends Error {
  constructor(readonly key: string, message: string) {
    super(message);
  }
}

const KEYS = ['delay', 'deadline', 'duplicate', 'reset', 'reply-lost', 'garbage', 'signature'] as const;

export function emptyWebhookFaults(): WebhookFaultSpec {
  return { deadlineMs: WEBHOOK_TIMEOUT_MS, duplicate: 0, reset: 0, replyLost: 0, garbage: 0 };
}

/** Parses `delay=100-300ms,deadline=2s,duplicate=0.1,reset=0.05,reply-lost=0.05,garbage=0.01,signature=stale-past`; throws naming the bad key. */
export function parseWebhookFaults(text: string): WebhookFaultSpec {
  return webhookFaultsFrom(specEntries(text, 'webhook fault', specError));
}

const specError = (key: string, message: string) => new WebhookFaultSpecError(key, message);

/** The same keys from a JSON object (PUT /sandbox/webhook-faults); numbers are ms or probabilities. */
export function webhookFaultsFrom(values: Record<string, unknown>): WebhookFaultSpec {
  refuseAliases(values, [['deadline', 'deadlineMs'], ['reply-lost', 'replyLost']], 'webhook fault', specError);
  const spec = emptyWebhookFaults();
  for (const [key, value] of Object.entries(values)) {
    switch (key) {
      case 'delay': spec.delay = range(key, value); break;
      case 'deadline': case 'deadlineMs': spec.deadlineMs = duration(key, value, 1, 60_000); break;
      case 'duplicate': spec.duplicate = probability(key, value); break;
      case 'reset': spec.reset = probability(key, value); break;
      case 'reply-lost': case 'replyLost': spec.replyLost = probability(key, value); break;
      case 'garbage': spec.garbage = probability(key, value); break;
      case 'signature': spec.signature = signatureFault(key, value); break;
      default: throw new WebhookFaultSpecError(key, `unknown webhook fault "${key}": use ${KEYS.join(', ')}`);
    }
  }
  return spec;
}

/** The spec in its text form (GET /sandbox/webhook-faults). */
export function formatWebhookFaults(spec: WebhookFaultSpec): string {
  const parts: string[] = [];
  if (spec.delay) parts.push(`delay=${spec.delay[0] === spec.delay[1] ? spec.delay[0] : `${spec.delay[0]}-${spec.delay[1]}`}ms`);
  parts.push(`deadline=${spec.deadlineMs}ms`);
  if (spec.duplicate) parts.push(`duplicate=${spec.duplicate}`);
  if (spec.reset) parts.push(`reset=${spec.reset}`);
  if (spec.replyLost) parts.push(`reply-lost=${spec.replyLost}`);
  if (spec.garbage) parts.push(`garbage=${spec.garbage}`);
  if (spec.signature) parts.push(`signature=${spec.signature}`);
  return parts.join(',');
}

/** What one message gets: drawn in a fixed order from the seeded generator, so a seed replays. */
export interface WebhookFaultDraw {
  delayMs: number;
  deadlineMs: number;
  duplicate: boolean;
  reset: boolean;
  replyLost: boolean;
  garbage: boolean;
  signature?: SignatureFault;
}

/**
 * Whose traffic a fault spec applies to: an institution's (set with its token), or one card
 * program's of it, which then has its own and ignores the institution's. No spec applies to
 * every institution: two tenants, or two certification runs on their own programs, never see
 * each other's faults.
 */
export interface WebhookFaultScope {
  institutionId: string;
  programId?: string | undefined;
}

/** A scope's faults and the seed its generator started from. */
export interface ScopedWebhookFaults {
  spec: WebhookFaultSpec;
  seed: number;
}

export interface WebhookFaultController {
  /** The faults a message of `scope` gets now; `own`: set on that scope itself (a program's are else its institution's). */
  get(scope: WebhookFaultScope): ScopedWebhookFaults & { own: boolean };
  /** Replaces the scope's faults and reseeds its generator (`seed`, else the scope's, else the sandbox's). */
  set(scope: WebhookFaultScope, spec: WebhookFaultSpec, seed?: number): void;
  /** A program goes back to its institution's faults. */
  inherit(scope: Required<WebhookFaultScope>): void;
  /** The programs of an institution with faults of their own. */
  programsOf(institutionId: string): Array<ScopedWebhookFaults & { programId: string }>;
  /** What one message of `scope` gets, drawn from that scope's own generator; undefined when no faults apply to it. */
  draw(scope: WebhookFaultScope): WebhookFaultDraw | undefined;
}

interface ScopeEntry extends ScopedWebhookFaults {
  institutionId: string;
  random: () => number;
}

/**
 * The faults of every scope. `initial` (`sandbox serve --webhook-faults`) are those of
 * `initialScope`, the seeded institution; `seed` is where every scope's generator starts unless
 * its PUT gives one.
 */
export function webhookFaultController(initialScope?: WebhookFaultScope, initial: WebhookFaultSpec = emptyWebhookFaults(), seed = 1): WebhookFaultController {
  const scopes = new Map<string, ScopeEntry>();
  const keyOf = (scope: WebhookFaultScope) => (scope.programId ? `program ${scope.programId}` : `institution ${scope.institutionId}`);
  const entryOf = (scope: WebhookFaultScope) => (scope.programId ? scopes.get(keyOf(scope)) : undefined) ?? scopes.get(keyOf({ institutionId: scope.institutionId }));
  const set = (scope: WebhookFaultScope, spec: WebhookFaultSpec, nextSeed?: number) => {
    const chosen = nextSeed ?? scopes.get(keyOf(scope))?.seed ?? seed;
    scopes.set(keyOf(scope), { spec, seed: chosen, institutionId: scope.institutionId, random: mulberry32(chosen) });
  };
  if (initialScope) set(initialScope, initial, seed);
  return {
    get(scope) {
      const entry = entryOf(scope);
      return { spec: entry?.spec ?? emptyWebhookFaults(), seed: entry?.seed ?? seed, own: scopes.has(keyOf(scope)) };
    },
    set,
    inherit(scope) {
      scopes.delete(keyOf(scope));
    },
    programsOf(institutionId) {
      return [...scopes.entries()]
        .filter(([key, entry]) => key.startsWith('program ') && entry.institutionId === institutionId)
        .map(([key, entry]) => ({ programId: key.slice('program '.length), spec: entry.spec, seed: entry.seed }));
    },
    draw(scope) {
      const entry = entryOf(scope);
      if (!entry) return undefined;
      const { spec, random } = entry;
      // Always five draws, whatever the spec, so changing one probability keeps the others' sequence.
      const [a, b, c, d, e] = [random(), random(), random(), random(), random()];
      const [min, max] = spec.delay ?? [0, 0];
      return {
        delayMs: Math.round(min + (max - min) * a),
        deadlineMs: spec.deadlineMs,
        duplicate: b < spec.duplicate,
        reset: c < spec.reset,
        replyLost: d < spec.replyLost,
        garbage: e < spec.garbage,
        ...(spec.signature ? { signature: spec.signature } : {}),
      };
    },
  };
}

/** The faults of a draw as recorded on the transaction (`webhookFaults`). */
export function describeDraw(draw: WebhookFaultDraw): string[] {
  const out: string[] = [];
  if (draw.delayMs > 0) out.push(`delay ${draw.delayMs}ms`);
  if (draw.deadlineMs !== WEBHOOK_TIMEOUT_MS) out.push(`deadline ${draw.deadlineMs}ms`);
  if (draw.duplicate) out.push('duplicate');
  if (draw.reset) out.push('reset');
  if (draw.replyLost) out.push('reply-lost');
  if (draw.garbage) out.push('garbage');
  if (draw.signature) out.push(`signature ${draw.signature}`);
  return out;
}

function signatureFault(key: string, value: unknown): SignatureFault {
  const found = SIGNATURE_FAULTS.find((fault) => fault === value);
  if (!found) throw new WebhookFaultSpecError(key, `${key} must be one of ${SIGNATURE_FAULTS.join(', ')}`);
  return found;
}

function probability(key: string, value: unknown): number {
  const n = parseProbability(value);
  if (n === undefined) throw new WebhookFaultSpecError(key, `${key} must be a probability between 0 and 1`);
  return n;
}

/** Durations as every fault key takes them (core/duration.ts): `500ms`, `2s`; a plain number is ms. */
function duration(key: string, value: unknown, min: number, max: number): number {
  const parsed = typeof value === 'number' || typeof value === 'string' ? parseDuration(String(value), 'ms') : undefined;
  if (!parsed?.ok) throw new WebhookFaultSpecError(key, `${key} ${parsed?.reason ?? 'is not a duration'}: give a duration such as 500ms or 2s`);
  if (parsed.ms < min || parsed.ms > max) throw new WebhookFaultSpecError(key, `${key} must be between ${min}ms and ${max}ms`);
  return parsed.ms;
}

function range(key: string, value: unknown): [number, number] {
  const parsed = typeof value === 'number' || typeof value === 'string' ? parseDurationRange(String(value), 'ms') : undefined;
  if (!parsed?.ok) throw new WebhookFaultSpecError(key, `${key} ${parsed?.reason ?? 'is not a duration'}: give MS or MIN-MAX, e.g. 200ms, 100-300ms or 1-2s`);
  const [min, max] = parsed.range;
  if (max > 60_000) throw new WebhookFaultSpecError(key, `${key} must be a range within 0-60000ms, low to high`);
  return [min, max];
}
