// Runs a loaded scenario step by step: resolves templates against earlier results, sends each
// simulation through `send` (and each lifecycle message or sandbox action through `sandbox`),
// compares `expect`, and reports every step as it finishes. Expectations on `transaction.*`,
// `lifecycle.*`, `exchanges.*` and `webhook.*` read the state after the step, again until `within`
// runs out when they do not hold yet (advices and timeout reversals are sent in the background).
import type { LifecycleBody, SimulateBody, SimulateResult, StandInPolicy, Transaction, WebhookExchange } from '../api/schemas.js';
import type { SwitchClock } from '../api/simulate.js';
import { CliError, NotFoundError, RejectedError, UsageError } from '../core/errors.js';
import { currencyInfo, minorToDecimal } from '../iso8583/amount.js';
import { isApproved } from '../iso8583/codes.js';
import { resolveTemplates, type Scenario, type ScenarioStep } from './scenario.js';
import { durationSeconds, stepAction, type StepAction } from './steps.js';

export interface SentSimulation {
  status: string;
  message: string;
  data: SimulateResult;
}

/**
 * What a step produced: the simulator's data plus status/message, or the API error. The answer's
 * `standIn` and `webhook` are left out: in a scenario those names are the stand-in step's policy
 * and what the listener received (the transaction's `standIn` says what the network decided).
 */
export interface StepResult extends Partial<Omit<SimulateResult, 'standIn' | 'webhook'>> {
  status?: string;
  message?: string;
  approved?: boolean;
  outcome?: 'approved' | 'declined' | 'failed' | 'error';
  /** The amount in major units ("250.00"), for later steps' `amount: "{{steps.x.amount}}"`. */
  amount?: string;
  /** API error code (CONFLICT, NOT_FOUND, VALIDATION_ERROR …) when the simulator refused the request. */
  error?: string;
  httpStatus?: number;
  errorMessage?: string;
  /** A sandbox action's own answer: `clock`, `deliver-advices`, `stand-in`. */
  clock?: SwitchClock;
  advices?: { delivered: number; pending: number };
  standIn?: StandInPolicy;
  /** State after the step, read when `expect` asks for it. */
  transaction?: Transaction;
  lifecycle?: unknown;
  /** The sandbox's record of the webhook calls of the transaction and its linked messages, oldest first. */
  exchanges?: WebhookExchange[];
  /** What `webhook listen` received with the transaction's STAN and RRN (its own account). */
  webhook?: unknown;
  /** One line for a step without a message of its own ("clock +604800 s, 1 hold released"). */
  summary?: string;
}

/** Parts of the state after a step that `expect` can read. */
export const STATE_PARTS = ['transaction', 'lifecycle', 'exchanges', 'webhook'] as const;
export type StatePart = (typeof STATE_PARTS)[number];

/** What the steps beyond the reference's simulations need of the sandbox. */
export interface SandboxHooks {
  lifecycle(body: LifecycleBody): Promise<SentSimulation>;
  repeat(transactionId: string, forward: boolean): Promise<SentSimulation>;
  expire(transactionId: string): Promise<Transaction>;
  advanceClock(seconds: number): Promise<SwitchClock>;
  deliverAdvices(): Promise<{ delivered: number; pending: number }>;
  /** The program's stand-in policy now (undefined: none set, the sandbox declines). */
  standIn(program: string): Promise<StandInPolicy | undefined>;
  /** `restore`: putting back what the run changed, also after Ctrl-C (the run's signal is not used). */
  setStandIn(program: string, standIn: StandInPolicy, options?: { restore?: boolean }): Promise<void>;
  /** Runs `work` with these faults on the institution's webhook path, then puts back those before, also after Ctrl-C. */
  withWebhookFaults<T>(faults: { spec: string; seed?: number | undefined }, work: () => Promise<T>): Promise<T>;
  /** The parts asked for, of the transaction the step produced. */
  state(result: StepResult, parts: ReadonlySet<StatePart>): Promise<Partial<Pick<StepResult, StatePart>>>;
}

export interface StepReport {
  id: string;
  index: number;
  /** 1-based iteration of a `repeat`ed step. */
  iteration: number;
  repeat: number;
  intent: string;
  passed: boolean;
  failures: string[];
  result: StepResult;
  durationMs: number;
}

export interface ScenarioSummary {
  name: string;
  file: string;
  passed: number;
  failed: number;
  total: number;
  durationMs: number;
  steps: StepReport[];
}

export interface RunHooks {
  send(body: SimulateBody): Promise<SentSimulation>;
  /** Lifecycle messages, sandbox actions, per-step webhook faults and state expectations. */
  sandbox?: SandboxHooks;
  onStep?(report: StepReport): void;
  signal?: AbortSignal;
  /** Waits between reads of the state under `within` (tests pass a fake). */
  sleep?(ms: number): Promise<void>;
}

/** How often the state is read again under `within`. */
const STATE_POLL_MS = 200;

/**
 * Runs the steps in order. The sandbox is shared: a step's webhook faults are taken off again
 * when the step ends, however it ends; and when the run ends, however it ends (done, Ctrl-C,
 * an error), each program whose stand-in policy a step changed gets its policy from before the
 * run back.
 */
export async function runScenario(scenario: Scenario, hooks: RunHooks): Promise<ScenarioSummary> {
  const started = performance.now();
  const results: Record<string, StepResult> = {};
  const reports: StepReport[] = [];
  const standInsBefore = new Map<string, StandInPolicy>();
  try {
    for (const step of scenario.steps) {
      for (let iteration = 1; iteration <= step.repeat; iteration++) {
        hooks.signal?.throwIfAborted();
        const report = await runStep(scenario, step, iteration, results, hooks, standInsBefore);
        results[step.id] = report.result;
        reports.push(report);
        hooks.onStep?.(report);
      }
    }
  } finally {
    for (const [program, policy] of standInsBefore) await hooks.sandbox?.setStandIn(program, policy, { restore: true }).catch(() => {});
  }
  const failed = reports.filter((r) => !r.passed).length;
  return {
    name: scenario.name,
    file: scenario.file,
    passed: reports.length - failed,
    failed,
    total: reports.length,
    durationMs: Math.round(performance.now() - started),
    steps: reports,
  };
}

/** The stand-in policy the sandbox declines with when a program has none. */
const NO_STAND_IN: StandInPolicy = { mode: 'decline', maxAmount: 0, dailyAmount: 0 };

async function runStep(
  scenario: Scenario, step: ScenarioStep, iteration: number, results: Record<string, StepResult>, hooks: RunHooks,
  standInsBefore: Map<string, StandInPolicy>,
): Promise<StepReport> {
  const started = performance.now();
  const where = `step ${step.index + 1} (${step.id})${step.line ? `, line ${step.line}` : ''}`;
  const scope = { vars: scenario.vars, steps: results };
  const base = { id: step.id, index: step.index, iteration, repeat: step.repeat, intent: String(step.input.intent) };
  let input: Record<string, unknown>;
  let expect: Record<string, unknown> | undefined;
  try {
    input = resolveTemplates(step.input, scope);
    expect = step.expect ? resolveTemplates(step.expect, scope) : undefined;
  } catch (error) {
    // A reference to a step that failed without the field asked for.
    if (error instanceof UsageError) {
      return { ...base, passed: false, failures: [`${error.message} (the referenced step did not produce it)`], result: { outcome: 'error' }, durationMs: 0 };
    }
    throw error;
  }
  const prefix = `scenario ${scenario.file}, ${where}: `;
  const action = stepAction(input, prefix);
  const faults = input.webhookFaults === undefined ? undefined : { spec: String(input.webhookFaults), seed: input.webhookFaultsSeed === undefined ? undefined : Number(input.webhookFaultsSeed) };
  const sandbox = (): SandboxHooks => {
    if (!hooks.sandbox) throw new UsageError(`${prefix}this step needs the sandbox`);
    return hooks.sandbox;
  };
  let result: StepResult;
  const act = async (): Promise<StepResult> => {
    if (action.kind === 'stand-in' && !standInsBefore.has(action.program)) {
      standInsBefore.set(action.program, (await sandbox().standIn(action.program)) ?? NO_STAND_IN);
    }
    return action.kind === 'wait' ? wait(action.seconds, hooks) : perform(action, hooks.send, sandbox);
  };
  try {
    result = faults ? await sandbox().withWebhookFaults(faults, act) : await act();
  } catch (error) {
    // The simulator refusing the request (4xx) is an outcome a step may expect; anything else
    // (network, auth, server) ends the run.
    if (!(error instanceof RejectedError || error instanceof NotFoundError)) throw error;
    const cli = error as CliError;
    result = { outcome: 'error', error: cli.code, httpStatus: cli.status, errorMessage: cli.message };
  }
  const parts = new Set(Object.keys(expect ?? {}).map((path) => path.split('.')[0]).filter((head): head is StatePart => (STATE_PARTS as readonly string[]).includes(head!)));
  if (parts.size > 0 && result.outcome !== 'error') {
    const deadline = performance.now() + (durationSeconds(input.within) ?? 0) * 1000;
    const sleep = hooks.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    Object.assign(result, await sandbox().state(result, parts));
    while (check(expect, result).length > 0 && performance.now() < deadline) {
      hooks.signal?.throwIfAborted();
      await sleep(STATE_POLL_MS);
      Object.assign(result, await sandbox().state(result, parts));
    }
  }
  const failures = check(expect, result);
  return { ...base, passed: failures.length === 0, failures, result, durationMs: Math.round(performance.now() - started) };
}

async function wait(seconds: number, hooks: RunHooks): Promise<StepResult> {
  await (hooks.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))))(seconds * 1000);
  return { summary: `waited ${seconds} s` };
}

async function perform(action: Exclude<StepAction, { kind: 'wait' }>, send: RunHooks['send'], needSandbox: () => SandboxHooks): Promise<StepResult> {
  if (action.kind === 'simulate') return fromSimulation(await send(action.body), action.body.currency);
  const sandbox = needSandbox();
  switch (action.kind) {
    case 'lifecycle': return fromSimulation(await sandbox.lifecycle(action.body), action.body.currency);
    case 'repeat': return fromSimulation(await sandbox.repeat(action.tx, action.forward));
    case 'expire': {
      const tx = await sandbox.expire(action.originalTx);
      return {
        transactionId: tx.id, mti: tx.mti, stan: tx.stan, rrn: tx.rrn, responseCode: tx.responseCode, transactionStatus: tx.transactionStatus, transaction: tx,
        summary: `expire ${tx.id}: ${tx.transactionStatus}${tx.releaseReason ? ` (${tx.releaseReason})` : ''}`,
      };
    }
    case 'clock': {
      const clock = await sandbox.advanceClock(action.advanceSeconds);
      return { clock, summary: `clock +${action.advanceSeconds} s: now ${clock.now}, ${clock.expired} hold${clock.expired === 1 ? '' : 's'} released` };
    }
    case 'deliver-advices': {
      const advices = await sandbox.deliverAdvices();
      return { advices, summary: `advices: ${advices.delivered} delivered, ${advices.pending} pending` };
    }
    case 'check':
      return { transactionId: action.tx, summary: `check ${action.tx}` };
    case 'stand-in':
      await sandbox.setStandIn(action.program, action.standIn);
      return { standIn: action.standIn, summary: `stand-in of ${action.program}: ${action.standIn.mode === 'approve' ? `approve up to ${action.standIn.maxAmount} (${action.standIn.dailyAmount} a day)` : 'decline'}` };
  }
}

function fromSimulation(sent: SentSimulation, currencyAsked?: string): StepResult {
  const { standIn: _standIn, webhook: _webhook, ...data } = sent.data;
  const currency = data.request?.['49'] ?? currencyAsked ?? '566';
  return {
    ...data,
    status: sent.status,
    message: sent.message,
    approved: isApproved(data.responseCode),
    outcome: isApproved(data.responseCode) ? 'approved' : data.responseCode === '96' ? 'failed' : 'declined',
    amount: data.request?.['4'] ? minorToDecimal(data.request['4'], currencyInfo(currency)?.digits ?? 2) : undefined,
  };
}

/** Each expected field against the result; a list means "any of". No expect: an API error fails. */
export function check(expect: Record<string, unknown> | undefined, result: StepResult): string[] {
  if (!expect) return result.outcome === 'error' ? [`the simulator refused the request: ${result.errorMessage}`] : [];
  const failures: string[] = [];
  for (const [path, wanted] of Object.entries(expect)) {
    const actual = getPath(result, path);
    const options = Array.isArray(wanted) ? wanted : [wanted];
    const ok = options.some((option) => same(actual, option));
    if (!ok) {
      const shown = actual === undefined ? (result.outcome === 'error' ? `nothing (the simulator refused: ${result.errorMessage})` : 'nothing') : JSON.stringify(actual);
      failures.push(`expected ${path} ${Array.isArray(wanted) ? `one of ${JSON.stringify(wanted)}` : JSON.stringify(wanted)}, got ${shown}`);
    }
  }
  return failures;
}

function same(actual: unknown, wanted: unknown): boolean {
  if (actual === undefined) return wanted === null;
  if (typeof wanted === 'boolean' || typeof actual === 'boolean') return String(actual) === String(wanted);
  if (typeof wanted === 'number' && typeof actual === 'string' && /^\d+$/.test(actual) && actual.length === 2) {
    return actual === String(wanted).padStart(2, '0'); // responseCode: 0 written unquoted in YAML
  }
  return String(actual) === String(wanted);
}

/** A result field by its dotted path; own fields only (`expect: {constructor: …}` finds nothing). */
function getPath(record: unknown, path: string): unknown {
  let value: unknown = record;
  for (const key of path.split('.')) {
    if (value === null || value === undefined || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
