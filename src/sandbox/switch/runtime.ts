// The switch as it runs in a sandbox server: one keep-alive pool for webhook calls, the switch's
// clock, work that outlives a simulate call (advice delivery, a late reply read for a timeout
// reversal), the retries of unacknowledged advices, and the faults on the webhook path. The
// server creates it and closes it with itself (server.ts); routes/simulate.ts only declares the
// routes that call it.
import { Agent } from 'undici';
import type { SandboxDeps } from '../deps.js';
import { DomainError } from '../errors.js';
import { assertFaultSeed } from '../faults.js';
import { deliverPendingAdvices } from './advices.js';
import type { SwitchDeps } from './deps.js';
import { expireDue, recoverAbandoned } from './expiry.js';
import { switchStore } from './store.js';
import { formatWebhookFaults, parseWebhookFaults, webhookFaultController, WebhookFaultSpecError, webhookFaultsFrom, type WebhookFaultScope } from './webhook-faults.js';

export interface SwitchClock {
  now: string;
  offsetSeconds: number;
}

export interface WebhookFaultState {
  /** The spec in its text form. */
  spec: string;
  seed: number;
  /** A program's faults: its own, or (false) its institution's. */
  own?: boolean;
  /** An institution's: its programs with faults of their own. */
  programs?: Array<{ programId: string; spec: string; seed: number }>;
}

export interface SwitchRuntime {
  /** What the switch's functions (simulate.ts, repeats.ts, advices.ts, …) are given. */
  deps: SwitchDeps;
  /** The switch's clock: the sandbox's, moved forward by advanceClock. */
  now(): Date;
  clock(): SwitchClock;
  /** Moves the switch's clock forward, then expires the holds due by it; how many. */
  advanceClock(seconds: number): number;
  /** The faults of an institution's traffic, or of one of its programs'. */
  webhookFaults(scope: WebhookFaultScope): WebhookFaultState;
  /**
   * Replaces the faults of the scope: `spec` in the text form, or its keys; `seed` reseeds;
   * `inherit: true` gives a program its institution's faults back.
   */
  replaceWebhookFaults(scope: WebhookFaultScope, body: Record<string, unknown>): WebhookFaultState;
  /** Stops the retries, aborts the webhook calls in flight, awaits the background work, closes the pool. */
  close(): Promise<void>;
}

/** How unacknowledged advices are retried: from 1 s (the sandbox's setting), doubling to 30 s while some stay pending. */
export const ADVICE_RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export function createSwitchRuntime(sandbox: Pick<SandboxDeps, 'store' | 'clock' | 'settings' | 'webhookFaults' | 'webhookFaultsSeed' | 'events' | 'exchanges'>): SwitchRuntime {
  const retryFirstMs = sandbox.settings.adviceRetryFirstMs;
  const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 128 });
  // Holds expire without waiting; tokens keep the real clock.
  let clockOffsetMs = 0;
  const now = () => new Date(sandbox.clock.now().getTime() + clockOffsetMs);
  // Background work is awaited on close, its webhook calls aborted first.
  const closing = new AbortController();
  const running = new Set<Promise<void>>();
  const background = (work: Promise<void>) => {
    const tracked = work.catch(() => undefined).finally(() => running.delete(tracked));
    running.add(tracked);
  };
  const webhookFaults = sandbox.webhookFaults ?? webhookFaultController(undefined, undefined, sandbox.webhookFaultsSeed);
  const deps: SwitchDeps = {
    store: switchStore(sandbox.store, { firstStan: sandbox.settings.firstStan, events: sandbox.events }), now, webhook: { dispatcher, signal: closing.signal }, webhookFaults, background,
    exchanges: sandbox.exchanges,
  };
  let retryTimer: NodeJS.Timeout | undefined;
  let retryDelayMs = retryFirstMs;
  deps.onAdvicePending = () => {
    if (retryTimer || closing.signal.aborted) return;
    retryTimer = setTimeout(() => {
      background(deliverPendingAdvices({ ...deps, onAdvicePending: undefined }).then(({ pending }) => {
        retryTimer = undefined;
        retryDelayMs = pending > 0 ? Math.min(retryDelayMs * 2, RETRY_MAX_MS) : retryFirstMs;
        if (pending > 0) deps.onAdvicePending!();
      }));
    }, retryDelayMs);
    retryTimer.unref();
  };
  // Transactions a stopped sandbox left awaiting their answer fail (96) now rather than never.
  recoverAbandoned(deps.store, now());

  const clock = () => ({ now: now().toISOString(), offsetSeconds: clockOffsetMs / 1000 });
  const faultState = (scope: WebhookFaultScope): WebhookFaultState => {
    const { spec, seed, own } = webhookFaults.get(scope);
    const state = { spec: formatWebhookFaults(spec), seed };
    if (scope.programId) return { ...state, own };
    return { ...state, programs: webhookFaults.programsOf(scope.institutionId).map((p) => ({ programId: p.programId, spec: formatWebhookFaults(p.spec), seed: p.seed })) };
  };
  return {
    deps,
    now,
    clock,
    advanceClock(seconds) {
      clockOffsetMs += Math.round(seconds * 1000);
      return deps.store.atomically(() => expireDue(deps.store, now()));
    },
    webhookFaults: faultState,
    replaceWebhookFaults(scope, body) {
      const { spec: text, seed, inherit, ...rest } = body;
      assertFaultSeed(seed);
      try {
        if (inherit !== undefined) {
          if (inherit !== true || !scope.programId || text !== undefined || seed !== undefined || Object.keys(rest).length > 0) {
            throw new WebhookFaultSpecError('inherit', 'inherit is true alone, with a programId: the program gets its institution\'s faults back');
          }
          webhookFaults.inherit({ institutionId: scope.institutionId, programId: scope.programId });
          return faultState(scope);
        }
        if (text !== undefined && typeof text !== 'string') throw new WebhookFaultSpecError('spec', 'spec must be a string such as "deadline=2s,reply-lost=0.1"');
        const next = typeof text === 'string' ? parseWebhookFaults(text) : webhookFaultsFrom(rest);
        webhookFaults.set(scope, next, seed as number | undefined);
      } catch (error) {
        if (error instanceof WebhookFaultSpecError) throw new DomainError('invalid', error.message, [{ field: error.key, message: error.message }]);
        throw error;
      }
      return faultState(scope);
    },
    async close() {
      closing.abort();
      clearTimeout(retryTimer);
      await Promise.all(running);
      await dispatcher.close();
    },
  };
}
