import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'run',
  summary: 'run a scenario file of simulations with expectations',
  description: 'Runs the steps of a YAML or JSON scenario in order; later steps may refer to earlier results\n({{steps.auth.transactionId}}). Prints a pass/fail line per step; exits 5 if any expectation failed.',
  arguments: [{ syntax: '<scenario-file>', description: 'YAML or JSON scenario' }],
  options: (c) => c.option('--set <key=value...>', 'scenario variable, e.g. --set card=6650c0ffee (repeatable)'),
  examples: ['cardctl simulate run examples/scenarios/auth-then-reversal.yaml', 'cardctl simulate run scenario.yaml -o json'],
  run: notImplemented('simulate run'),
});
