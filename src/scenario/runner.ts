// Runs a loaded scenario step by step: resolves templates against earlier results, sends each
// simulation through `send`, compares `expect`, and reports every step as it finishes.
import type { SimulateBody, SimulateResult } from '../api/schemas.js';
import { CliError, NotFoundError, RejectedError, UsageError } from '../core/errors.js';
import { buildSimulateBody, type SimulationInput } from '../commands/simulate/request.js';
import { currencyInfo, minorToDecimal } from '../iso8583/amount.js';
import { isApproved } from '../iso8583/codes.js';
import { resolveTemplates, type Scenario, type ScenarioStep } from './scenario.js';

export interface SentSimulation {
  status: string;
  message: string;
  data: SimulateResult;
}

/** What a step produced: the simulator's data plus status/message, or the API error. */
export interface StepResult extends Partial<SimulateResult> {
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
  onStep?(report: StepReport): void;
  signal?: AbortSignal;
}

export async function runScenario(scenario: Scenario, hooks: RunHooks): Promise<ScenarioSummary> {
  const started = performance.now();
  const results: Record<string, StepResult> = {};
  const reports: StepReport[] = [];
  for (const step of scenario.steps) {
    for (let iteration = 1; iteration <= step.repeat; iteration++) {
      hooks.signal?.throwIfAborted();
      const report = await runStep(scenario, step, iteration, results, hooks);
      results[step.id] = report.result;
      reports.push(report);
      hooks.onStep?.(report);
    }
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

async function runStep(scenario: Scenario, step: ScenarioStep, iteration: number, results: Record<string, StepResult>, hooks: RunHooks): Promise<StepReport> {
  const started = performance.now();
  const where = `step ${step.index + 1} (${step.id})${step.line ? `, line ${step.line}` : ''}`;
  const scope = { vars: scenario.vars, steps: results };
  const base = { id: step.id, index: step.index, iteration, repeat: step.repeat, intent: String(step.input.intent) };
  let input: SimulationInput;
  let expect: Record<string, unknown> | undefined;
  try {
    input = resolveTemplates(step.input, scope) as unknown as SimulationInput;
    expect = step.expect ? resolveTemplates(step.expect, scope) : undefined;
  } catch (error) {
    // A reference to a step that failed without the field asked for.
    if (error instanceof UsageError) {
      return { ...base, passed: false, failures: [`${error.message} (the referenced step did not produce it)`], result: { outcome: 'error' }, durationMs: 0 };
    }
    throw error;
  }
  const { body } = buildSimulateBody(input, (k) => String(k), `scenario ${scenario.file}, ${where}: `);
  let result: StepResult;
  try {
    const sent = await hooks.send(body);
    const data = sent.data;
    const currency = data.request?.['49'] ?? body.currency ?? '566';
    result = {
      ...data,
      status: sent.status,
      message: sent.message,
      approved: isApproved(data.responseCode),
      outcome: isApproved(data.responseCode) ? 'approved' : data.responseCode === '96' ? 'failed' : 'declined',
      amount: data.request?.['4'] ? minorToDecimal(data.request['4'], currencyInfo(currency)?.digits ?? 2) : undefined,
    };
  } catch (error) {
    // The simulator refusing the request (4xx) is an outcome a step may expect; anything else
    // (network, auth, server) ends the run.
    if (!(error instanceof RejectedError || error instanceof NotFoundError)) throw error;
    const cli = error as CliError;
    result = { outcome: 'error', error: cli.code, httpStatus: cli.status, errorMessage: cli.message };
  }
  const failures = check(expect, result);
  return { ...base, passed: failures.length === 0, failures, result, durationMs: Math.round(performance.now() - started) };
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

function getPath(record: unknown, path: string): unknown {
  let value: unknown = record;
  for (const key of path.split('.')) {
    if (value === null || value === undefined || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
