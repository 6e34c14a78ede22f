// What a scenario step does, by its `intent`: one of the reference's three simulations, a
// lifecycle message, or a sandbox action (repeat, expire, clock, deliver-advices, stand-in).
// `stepAction` turns a step's resolved keys into that action, refusing keys the kind does not
// take; loading calls it with stand-ins for step references, running with the real values.
import type { LifecycleBody, SimulateBody, StandInPolicy } from '../api/schemas.js';
import { UsageError } from '../core/errors.js';
import { buildLifecycleBody, LIFECYCLE_MESSAGES, type LifecycleInput } from '../api/lifecycle-request.js';
import { INTENTS } from '../core/enums.js';
import { buildSimulateBody, type SimulationInput } from '../api/simulate-request.js';

/** Sandbox actions a scenario can take besides sending a message; `check` only reads a transaction's state. */
export const SANDBOX_ACTIONS = ['repeat', 'expire', 'clock', 'deliver-advices', 'stand-in', 'check', 'wait'] as const;
export const STEP_INTENTS = [...INTENTS, ...LIFECYCLE_MESSAGES, ...SANDBOX_ACTIONS] as const;
export type StepIntent = (typeof STEP_INTENTS)[number];

export type StepAction =
  | { kind: 'simulate'; body: SimulateBody }
  | { kind: 'lifecycle'; body: LifecycleBody }
  | { kind: 'repeat'; tx: string; forward: boolean }
  | { kind: 'expire'; originalTx: string }
  | { kind: 'clock'; advanceSeconds: number }
  | { kind: 'deliver-advices' }
  | { kind: 'stand-in'; program: string; standIn: StandInPolicy }
  | { kind: 'check'; tx: string }
  | { kind: 'wait'; seconds: number };

/** Keys every step may have, whatever it does. */
export const COMMON_STEP_KEYS = ['id', 'name', 'intent', 'expect', 'repeat', 'webhookFaults', 'webhookFaultsSeed', 'within'] as const;

/** The keys each kind of step takes besides the common ones. */
const SIMULATION_KEYS = ['amount', 'flow', 'card', 'pan', 'expiry', 'account', 'channel', 'method', 'currency', 'merchant', 'terminal', 'forward', 'originalTx', 'originalStan', 'originalRrn', 'date', 'set'] as const;
const KEYS_OF: Record<StepIntent, readonly string[]> = {
  authorization: SIMULATION_KEYS,
  financial: SIMULATION_KEYS,
  reversal: SIMULATION_KEYS,
  increment: ['originalTx', 'amount', 'currency', 'forward', 'set'],
  completion: ['originalTx', 'amount', 'currency', 'forward', 'set'],
  refund: ['originalTx', 'amount', 'currency', 'forward', 'set'],
  advice: ['amount', 'flow', 'card', 'pan', 'expiry', 'account', 'channel', 'method', 'currency', 'merchant', 'terminal', 'forward', 'set', 'networkCode'],
  repeat: ['tx', 'forward'],
  expire: ['originalTx'],
  clock: ['advance'],
  'deliver-advices': [],
  'stand-in': ['program', 'standIn'],
  check: ['tx'],
  wait: ['for'],
};

/** Every key a step may have, for the "unknown key" message. */
export const STEP_KEYS: readonly string[] = [...new Set([...COMMON_STEP_KEYS, ...Object.values(KEYS_OF).flat()])];

const SECONDS_PER_UNIT: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };

/** `250ms`, `3s`, `30m`, `169h`, `7d` (or a number of seconds) → seconds; undefined when it is none of those. */
export function durationSeconds(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(String(value ?? '').trim());
  return match ? Number(match[1]) * SECONDS_PER_UNIT[match[2]!]! : undefined;
}

/** The action of a step; `prefix` starts every message ("scenario f.yaml, step 2 (clear): "). */
export function stepAction(step: Record<string, unknown>, prefix = ''): StepAction {
  const fail = (message: string): never => {
    throw new UsageError(`${prefix}${message}`);
  };
  const intent = String(step.intent) as StepIntent;
  if (!(STEP_INTENTS as readonly string[]).includes(intent)) fail(`intent must be one of ${STEP_INTENTS.join(', ')}`);
  const allowed = new Set<string>([...COMMON_STEP_KEYS, ...KEYS_OF[intent]]);
  for (const key of Object.keys(step)) if (!allowed.has(key)) fail(`"${key}" is not a key of ${intent} steps (they take ${KEYS_OF[intent].join(', ') || 'no keys of their own'})`);
  const { id: _i, name: _n, intent: _t, expect: _e, repeat: _r, webhookFaults: _w, webhookFaultsSeed: _s, within: _d, ...keys } = step;
  const text = (key: string) => (keys[key] === undefined || keys[key] === null ? '' : String(keys[key]).trim());
  const required = (key: string) => text(key) || fail(`${intent} steps need ${key}`);

  switch (intent) {
    case 'authorization': case 'financial': case 'reversal':
      return { kind: 'simulate', body: buildSimulateBody({ ...keys, intent } as SimulationInput, (k) => String(k), prefix).body };
    case 'increment': case 'completion': case 'refund': case 'advice':
      return { kind: 'lifecycle', body: buildLifecycleBody({ ...keys, message: intent } as LifecycleInput, (k) => String(k), prefix) };
    case 'repeat':
      return { kind: 'repeat', tx: required('tx'), forward: keys.forward === true || keys.forward === 'true' };
    case 'expire':
      return { kind: 'expire', originalTx: required('originalTx') };
    case 'clock': {
      const seconds = durationSeconds(required('advance'));
      if (seconds === undefined || seconds <= 0 || seconds > 31_536_000) fail(`advance "${text('advance')}" must be a duration up to a year, e.g. 90s, 30m, 169h or 7d`);
      return { kind: 'clock', advanceSeconds: seconds! };
    }
    case 'deliver-advices':
      return { kind: 'deliver-advices' };
    case 'stand-in':
      return { kind: 'stand-in', program: required('program'), standIn: standInPolicy(keys.standIn, fail) };
    case 'check':
      return { kind: 'check', tx: required('tx') };
    case 'wait': {
      // Real time (the spacing of recorded traffic, `webhook exchanges --as-scenario --keep-spacing`); the switch's clock is `clock`.
      const seconds = durationSeconds(required('for'));
      if (seconds === undefined || seconds > 3600) fail(`for "${text('for')}" must be a duration up to an hour, e.g. 250ms, 3s or 2m`);
      return { kind: 'wait', seconds: seconds! };
    }
  }
}

function standInPolicy(value: unknown, fail: (message: string) => never): StandInPolicy {
  const policy = (value && typeof value === 'object' && !Array.isArray(value) ? value : fail('standIn must be a map: {mode: decline} or {mode: approve, maxAmount: M, dailyAmount: D}')) as Record<string, unknown>;
  if (policy.mode === 'decline') return { mode: 'decline', maxAmount: 0, dailyAmount: 0 };
  if (policy.mode !== 'approve') fail('standIn.mode must be decline or approve');
  const amount = (key: string) => {
    const n = Number(policy[key]);
    return Number.isFinite(n) && n >= 0 ? n : fail(`standIn.${key} must be an amount in major units`);
  };
  return { mode: 'approve', maxAmount: amount('maxAmount'), dailyAmount: amount('dailyAmount') };
}
