import type { Context } from '../../contract/context.js';
import { defineCommand } from '../../contract/command.js';
import { defineFlags } from '../../core/flags.js';
import { RejectedError, UsageError } from '../../core/errors.js';
import { escapeControls } from '../../output/format.js';
import type { ScenarioSummary, StepReport } from '../../scenario/runner.js';
import type { Scenario } from '../../scenario/scenario.js';

const FLAGS = defineFlags({
  set: { type: 'list', value: 'key=value', repeat: 'variadic', description: 'scenario variable, e.g. --set card=6650c0ffee (repeatable)' },
});

export default defineCommand({
  name: 'run',
  mcp: 'simulate',
  output: async () => {
    const [{ outputShape }, { summaryKeys }] = await Promise.all([import('../../output/shape.js'), import('../output-shapes.js')]);
    return outputShape(summaryKeys<ScenarioSummary>({ name: true, file: true, passed: true, failed: true, total: true, durationMs: true, steps: true }));
  },
  summary: 'run a scenario file of simulations with expectations',
  description: `Runs the steps of a YAML or JSON scenario in order. Step keys mirror the simulate flags in
camelCase (intent, card, pan, expiry, account, amount, flow, channel, method, currency, merchant,
terminal, forward, originalTx, originalStan, originalRrn, date, set); \`repeat: N\` runs a step N times.
Later steps refer to earlier results with {{steps.<id>.<field>}} (transactionId, stan, rrn, amount,
responseCode, request.4, …) and to variables with {{vars.<name>}} (from \`vars:\` or --set name=value).
\`expect\` compares result fields: responseCode, transactionStatus, status, approved, outcome, mti,
response.39, … — or, when the simulator refuses a request (e.g. a second reversal), error (CONFLICT,
NOT_FOUND, VALIDATION_ERROR) and httpStatus.

Against the sandbox, steps may also be lifecycle messages and sandbox actions (increment, completion,
refund, advice, repeat, expire, clock, deliver-advices, stand-in, check), inject webhook faults for
one step (webhookFaults), and expect the state after the step: transaction.*, lifecycle.*,
exchanges.* (the sandbox's record of each webhook call: any handler) and webhook.* (what
\`webhook listen\` received), read again until \`within\` runs out. See
\`cardctl help scenarios\`.

Prints a pass/fail line per step and a summary; exits 5 if any expectation failed, 2 if the file is
invalid (nothing is sent then). -o json prints the summary object, -o ndjson one line per step.`,
  args: [{ syntax: '<scenario-file>', description: 'YAML or JSON scenario' }],
  flags: FLAGS,
  examples: [
    'cardctl simulate run examples/scenarios/auth-then-reversal.yaml --set card=6650c0ffee',
    'cardctl simulate run scenario.yaml -o json',
  ],
  async parse({ args, opts }) {
    const file = String(args[0] ?? '');
    const vars: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const item of opts.set ?? []) {
      const eq = item.indexOf('=');
      if (eq <= 0) throw new UsageError(`invalid --set "${item}": expected NAME=VALUE, e.g. --set card=6650c0ffee`);
      vars[item.slice(0, eq).trim()] = item.slice(eq + 1);
    }
    // A file is read and checked here; stdin (-) is read by run().
    if (file === '-') return { file, vars };
    const [{ readTextFile }, { YAML_LIMITS }] = await Promise.all([import('../../core/text.js'), import('../../core/yaml.js')]);
    return { file, vars, scenario: await readScenario(file, () => readTextFile(file, YAML_LIMITS.maxBytes), vars) };
  },
  async run(ctx, { file, vars, scenario: fromFile }: { file: string; vars: Record<string, string>; scenario?: Scenario }) {
    const [{ runScenario }, { sendSimulation }] = await Promise.all([import('../../scenario/runner.js'), import('./execute.js')]);
    const scenario = fromFile ?? await readScenario(file, async () => (await import('../../core/io.js')).readAll(ctx.io.stdin, ctx.signal), vars);
    const format = ctx.settings().output;
    const printer = await stepPrinter(ctx, format);
    if (format !== 'json' && format !== 'ndjson' && !ctx.globals.quiet) {
      ctx.log.info(`Scenario: ${scenario.name} (${scenario.steps.length} step${scenario.steps.length === 1 ? '' : 's'})`, 'bold');
    }
    const summary = await runScenario(scenario, {
      send: (body) => sendSimulation(ctx, body),
      sandbox: (await import('./scenario-sandbox.js')).scenarioSandbox(ctx),
      onStep: printer,
      signal: ctx.signal,
    });
    await printSummary(ctx, format, summary);
    if (summary.failed > 0) {
      throw new RejectedError(`${summary.failed} of ${summary.total} step${summary.total === 1 ? '' : 's'} failed in ${scenario.file}`, {
        code: 'SCENARIO_FAILED',
        details: summary.steps.filter((s) => !s.passed).map((s) => ({ id: s.id, iteration: s.iteration, failures: s.failures })),
      });
    }
  },
});

/** The scenario in `file` (- for stdin), its text given by `read`, with the --set variables. */
async function readScenario(file: string, read: () => Promise<string>, vars: Record<string, string>): Promise<Scenario> {
  let text: string;
  try {
    text = await read();
  } catch (error) {
    throw new UsageError(`cannot read scenario ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const { loadScenario } = await import('../../scenario/scenario.js');
  return loadScenario(text, file === '-' ? 'stdin' : file, vars);
}

async function stepPrinter(ctx: Context, format: string): Promise<(report: StepReport) => void> {
  if (format === 'json') return () => {};
  if (format === 'ndjson') return (report) => ctx.io.out(`${JSON.stringify({ type: 'step', ...report })}\n`);
  const { formatAmount } = await import('../../iso8583/amount.js');
  const { style } = ctx;
  return (report) => {
    if (ctx.globals.quiet) {
      if (report.result.transactionId) ctx.io.out(`${report.result.transactionId}\n`);
      return;
    }
    const r = report.result;
    // Server text and the scenario's names, with control characters made visible.
    const label = escapeControls(report.repeat > 1 ? `${report.id}#${report.iteration}` : report.id);
    const what = escapeControls(r.outcome === 'error'
      ? `${report.intent}: refused ${r.httpStatus ?? ''} ${r.error ?? ''}`.replace(/\s+/g, ' ')
      : r.summary ?? [
          `${r.mti} ${report.intent}`,
          r.request?.['4'] ? formatAmount(r.request['4'], r.request['49'] ?? '566') : '',
          `${r.responseCode} ${r.responseMessage}`,
          r.transactionStatus,
          r.stan ? `STAN ${r.stan}` : '',
        ].filter(Boolean).join('  '));
    const mark = report.passed ? style.ok('✓ pass') : style.error('✗ fail');
    const line = ctx.io.stdoutIsTTY ? `${mark}  ${style.bold(label.padEnd(16))} ${what}  ${style.dim(`${report.durationMs} ms`)}` : `${report.passed ? 'pass' : 'fail'}\t${label}\t${what}\t${report.durationMs}ms`;
    ctx.io.out(`${line}\n`);
    for (const failure of report.failures) ctx.io.out(`        ${style.error(escapeControls(failure))}\n`);
  };
}

async function printSummary(ctx: Context, format: string, summary: ScenarioSummary): Promise<void> {
  if (format === 'json') {
    // --jq / --template filter the summary through the renderer.
    if (ctx.globals.jq !== undefined || ctx.globals.template !== undefined) await ctx.output().record(summary);
    else ctx.io.out(`${JSON.stringify(summary, null, 2)}\n`);
    return;
  }
  const { steps: _steps, ...rest } = summary;
  if (format === 'ndjson') {
    ctx.io.out(`${JSON.stringify({ type: 'summary', ...rest })}\n`);
    return;
  }
  if (ctx.globals.quiet) return;
  const text = `${summary.passed} passed, ${summary.failed} failed (${summary.total} step${summary.total === 1 ? '' : 's'}, ${summary.durationMs} ms)`;
  ctx.io.out(`${summary.failed === 0 ? ctx.style.ok(text) : ctx.style.error(text)}\n`);
}
