// Fault injection for the sandbox: error statuses before the handler runs, added latency,
// connections reset before or after the write, a response held past the client's timeout
// after the write was committed, trickled bodies, and 429s with Retry-After. Decisions come
// from a seeded generator so a failing run replays. /sandbox/* and /openapi.json are never
// touched: tests count records through them.
import { PassThrough } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Dialect } from '../api/dialect.js';
import { ApiError, DomainError } from './errors.js';
import { parseDuration, parseDurationRange, type DurationUnit } from '../core/duration.js';

export interface FaultSpec {
  /** Probability of an error status (one of `codes`) before the handler runs. */
  rate: number;
  codes: number[];
  /** Added latency, uniformly in [min, max] ms. */
  latency?: [number, number];
  /** Probability of a reset: half before the handler, half after it committed (mid-response). */
  reset: number;
  /** Probability of a body trickled in small pieces. */
  slowBody: number;
  /** Probability of a 429 with Retry-After. */
  rateLimit: number;
  /** Probability of a response held (after the handler committed) for `holdSeconds` or until the client goes. */
  commitThenTimeout: number;
  holdSeconds: number;
  /** Retry-After of injected 429s, seconds. */
  retryAfterSeconds: number;
  /** Only requests with these methods get faults (all when absent). */
  methods?: string[];
}

export class FaultSpecError extends Error {
  constructor(readonly key: string, message: string) {
    super(message);
  }
}

export const DEFAULT_HOLD_SECONDS = 35;

export function emptyFaultSpec(holdSeconds = DEFAULT_HOLD_SECONDS): FaultSpec {
  return { rate: 0, codes: [500, 502, 503], reset: 0, slowBody: 0, rateLimit: 0, commitThenTimeout: 0, holdSeconds, retryAfterSeconds: 1 };
}

const KEYS = ['rate', 'codes', 'latency', 'reset', 'slow-body', '429', 'commit-then-timeout', 'hold', 'retry-after', 'methods'] as const;

/** Parses `rate=0.1,codes=500|502|503,latency=0-800ms,reset=0.02,...`. Throws FaultSpecError naming the bad key. */
export function parseFaultSpec(text: string, holdSeconds = DEFAULT_HOLD_SECONDS): FaultSpec {
  return faultSpecFrom(specEntries(text, 'fault', (key, message) => new FaultSpecError(key, message)), holdSeconds);
}

/**
 * The KEY=VALUE pairs of a fault spec's text form (HTTP and webhook faults alike); empty text is
 * no faults. A key given twice is an error naming it, and so is an empty item (`a=1,,b=2`, a
 * trailing comma): which one was meant is not for the parser to guess.
 */
export function specEntries(text: string, what: string, error: (key: string, message: string) => Error): Record<string, string> {
  const values: Record<string, string> = {};
  if (text.trim() === '') return values;
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') throw error('spec', `an empty ${what} in "${text}": give KEY=VALUE items separated by single commas`);
    const eq = part.indexOf('=');
    if (eq <= 0) throw error(part, `${what} "${part}" is not KEY=VALUE`);
    const key = part.slice(0, eq).trim();
    if (Object.hasOwn(values, key)) throw error(key, `${what} "${key}" is given twice`);
    values[key] = part.slice(eq + 1).trim();
  }
  return values;
}

/** Refuses a key given under two of its names (`deadline` and `deadlineMs`) in the JSON form. */
export function refuseAliases(values: Record<string, unknown>, aliases: ReadonlyArray<readonly [string, string]>, what: string, error: (key: string, message: string) => Error): void {
  for (const [name, alias] of aliases) {
    if (Object.hasOwn(values, name) && Object.hasOwn(values, alias)) throw error(name, `${what} "${name}" is given twice (also as ${alias})`);
  }
}

const ALIASES = [['slow-body', 'slowBody'], ['429', 'rateLimit'], ['commit-then-timeout', 'commitThenTimeout'], ['hold', 'holdSeconds'], ['retry-after', 'retryAfterSeconds']] as const;

/** The same keys as the text form, from a JSON object (PUT /sandbox/faults). */
export function faultSpecFrom(values: Record<string, unknown>, holdSeconds = DEFAULT_HOLD_SECONDS): FaultSpec {
  refuseAliases(values, ALIASES, 'fault', (key, message) => new FaultSpecError(key, message));
  const spec = emptyFaultSpec(holdSeconds);
  for (const [key, value] of Object.entries(values)) {
    switch (key) {
      case 'rate': spec.rate = probability(key, value); break;
      case 'reset': spec.reset = probability(key, value); break;
      case 'slow-body': case 'slowBody': spec.slowBody = probability(key, value); break;
      case '429': case 'rateLimit': spec.rateLimit = probability(key, value); break;
      case 'commit-then-timeout': case 'commitThenTimeout': spec.commitThenTimeout = probability(key, value); break;
      case 'codes': spec.codes = codes(key, value); break;
      case 'latency': spec.latency = range(key, value); break;
      case 'hold': case 'holdSeconds': spec.holdSeconds = seconds(key, value, 0.001, 3600); break;
      case 'retry-after': case 'retryAfterSeconds': spec.retryAfterSeconds = seconds(key, value, 0, 3600); break;
      case 'methods': spec.methods = methods(key, value); break;
      default:
        throw new FaultSpecError(key, `unknown fault "${key}": use ${KEYS.join(', ')}`);
    }
  }
  return spec;
}

/** The spec in its text form (GET /sandbox/faults, the banner). */
export function formatFaultSpec(spec: FaultSpec): string {
  const parts: string[] = [];
  if (spec.rate) parts.push(`rate=${spec.rate}`, `codes=${spec.codes.join('|')}`);
  if (spec.latency) parts.push(`latency=${spec.latency[0]}-${spec.latency[1]}ms`);
  if (spec.reset) parts.push(`reset=${spec.reset}`);
  if (spec.slowBody) parts.push(`slow-body=${spec.slowBody}`);
  if (spec.rateLimit) parts.push(`429=${spec.rateLimit}`);
  if (spec.commitThenTimeout) parts.push(`commit-then-timeout=${spec.commitThenTimeout}`, `hold=${spec.holdSeconds}`);
  if (spec.rateLimit && spec.retryAfterSeconds !== 1) parts.push(`retry-after=${spec.retryAfterSeconds}`);
  if (parts.length && spec.methods) parts.push(`methods=${spec.methods.join('|')}`);
  return parts.join(',');
}

export function isFaultFree(spec: FaultSpec): boolean {
  return !spec.rate && !spec.latency && !spec.reset && !spec.slowBody && !spec.rateLimit && !spec.commitThenTimeout;
}

/** A decimal number written plainly (`0.1`, `.5`, `1`): no sign, exponent, hex or empty text. */
const PLAIN_DECIMAL = /^(?:\d+(?:\.\d+)?|\.\d+)$/;

/** A probability from 0 to 1 (a number, or a plain decimal in text), else undefined. HTTP and webhook faults alike. */
export function parseProbability(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && PLAIN_DECIMAL.test(value.trim()) ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
}

function probability(key: string, value: unknown): number {
  const n = parseProbability(value);
  if (n === undefined) throw new FaultSpecError(key, `invalid fault ${key}=${String(value)}: give a probability from 0 to 1`);
  return n;
}

function codes(key: string, value: unknown): number[] {
  const list = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split('|') : typeof value === 'number' ? [String(value)] : [];
  const parsed = list.map((c) => (/^\d{3}$/.test(c.trim()) ? Number(c) : NaN));
  if (parsed.length === 0 || parsed.some((c) => !(c >= 400 && c <= 599))) {
    throw new FaultSpecError(key, `invalid fault codes=${String(value)}: give HTTP error statuses such as 500|502|503`);
  }
  return parsed;
}

function range(key: string, value: unknown): [number, number] {
  const fail = (why: string) => new FaultSpecError(key, `invalid fault ${key}=${String(value)}: ${why}; give MS or MIN-MAX with ms or s, e.g. 0-800ms or 1-2s`);
  let pair: [number, number];
  if (Array.isArray(value) && value.length === 2) {
    const [low, high] = value.map((n) => durationMs(String(n), 'ms', fail));
    pair = [low!, high!];
  } else if (typeof value === 'number' || typeof value === 'string') {
    const parsed = parseDurationRange(String(value), 'ms');
    if (!parsed.ok) throw fail(parsed.reason);
    pair = parsed.range;
  } else {
    throw fail('not a duration');
  }
  if (pair[1] > 600_000 || pair[0] > pair[1]) throw fail('not a range within 0-600000ms, low to high');
  return pair;
}

/** One duration (core/duration.ts, as every duration key): ms; `bareUnit` for a plain number. */
function durationMs(text: string, bareUnit: DurationUnit, fail: (why: string) => Error): number {
  const parsed = parseDuration(text, bareUnit);
  if (!parsed.ok) throw fail(parsed.reason);
  return parsed.ms;
}

function methods(key: string, value: unknown): string[] {
  const list = (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split('|') : []).map((m) => m.trim().toUpperCase());
  if (list.length === 0 || list.some((m) => !['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(m))) {
    throw new FaultSpecError(key, `invalid fault methods=${String(value)}: give HTTP methods such as POST|PUT`);
  }
  return list;
}

/** A duration in seconds (hold, retry-after): a plain number is seconds, `500ms` and `2s` as for every duration key. */
function seconds(key: string, value: unknown, min: number, max: number): number {
  const fail = (why: string) => new FaultSpecError(key, `invalid fault ${key}=${String(value)}: ${why}; give seconds from ${min} to ${max}, e.g. 2s or 500ms`);
  if (typeof value !== 'number' && typeof value !== 'string') throw fail('not a duration');
  const n = durationMs(String(value), 's', fail) / 1000;
  if (!(n >= min && n <= max)) throw fail('out of range');
  return n;
}

/** The `seed` of a runtime fault change (HTTP and webhook faults alike): mulberry32 takes 32 bits. */
export function assertFaultSeed(seed: unknown): asserts seed is number | undefined {
  if (seed !== undefined && !(Number.isInteger(seed) && (seed as number) >= 0 && (seed as number) <= 0xffffffff)) {
    throw new DomainError('invalid', 'seed must be an integer from 0 to 4294967295', [{ field: 'seed', message: 'must be an integer from 0 to 4294967295' }]);
  }
}

/** mulberry32: a small, fast, seeded generator (uniform in [0, 1)). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type InjectedFault = 'status' | '429' | 'reset-request' | 'reset-response' | 'commit-then-timeout' | 'slow-body';

export interface FaultController {
  get(): FaultSpec;
  set(spec: FaultSpec, seed?: number): void;
  /** How many of each fault were injected since the spec was last set. */
  counts(): Record<string, number>;
  readonly seed: number;
}

interface Plan {
  after?: 'reset-response' | 'commit-then-timeout' | 'slow-body';
}

/** What a request's fault does after its handler committed, until its response is sent. */
const plans = new WeakMap<FastifyRequest, Plan>();

/** Paths that never get faults: the helpers tests count with. */
export function exemptFromFaults(url: string): boolean {
  return url.startsWith('/sandbox/') || url === '/sandbox' || url.startsWith('/openapi.json');
}

/**
 * Registers the hooks (before the routes, so they apply to every route). Each request draws
 * the same number of values from the generator in the same order, so a run with the same
 * seed and the same request order injects the same faults. `errorFields`: where an injected
 * error's body puts its message and code (the server's dialect; the default when absent).
 */
export function installFaults(app: FastifyInstance, initial: FaultSpec, initialSeed = 1, errorFields?: Dialect['errors']): FaultController {
  let spec = initial;
  let seed = initialSeed;
  let random = mulberry32(seed);
  let counts: Record<string, number> = {};
  const count = (fault: InjectedFault) => { counts[fault] = (counts[fault] ?? 0) + 1; };
  const controller: FaultController = {
    get: () => spec,
    set(next, nextSeed) {
      spec = next;
      if (nextSeed !== undefined) { seed = nextSeed; random = mulberry32(seed); }
      counts = {};
    },
    counts: () => ({ ...counts }),
    get seed() { return seed; },
  };

  // Callback hooks with a synchronous fast path: they run on every request, faults or not.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    if (isFaultFree(spec) || exemptFromFaults(request.url) || (spec.methods && !spec.methods.includes(request.method))) return done();
    // Answered (or hijacked) here: the lifecycle stops, so done() is not called.
    inject(request, reply).then((answered) => { if (!answered) done(); }, done);
  });

  const inject = async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    const current = spec;
    // Fixed draws per request, whatever is decided.
    const [dLatency, dStatus, dCode, d429, dReset, dResetWhen, dHold, dSlow] = Array.from({ length: 8 }, () => random());
    if (current.latency) {
      const [min, max] = current.latency;
      await sleep(min + Math.floor(dLatency! * (max - min + 1)));
    }
    if (d429! < current.rateLimit) {
      count('429');
      const retryAfter = current.retryAfterSeconds;
      reply.code(429).header('retry-after', String(retryAfter)).type('application/json')
        .send(new ApiError(429, 'RATE_LIMITED', `rate limited (injected fault); retry after ${retryAfter} s`).toBody(errorFields));
      return true;
    }
    if (dStatus! < current.rate) {
      count('status');
      const status = current.codes[Math.floor(dCode! * current.codes.length)] ?? 500;
      reply.code(status).type('application/json')
        .send(new ApiError(status, status >= 500 ? 'INTERNAL' : 'VALIDATION_ERROR', `injected fault: ${status} before the request was handled`).toBody(errorFields));
      return true;
    }
    let after: Plan['after'];
    if (dReset! < current.reset) {
      if (dResetWhen! < 0.5) {
        count('reset-request');
        reply.hijack();
        request.raw.socket?.destroy();
        return true;
      }
      after = 'reset-response';
    } else if (dHold! < current.commitThenTimeout) {
      after = 'commit-then-timeout';
    } else if (dSlow! < current.slowBody) {
      after = 'slow-body';
    }
    if (after) plans.set(request, { after });
    return false;
  };

  app.addHook('onSend', (request, reply, payload, done) => {
    const plan = plans.get(request);
    if (!plan?.after) return done(null, payload);
    afterCommit(request, reply, payload, plan).then((next) => done(null, next), (error: Error) => done(error));
  });

  const afterCommit = async (request: FastifyRequest, reply: FastifyReply, payload: unknown, plan: Plan): Promise<unknown> => {
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload : undefined;
    if (text === undefined) return payload;
    const bytes = Buffer.from(text);
    if (plan.after === 'commit-then-timeout') {
      count('commit-then-timeout');
      await holdUntil(request, spec.holdSeconds * 1000);
      return payload;
    }
    if (plan.after === 'reset-response') {
      count('reset-response');
      // Headers and part of the body, then the connection goes.
      const stream = new PassThrough();
      reply.removeHeader('content-length');
      stream.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))));
      setTimeout(() => request.raw.socket?.destroy(), 20).unref();
      return stream;
    }
    count('slow-body');
    const stream = new PassThrough();
    reply.removeHeader('content-length');
    void trickle(stream, bytes);
    return stream;
  };

  return controller;
}

async function trickle(stream: PassThrough, bytes: Buffer): Promise<void> {
  const pieces = 8;
  const size = Math.max(1, Math.ceil(bytes.length / pieces));
  for (let offset = 0; offset < bytes.length; offset += size) {
    if (stream.destroyed) return;
    stream.write(bytes.subarray(offset, offset + size));
    await sleep(40);
  }
  stream.end();
}

/** Waits `ms`, or less if the client goes away first. */
function holdUntil(request: FastifyRequest, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = request.raw.socket;
    if (!socket || socket.destroyed) return resolve();
    const done = () => { clearTimeout(timer); socket.off('close', done); resolve(); };
    const timer = setTimeout(done, ms);
    timer.unref();
    socket.once('close', done);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** GET/PUT /sandbox/faults: read or replace the spec at runtime (no auth; who may call: ingress.ts). */
export const faultRoutes: FastifyPluginAsyncTypebox<{ controller: FaultController }> = async (app, options) => {
  const { controller } = options;
  const FaultState = Type.Object({
    spec: Type.String({ description: 'the spec in its text form; empty when no faults are injected' }),
    seed: Type.Integer(),
    counts: Type.Record(Type.String(), Type.Integer(), { description: 'faults injected since the spec was set' }),
  });
  const state = () => ({ spec: formatFaultSpec(controller.get()), seed: controller.seed, counts: controller.counts() });
  const tags = ['sandbox'];
  app.get('/sandbox/faults', {
    schema: { summary: 'Current fault injection', tags, auth: 'none', response: { 200: FaultState } },
  }, async () => state());
  app.put('/sandbox/faults', {
    schema: {
      summary: 'Replace fault injection',
      description: 'Keys as in `sandbox serve --faults`: rate, codes, latency, reset, slow-body, 429, commit-then-timeout, hold, retry-after; or `spec` (the text form); `seed` reseeds the generator. `{}` turns faults off.',
      tags, auth: 'none',
      body: Type.Object({}, { additionalProperties: true }),
      response: { 200: FaultState },
    },
  }, async (request) => {
    // Any keys: faultSpecFrom() names the one it does not know.
    const { spec: text, seed, ...rest } = (request.body ?? {}) as Record<string, unknown>;
    assertFaultSeed(seed);
    try {
      const hold = controller.get().holdSeconds;
      const next = typeof text === 'string' ? parseFaultSpec(text, hold) : faultSpecFrom(rest, hold);
      if (text !== undefined && typeof text !== 'string') throw new FaultSpecError('spec', 'spec must be a string such as "rate=0.1,codes=500|503"');
      controller.set(next, seed as number | undefined);
    } catch (error) {
      if (error instanceof FaultSpecError) throw new DomainError('invalid', error.message, [{ field: error.key, message: error.message }]);
      throw error;
    }
    return state();
  });
};
