// `cardctl demo`: starts an in-memory sandbox in this process and runs the main job against it
// as real cardctl commands (through the CLI's own entry, in-process), printing each command and its result.
// Nothing of the user's is touched: the commands run with a throwaway config and data directory
// that point at the sandbox, and both are removed at the end.
import { Renderer, type Column } from '../output/renderer.js';
import { defineCommand } from '../contract/command.js';
import type { Context, Env } from '../contract/context.js';
import { CliError, ExitCode, InterruptedError, type ExitCodeValue } from '../core/errors.js';
import { bufferedIO } from '../core/buffered-io.js';
import { ConfigStore } from '../config/store.js';
import { saveSandboxProfile } from '../config/sandbox-profile.js';

type Json = { [key: string]: unknown };

interface Step {
  title: string;
  args: string[];
  /** Piped to stdin (shown as `printf … |`). */
  stdin?: string;
  /** How the result is shown on a terminal. */
  show: 'card' | 'card-change' | 'cards' | 'simulation' | 'transactions';
}

/** One line of `cardctl demo --json`. */
interface StepResult {
  step: number;
  title: string;
  command: string;
  ok: boolean;
  exitCode: number;
  data?: unknown;
  error?: unknown;
}

const DEMO_PIN = '4821';

export default defineCommand({
  name: 'demo',
  mcp: 'never',
  summary: 'walk through the main job against an in-memory sandbox',
  description: `Start an in-memory sandbox in this process and run the main job against it with real cardctl
commands: issue a card (its PIN encrypted on this machine), list cards, renew, deactivate and
activate it, simulate an authorization, a financial transaction and a reversal, list the
transactions. Each step prints the command it ran and its result.

Nothing is written to your profiles or history; the sandbox is gone when the demo ends.
With --json (or any -o other than table), prints one JSON object per step:
  {"step","title","command","ok","exitCode","data"}`,
  examples: ['cardctl demo', 'cardctl demo --json | jq -c "{command, ok}"'],
  async run(ctx, { cli }) {
    const machine = ctx.settings().output !== 'table';
    const [{ startSandbox }, fs, os, path] = await Promise.all([
      import('../sandbox/index.js'),
      import('node:fs'),
      import('node:os'),
      import('node:path'),
    ]);
    const sandbox = await startSandbox({ memory: true, port: 0 });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cardctl-demo-'));
    try {
      const env = demoEnv(ctx.env, home);
      // The demo's own throwaway profile, written like any other (0600 in a 0700 directory).
      await saveSandboxProfile(new ConfigStore(env), 'demo', sandbox);
      const say = (text: string) => { if (!machine) ctx.io.out(text); };
      const bold = (text: string) => ctx.style.bold(text);

      say(`${bold('cardctl demo')}: an in-memory sandbox is running at ${sandbox.baseUrl}.\n`);
      say('Each step below is a real cardctl command against it, followed by what it printed.\n');

      let number = 0;
      const run = async (step: Step): Promise<Json | Json[]> => {
        number += 1;
        const command = displayCommand(step);
        say(`\n${bold(`${number}. ${step.title}`)}\n${ctx.style.dim('$')} ${command}\n`);
        const captured = bufferedIO({ stdin: step.stdin });
        const exitCode = await cli.run([...step.args, '-o', 'json'], { io: captured, env, signal: ctx.signal });
        const result: StepResult = { step: number, title: step.title, command, ok: exitCode === 0, exitCode };
        if (exitCode !== 0) {
          result.error = lastJsonLine(captured.stderrText()) ?? captured.stderrText().trim();
          if (machine) ctx.io.out(`${JSON.stringify(result)}\n`);
          if (exitCode === ExitCode.Interrupted) throw new InterruptedError();
          // The step ran with -o json: its error is also a JSON line, which people need not see.
          if (!machine) ctx.io.err(captured.stderrText().split('\n').filter((line) => !line.startsWith('{"error"')).join('\n'));
          throw new CliError(exitCode as ExitCodeValue, `demo step ${number} (${step.args.slice(0, 2).join(' ')}) failed with exit code ${exitCode}`, {
            code: 'DEMO_STEP_FAILED',
            hint: 'this is a bug in cardctl or its sandbox; rerun with --debug and report it with the output',
          });
        }
        const data = JSON.parse(captured.stdoutText()) as Json | Json[];
        if (machine) {
          ctx.io.out(`${JSON.stringify({ ...result, data })}\n`);
        } else {
          await show(ctx, step.show, data, successLines(captured.stderrText()));
        }
        return data;
      };

      const card = await run({
        title: 'Issue a card; its PIN is read from stdin and encrypted on this machine',
        stdin: `${DEMO_PIN}\n`,
        args: [
          'cards', 'create', '--program', sandbox.cardProgramId, '--embossing-name', 'ADA OBI',
          '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada.obi@example.com', '--phone', '+2348012345678',
          '--account-number', '0123456789', '--account-type', 'savings', '--pin-stdin',
        ],
        show: 'card',
      }) as Json;
      const cardId = String(card.id);
      await run({ title: 'List the cards', args: ['cards', 'list'], show: 'cards' });
      const renewTo = `${ctx.clock.now().getUTCFullYear() + 3}12`;
      await run({ title: 'Renew it with a new expiry', args: ['cards', 'renew', cardId, '--expiration', renewTo], show: 'card-change' });
      await run({ title: 'Deactivate it (--yes: no confirmation prompt)', args: ['cards', 'deactivate', cardId, '--yes'], show: 'card-change' });
      await run({ title: 'Activate it again', args: ['cards', 'activate', cardId], show: 'card-change' });
      const authorization = await run({
        title: 'Simulate an authorization (0100) at a point of sale',
        args: ['simulate', 'authorization', '--card', cardId, '--amount', '1500.00', '--channel', 'pos', '--method', 'chip'],
        show: 'simulation',
      }) as Json;
      await run({
        title: 'Simulate a financial transaction (0200): a cash withdrawal at an ATM',
        args: ['simulate', 'financial', '--card', cardId, '--amount', '2500.00', '--flow', 'cash_withdrawal', '--channel', 'atm', '--method', 'chip'],
        show: 'simulation',
      });
      await run({
        title: 'Reverse the authorization (0420)',
        args: ['simulate', 'reversal', '--original-tx', String(authorization.transactionId), '--amount', '1500.00'],
        show: 'simulation',
      });
      await run({ title: 'List the transactions', args: ['tx', 'list'], show: 'transactions' });

      say(`\n${bold('Done.')} That sandbox is gone now. Keep one running to try these yourself:\n`);
      say('  cardctl sandbox serve --profile sandbox     # in one terminal: stores a "sandbox" profile\n');
      say('  cardctl -p sandbox cards list               # in another\n');
      say('More: cardctl --help, cardctl help exit-codes, cardctl completion bash|zsh|fish\n');
    } finally {
      await sandbox.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  },
});

/** The user's environment minus everything that would point the commands elsewhere. */
function demoEnv(base: Env, home: string): Env {
  const env: Env = {};
  for (const [key, value] of Object.entries(base)) {
    if (key.startsWith('CARDCTL_') || /_proxy$/i.test(key)) continue;
    env[key] = value;
  }
  return {
    ...env,
    CARDCTL_CONFIG_DIR: home,
    CARDCTL_DATA_DIR: home,
    CARDCTL_PROFILE: 'demo',
    CI: '1',
  };
}

/** The command as a person would type it. */
function displayCommand(step: Step): string {
  const command = ['cardctl', ...step.args].map(shellQuote).join(' ');
  if (step.stdin === undefined) return command;
  return `printf ${shellQuote(step.stdin.replace(/\n/g, '\\n'))} | ${command}`;
}

function shellQuote(word: string): string {
  // Inside single quotes only a quote needs care: end the quoting, an escaped quote, quote again.
  return /^[A-Za-z0-9_./:=@+,%-]+$/.test(word) ? word : `'${word.split("'").join("'\\''")}'`;
}

/** The ✓ lines a command wrote to stderr (its own summary of what happened). */
function successLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('✓'));
}

function lastJsonLine(text: string): unknown {
  const line = text.trim().split('\n').reverse().find((l) => l.startsWith('{'));
  if (!line) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Shows a step's result with the column sets the command itself uses. */
async function show(ctx: Context, kind: Step['show'], data: Json | Json[], success: string[]): Promise<void> {
  // The walkthrough is one stream of text: no pager for its tables.
  const output = new Renderer(ctx.io, ctx.style, { ...ctx.output().settings, pager: undefined });
  switch (kind) {
    case 'card': {
      const { cardRows } = await import('../output/columns/cards.js');
      await output.record(data, { rows: cardRows as Column[] });
      break;
    }
    case 'card-change': {
      // The whole card was shown once; after that, what changed.
      const { cardRows } = await import('../output/columns/cards.js');
      const rows = (cardRows as Column[]).filter((row) => ['id', 'status', 'expiry', 'seqNumber'].includes(row.path));
      await output.record(data, { rows });
      break;
    }
    case 'cards': {
      const { cardColumns } = await import('../output/columns/cards.js');
      await output.list(data as Json[], cardColumns as Column[]);
      break;
    }
    case 'simulation': {
      const { simulateRows } = await import('../output/columns/transactions.js');
      await output.record(data, { rows: simulateRows as Column[], idPath: 'transactionId' });
      break;
    }
    case 'transactions': {
      const { transactionColumns } = await import('../output/columns/transactions.js');
      await output.list(data as Json[], transactionColumns as Column[]);
      break;
    }
  }
  for (const line of success) ctx.io.out(`${ctx.style.ok('✓')}${line.slice(1)}\n`);
}
