// Scenario files of `cardctl simulate run`: YAML or JSON, an ordered list of steps whose keys
// mirror the `simulate` flags in camelCase (what each kind of step takes: ./steps.ts),
// `{{steps.<id>.<field>}}` / `{{vars.<name>}}` references, and `expect` checks. Loading checks everything it can before anything is sent;
// problems are usage errors naming the file, the step and its line.
import { UsageError } from '../core/errors.js';
import { parseYamlFile } from '../core/yaml.js';
import { expectPathProblem } from './expect-paths.js';
import { durationSeconds, STEP_INTENTS, STEP_KEYS, stepAction } from './steps.js';

export { STEP_KEYS };
const STEP_KEY_SET: ReadonlySet<string> = new Set(STEP_KEYS);
const ROOT_KEYS = new Set(['name', 'description', 'vars', 'steps']);
/** Steps a file may hold (each may `repeat` up to 1,000 times). */
export const MAX_SCENARIO_STEPS = 1000;

export interface ScenarioStep {
  /** Given id, or `step<N>` (1-based). */
  id: string;
  index: number;
  /** 1-based line of the step in the file. */
  line?: number;
  /** The step's simulation keys, templates unresolved. */
  input: Record<string, unknown>;
  expect?: Record<string, unknown>;
  repeat: number;
}

export interface Scenario {
  name: string;
  file: string;
  vars: Record<string, string>;
  steps: ScenarioStep[];
}

/** Parses and checks a scenario. `setVars` come from `--set key=value` and win over `vars:`. */
export async function loadScenario(text: string, file: string, setVars: Record<string, string> = {}): Promise<Scenario> {
  const { value: data, lineOf } = await parseYamlFile(text, file, 'scenario');
  const fail = (message: string, path: Array<string | number> = []): never => {
    const line = path.length ? lineOf(path) : undefined;
    throw new UsageError(`invalid scenario ${file}${line ? ` (line ${line})` : ''}: ${message}`, {
      hint: 'see `cardctl help scenarios` or the examples in examples/scenarios/',
    });
  };

  const root = (Array.isArray(data) ? { steps: data } : data) as Record<string, unknown> | null;
  const stepsPath: Array<string | number> = Array.isArray(data) ? [] : ['steps'];
  if (!root || typeof root !== 'object') fail('expected a map with "steps" (or a list of steps)');
  for (const key of Object.keys(root!)) if (!ROOT_KEYS.has(key)) fail(`unknown key "${key}" (expected ${[...ROOT_KEYS].join(', ')})`, [key]);
  // No prototype: a var named toString or constructor is only what the file says.
  const vars: Record<string, string> = Object.create(null) as Record<string, string>;
  if (root!.vars !== undefined) {
    if (!root!.vars || typeof root!.vars !== 'object' || Array.isArray(root!.vars)) fail('"vars" must be a map of names to values', ['vars']);
    for (const [key, value] of Object.entries(root!.vars as Record<string, unknown>)) {
      if (value !== null && typeof value === 'object') fail(`vars.${key} must be a plain value`, ['vars', key]);
      vars[key] = value === null || value === undefined ? '' : String(value);
    }
  }
  Object.assign(vars, setVars);
  const rawSteps = root!.steps;
  if (!Array.isArray(rawSteps) || rawSteps.length === 0) fail('"steps" must be a non-empty list', stepsPath.length ? stepsPath : []);
  if ((rawSteps as unknown[]).length > MAX_SCENARIO_STEPS) fail(`${(rawSteps as unknown[]).length} steps, more than the ${MAX_SCENARIO_STEPS} a scenario may hold`, stepsPath);

  const steps: ScenarioStep[] = [];
  const ids = new Set<string>();
  for (const [index, raw] of (rawSteps as unknown[]).entries()) {
    const path = [...stepsPath, index];
    const label = `step ${index + 1}`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail(`${label} must be a map of simulate keys`, path);
    const step = raw as Record<string, unknown>;
    for (const key of Object.keys(step)) {
      if (!STEP_KEY_SET.has(key)) fail(`${label}: unknown key "${key}" (keys mirror the simulate flags in camelCase: ${STEP_KEYS.join(', ')})`, [...path, key]);
    }
    const id = step.id === undefined ? `step${index + 1}` : String(step.id);
    if (!/^[A-Za-z_][\w-]*$/.test(id)) fail(`${label}: id "${id}" must start with a letter and hold letters, digits, _ or -`, [...path, 'id']);
    if (ids.has(id)) fail(`${label}: id "${id}" is used twice`, [...path, 'id']);
    const where = `${label} (${id})`;
    if (!(STEP_INTENTS as readonly string[]).includes(String(step.intent))) fail(`${where}: intent must be one of ${STEP_INTENTS.join(', ')}`, [...path, step.intent === undefined ? [] : ['intent']].flat());
    const repeat = step.repeat === undefined ? 1 : Number(step.repeat);
    if (!Number.isInteger(repeat) || repeat < 1 || repeat > 1000) fail(`${where}: repeat must be a whole number from 1 to 1000`, [...path, 'repeat']);
    if (step.expect !== undefined && (!step.expect || typeof step.expect !== 'object' || Array.isArray(step.expect))) fail(`${where}: expect must be a map of result fields to values`, [...path, 'expect']);
    for (const key of step.expect ? Object.keys(step.expect) : []) {
      const problem = expectPathProblem(key);
      if (problem) fail(`${where}: ${problem}`, [...path, 'expect', key]);
    }
    if (step.set !== undefined && (!step.set || typeof step.set !== 'object' || Array.isArray(step.set))) fail(`${where}: set must be a map of field numbers to values`, [...path, 'set']);

    // References: earlier steps and known vars only.
    for (const ref of templatesIn(step)) {
      const [scope, name] = ref.split('.', 2);
      if (scope === 'steps') {
        if (!name || !ids.has(name)) fail(`${where}: {{${ref}}} refers to ${name ? `"${name}", which is not an earlier step` : 'no step'}`, path);
      } else if (scope === 'vars') {
        if (!name || !Object.hasOwn(vars, name)) fail(`${where}: {{${ref}}} is not defined (add it under vars: or pass --set ${name ?? 'NAME'}=VALUE)`, path);
      } else {
        fail(`${where}: {{${ref}}} must start with steps. or vars.`, path);
      }
    }
    if (step.within !== undefined && !(durationSeconds(step.within)! <= 60)) fail(`${where}: within must be a duration up to 60s, e.g. 3s or 500ms`, [...path, 'within']);
    if (step.webhookFaults !== undefined) await checkWebhookFaults(step.webhookFaults, step.webhookFaultsSeed, (message) => fail(`${where}: ${message}`, [...path, 'webhookFaults']));
    const { id: _id, name: _name, expect, repeat: _repeat, ...input } = step;
    // Check what can be checked now: templates of vars resolved, step references replaced by
    // stand-ins of the right shape.
    try {
      stepAction({ ...standIn(resolveTemplates(input, { vars, steps: {} }, true)) }, `${where}: `);
    } catch (error) {
      if (error instanceof UsageError) fail(error.message, path);
      throw error;
    }
    ids.add(id);
    steps.push({ id, index, line: lineOf(path), input, expect: expect as Record<string, unknown> | undefined, repeat });
  }
  const name = typeof root!.name === 'string' && root!.name ? root!.name : file;
  return { name, file, vars, steps };
}

/** A step's webhook faults, checked as the sandbox will check them (PUT /sandbox/webhook-faults). */
async function checkWebhookFaults(spec: unknown, seed: unknown, fail: (message: string) => never): Promise<void> {
  if (typeof spec !== 'string') fail('webhookFaults is the text form, e.g. "deadline=300ms,reply-lost=1"');
  const { parseWebhookFaults, WebhookFaultSpecError } = await import('../sandbox/switch/webhook-faults.js');
  try {
    parseWebhookFaults(spec as string);
  } catch (error) {
    if (error instanceof WebhookFaultSpecError) fail(`webhookFaults: ${error.message}`);
    throw error;
  }
  if (seed !== undefined && !(Number.isInteger(seed) && (seed as number) >= 0 && (seed as number) <= 0xffffffff)) fail('webhookFaultsSeed must be a whole number from 0 to 4294967295');
}

function templatesIn(value: unknown): string[] {
  if (typeof value === 'string') return templates(value).map((t) => t.ref);
  if (Array.isArray(value)) return value.flatMap(templatesIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(templatesIn);
  return [];
}

export interface TemplateScope {
  vars: Record<string, string>;
  steps: Record<string, unknown>;
}

/**
 * Replaces `{{vars.x}}` and `{{steps.id.path}}` in every string. A string that is exactly one
 * template takes the referenced value as is (numbers stay numbers). With `lenient`, unknown
 * step references are left in place (load-time checks).
 */
export function resolveTemplates<T>(value: T, scope: TemplateScope, lenient = false): T {
  if (typeof value === 'string') {
    const found = templates(value);
    if (found.length === 0) return value;
    const valueOf = (ref: string, match: string): unknown => {
      const result = lookup(ref, scope);
      if (result === undefined && !lenient) throw new UsageError(`{{${ref}}} has no value`);
      return result === undefined ? match : result;
    };
    const first = found[0]!;
    if (found.length === 1 && first.start === 0 && first.end === value.length) {
      const result = valueOf(first.ref, value);
      return (typeof result === 'object' ? JSON.stringify(result) : result) as T;
    }
    let out = '';
    let at = 0;
    for (const { start, end, ref } of found) {
      const result = valueOf(ref, value.slice(start, end));
      out += value.slice(at, start) + (typeof result === 'object' ? JSON.stringify(result) : String(result));
      at = end;
    }
    return (out + value.slice(at)) as T;
  }
  if (Array.isArray(value)) return value.map((item) => resolveTemplates(item, scope, lenient)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveTemplates(v, scope, lenient)])) as T;
  }
  return value;
}

/**
 * The templates of a string: `{{`, a reference without `}`, `}}`, white space around it
 * ignored. A scan, not a regular expression: one with `\s*` on both sides of the reference
 * took minutes on a few kilobytes of `{{` and spaces. Linear: the next `}` is looked for once
 * per `}` passed, not once per `{{`.
 */
export function templates(text: string): Array<{ start: number; end: number; ref: string }> {
  const found: Array<{ start: number; end: number; ref: string }> = [];
  let close = -1;
  for (let start = text.indexOf('{{'); start >= 0; start = text.indexOf('{{', start + 1)) {
    if (close < start + 2) close = text.indexOf('}', start + 2);
    if (close < 0) break;
    // A reference holds at least one character, and ends at the first `}`, which must be doubled.
    if (close === start + 2 || text[close + 1] !== '}') continue;
    found.push({ start, end: close + 2, ref: text.slice(start + 2, close).trim() });
    start = close + 1;
  }
  return found;
}

/** An earlier step's field or a var; only what the scope itself holds, never a prototype's member. */
function lookup(ref: string, scope: TemplateScope): unknown {
  const [head, ...rest] = ref.split('.');
  let value: unknown = head === 'vars' ? scope.vars : head === 'steps' ? scope.steps : undefined;
  for (const key of rest) {
    if (value === null || value === undefined || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Unresolved step references → values of the right shape, so the rest can be checked. */
function standIn(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === 'string' && /\{\{/.test(value)) {
      out[key] = key === 'originalStan' ? '000001' : key === 'originalRrn' ? '000000000001' : key === 'amount' ? '1' : key === 'expiry' ? '2912' : key === 'pan' ? '4111111111111111' : key === 'currency' ? '566' : key === 'date' ? '2026-01-01T00:00:00Z' : 'x';
    } else if (key === 'set' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([f, v]) => [f, typeof v === 'string' && /\{\{/.test(v) ? (f === '4' ? '000000000100' : 'x') : v]));
    } else {
      out[key] = value;
    }
  }
  return out;
}
