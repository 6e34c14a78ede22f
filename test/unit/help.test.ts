// Help topics, `help <command>`, typo hints and `--version --verbose`, through main() in-process.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { bufferedIO } from '../../src/core/buffered-io.js';
import { fitTopic } from '../../src/help/fit.js';
import { HELP_TOPICS } from '../../src/help/topics.js';
import { testIO } from '../helpers/context.js';

async function run(argv: string[]) {
  const io = testIO();
  const code = await main(argv, { io, env: {} });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('help topics', () => {
  it.each(HELP_TOPICS.map((t) => [t.name, t] as const))('`cardctl help %s` prints the topic, fitted to 80 columns when piped', async (name, topic) => {
    const result = await run(['help', name]);
    expect(result).toEqual({ code: 0, stdout: fitTopic(topic.text, 80), stderr: '' });
  });

  it.each(HELP_TOPICS.map((t) => [t.name, t] as const))('README.md carries topic %s verbatim (node scripts/readme-topics.mjs)', (name, topic) => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`<!-- topic:${name} -->\n${topic.text}<!-- /topic -->`);
  });

  it('--concurrency says the default of its verb: the pipelined activate and deactivate their own', async () => {
    const { DEFAULT_CONCURRENCY, PIPELINED_CONCURRENCY } = await import('../../src/bulk/defaults.js');
    expect(PIPELINED_CONCURRENCY).not.toBe(DEFAULT_CONCURRENCY);
    for (const verb of ['activate', 'deactivate']) expect((await run(['cards', verb, '--help'])).stdout).toContain(`requests in flight (default ${PIPELINED_CONCURRENCY})`);
    for (const verb of ['renew', 'create']) expect((await run(['cards', verb, '--help'])).stdout).toContain(`requests in flight (default ${DEFAULT_CONCURRENCY})`);
    expect((await run(['import', '--help'])).stdout).toContain(`requests in flight (default ${DEFAULT_CONCURRENCY})`);
  });

  it('the exit-code topic lists every exit code of the contract', async () => {
    const { ExitCode } = await import('../../src/core/errors.js');
    const text = HELP_TOPICS.find((t) => t.name === 'exit-codes')!.text;
    for (const code of Object.values(ExitCode)) expect(text).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });

  it('the environment topic names every CARDCTL_ variable the code reads', () => {
    const text = HELP_TOPICS.find((t) => t.name === 'environment')!.text;
    for (const name of ['CARDCTL_PROFILE', 'CARDCTL_BASE_URL', 'CARDCTL_TOKEN', 'CARDCTL_API_KEY', 'CARDCTL_OUTPUT', 'CARDCTL_DEBUG', 'CARDCTL_CONFIG_DIR', 'CARDCTL_DATA_DIR', 'NO_COLOR', 'FORCE_COLOR', 'CI', 'NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY']) {
      expect(text).toContain(name);
    }
  });

  it.runIf(process.platform === 'linux')('the files topic names the paths the code uses (Linux)', async () => {
    const { homedir } = await import('node:os');
    const { join } = await import('node:path');
    const { configDir, dataDir } = await import('../../src/config/paths.js');
    const { Journal } = await import('../../src/audit/journal.js');
    const { ConfigStore } = await import('../../src/config/store.js');
    const text = HELP_TOPICS.find((t) => t.name === 'files')!.text;
    const home = (path: string) => `\`${path.replace(homedir(), '~')}\``;
    expect(text).toContain(home(new ConfigStore({}).file));
    expect(text).toContain(home(join(dataDir({}), 'sandbox.db')));
    expect(text).toContain(home(new Journal({}).file));
    expect(configDir({})).toBe(join(homedir(), '.config', 'cardctl'));
  });

  it('the scenario in the scenarios topic is a valid scenario file', async () => {
    const { loadScenario } = await import('../../src/scenario/scenario.js');
    const text = HELP_TOPICS.find((t) => t.name === 'scenarios')!.text;
    const yaml = /\n\n((?: {4}.*\n)+)/.exec(text.slice(text.indexOf('    name:') - 2))![1]!.replace(/^ {4}/gm, '');
    const scenario = await loadScenario(yaml, 'topic.yaml', { card: '6650c0ffee' });
    expect(scenario.steps.map((step) => step.input.intent)).toEqual(['authorization', 'reversal']);
  });

  it('`cardctl help topics` lists them', async () => {
    const result = await run(['help', 'topics']);
    expect(result.code).toBe(0);
    for (const topic of HELP_TOPICS) expect(result.stdout).toContain(topic.name);
  });

  it('`cardctl --help` names every topic', async () => {
    const result = await run(['--help']);
    for (const topic of HELP_TOPICS) expect(result.stdout).toContain(topic.name);
    // The list under "Learn more" is every topic, in order.
    expect(result.stdout).toContain(`(${HELP_TOPICS.map((t) => t.name).join(', ')})`);
  });

  it('`cardctl help cards` is still commander help for the command', async () => {
    const result = await run(['help', 'cards']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: cardctl cards');
  });

  it('`cardctl help tx` works through the alias too', async () => {
    expect((await run(['help', 'transactions'])).stdout).toContain('Usage: cardctl tx');
  });

  it('an unknown name is a usage error with a suggestion', async () => {
    const result = await run(['help', 'exit-code']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: unknown command or help topic 'exit-code'\nhint: did you mean `cardctl help exit-codes`?\n");
  });
});

describe('typo suggestions', () => {
  it('unknown command', async () => {
    const result = await run(['crads', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: unknown command 'crads'\nhint: did you mean `cards`?\n");
  });

  it('unknown subcommand with two close names', async () => {
    const result = await run(['cards', 'lst']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: unknown command 'lst'\nhint: did you mean `list` or `ls`?\n");
  });

  it('unknown option', async () => {
    const result = await run(['--jsno', 'cards', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: unknown option '--jsno'\nhint: did you mean `--json`?\n");
  });
});

describe('commander errors name the input and the command', () => {
  it.each([
    [['tx', 'list', '--status', 'done'], 'invalid --status "done": expected one of pending, completed, failed, reversed', 'see `cardctl tx list --help`'],
    [['-o', 'yaml', 'cards', 'list'], 'invalid --output "yaml": expected one of table, json, ndjson, csv, raw', 'see `cardctl cards list --help`'],
    [['cards', 'list', '--limit'], '--limit needs a value', 'give it as `--limit <n>`; see `cardctl cards list --help`'],
    [['-p', 'x', 'cards', 'get'], "missing required argument 'card-id'", 'usage: cardctl cards get [options] <card-id>; see `cardctl cards get --help`'],
    [['cards', 'frobnicate'], "unknown command 'frobnicate'", 'see `cardctl cards --help` for its commands'],
    [['cards', 'list', '--bogus'], "unknown option '--bogus'", 'see `cardctl cards list --help` for its options'],
  ])('%j', async (argv, message, hint) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: ${message}\nhint: ${hint}\n`);
  });
});

describe('--version', () => {
  it('alone prints only the version', async () => {
    const result = await run(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
  });

  it.each([[['--version', '--verbose']], [['-v', '-V']]])('%j adds Node and the platform', async (argv) => {
    const result = await run(argv);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`cardctl ${(await run(['--version'])).stdout.trim()}\nnode ${process.version}\nplatform ${process.platform}-${process.arch}\n`);
  });
});

describe('help width', () => {
  it('wraps help to the io\'s terminal width, not the test process\'s', async () => {
    const help = async (io: ReturnType<typeof bufferedIO>) => {
      expect(await main(['--help'], { io, env: {}, signal: new AbortController().signal })).toBe(0);
      return io.stdoutText();
    };
    const wide = await help(bufferedIO({ tty: true, columns: 160 }));
    const piped = await help(bufferedIO({ tty: false }));
    expect(Math.max(...piped.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80 + 40);
    expect(wide.split('\n').length).toBeLessThan(piped.split('\n').length);
  });
});
