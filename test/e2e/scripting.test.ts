// End to end: the scripting features against a sandbox process — --jq, --template, aliases,
// `tx tail` beside a loop of simulations, `tx summary` against a count made here, and the pager
// (only on a terminal: a pseudo-terminal under tmux, skipped when tmux is absent).
// Run `npm run build` first.
import { execa, execaSync } from 'execa';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVED_CODES } from '../../src/iso8583/codes.js';
import { BIN, cardctl, cleanEnv, startSandboxProcess, tempDir, type RunningSandbox, isolatedDirs } from '../helpers/cli.js';
import { createCardOverHttp } from '../sandbox/helpers.js';
import type { Transaction } from '../../src/api/schemas.js';
import type { Summary } from '../../src/commands/tx/summary-report.js';

let config: { path: string; remove(): void };
let sandbox: RunningSandbox;
let env: Record<string, string>;
const cards: string[] = [];

const run = (args: string[], extraEnv: Record<string, string> = {}) => cardctl(args, { configDir: config.path, env: { ...env, ...extraEnv } });
const lines = (text: string) => text.split('\n').filter((line) => line !== '');

const newCard = () => createCardOverHttp(sandbox.info);

/** Runs one simulation and returns its transaction id. */
async function simulate(card: string, amount: string, channel = 'pos'): Promise<string> {
  const result = await run(['simulate', 'authorization', '--card', card, '--amount', amount, '--channel', channel, '-o', 'json']);
  expect(result.exitCode, result.stderr).toBe(0);
  const id = JSON.parse(result.stdout).transactionId;
  expect(typeof id).toBe('string');
  return id;
}

beforeAll(async () => {
  config = tempDir('cardctl-e2e-scripting-');
  sandbox = await startSandboxProcess([], { configDir: config.path });
  env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
  for (let i = 0; i < 3; i++) cards.push(await newCard());
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  config?.remove();
});

describe('--jq', () => {
  it("cards list --jq '.[].id' prints what cards list -q prints", async () => {
    const quiet = await run(['cards', 'list', '-q']);
    const jq = await run(['cards', 'list', '--jq', '.[].id']);
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(jq.exitCode, jq.stderr).toBe(0);
    expect(lines(quiet.stdout).length).toBeGreaterThanOrEqual(3);
    expect(jq.stdout).toBe(quiet.stdout);
  });

  it('filters a single record and --all streams as one array; non-strings print as JSON', async () => {
    const one = await run(['cards', 'get', cards[0]!, '--jq', '{id, n: 1}']);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual({ id: cards[0], n: 1 });
    const count = await run(['cards', 'list', '--all', '--limit', '1', '--jq', 'length']);
    expect(count.exitCode, count.stderr).toBe(0);
    expect(count.stdout).toBe(`${cards.length}\n`);
  });

  it("a bad expression exits 2 with jq's message, before any output", async () => {
    const bad = await run(['cards', 'list', '--jq', '.[] | ']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/error: --jq: jq: error: syntax error/);
  });
});

describe('--template', () => {
  it('renders each record of a list, and a single record once', async () => {
    const json = JSON.parse((await run(['cards', 'list', '-o', 'json'])).stdout) as Array<{ id: string; status: string }>;
    const listed = await run(['cards', 'list', '--template', '{{.id}}\\t{{.status}}']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.stdout).toBe(json.map((card) => `${card.id}\t${card.status}\n`).join(''));

    const one = await run(['cards', 'get', cards[1]!, '--template', 'card {{.id}} is {{upper .status}} ({{pad .id 3}})']);
    expect(one.exitCode, one.stderr).toBe(0);
    const card = json.find((c) => c.id === cards[1])!;
    expect(one.stdout).toBe(`card ${card.id} is ${card.status.toUpperCase()} (${card.id})\n`);
  });

  it('a broken template exits 2', async () => {
    const bad = await run(['cards', 'list', '--template', '{{#if .id}}no end']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/error: --template: /);
  });
});

describe('aliases', () => {
  it('round-trip: set, list, use with $1 and extra arguments, delete', async () => {
    const set = await run(['alias', 'set', 'card', 'cards get $1']);
    expect(set.exitCode, set.stderr).toBe(0);
    const listed = await run(['alias', 'list', '-o', 'json']);
    expect(JSON.parse(listed.stdout)).toEqual([{ name: 'card', expansion: 'cards get $1' }]);

    // $1 is the card id; --jq .id was taken by no $N and is appended.
    const used = await run(['card', cards[2]!, '--jq', '.id']);
    expect(used.exitCode, used.stderr).toBe(0);
    expect(used.stdout).toBe(`${cards[2]}\n`);

    const missing = await run(['card']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/alias "card" needs 1 argument/);

    const removed = await run(['alias', 'delete', 'card']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect((await run(['alias', 'list', '-o', 'json'])).stdout).toBe('[]\n');
    expect((await run(['alias', 'delete', 'card'])).exitCode).toBe(4);
  });

  it('may not shadow a built-in command', async () => {
    for (const name of ['cards', 'tx', 'transactions', 'help', 'alias']) {
      const result = await run(['alias', 'set', name, 'tx list']);
      expect(result.exitCode, name).toBe(2);
      expect(result.stderr).toMatch(/built-in command/);
    }
    expect((await run(['alias', 'set', 'x', 'rm -rf /'])).exitCode).toBe(2);
  });
});

describe('tx tail', () => {
  it('prints each new transaction exactly once while simulations run, across pages; SIGINT exits 0', async () => {
    const since = new Date(Date.now() - 50).toISOString();
    // --limit 2: bursts bigger than a page must still come out whole.
    const child = execa('node', [BIN, 'tx', 'tail', '-o', 'ndjson', '--interval', '0.2', '--limit', '2', '--since', since], {
      env: cleanEnv({ ...isolatedDirs(config.path), ...env }), extendEnv: false, reject: false, buffer: false,
    });
    const seen: string[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => seen.push(JSON.parse(line).id));
    let stderr = '';
    child.stderr?.on('data', (chunk) => (stderr += chunk));

    const simulated: string[] = [];
    for (let round = 0; round < 4; round++) {
      // A burst of 5 at once (more than two pages of 2), then a pause of about one poll.
      simulated.push(...await Promise.all([0, 1, 2, 3, 4].map((i) => simulate(cards[i % cards.length]!, `${10 + round * 5 + i}.00`))));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const deadline = Date.now() + 20_000;
    while (seen.length < simulated.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    // A few more polls, so a duplicate would have time to show.
    await new Promise((resolve) => setTimeout(resolve, 800));
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode, stderr).toBe(0);
    expect(new Set(seen).size, 'no duplicates').toBe(seen.length);
    expect([...seen].sort()).toEqual([...simulated].sort());

    // The same set as the list since then.
    const listed = JSON.parse((await run(['tx', 'list', '--all', '--since', since, '-o', 'json'])).stdout) as Array<{ id: string }>;
    expect(listed.map((tx) => tx.id).sort()).toEqual([...simulated].sort());
  }, 90_000);

  it('a bad --interval is a usage error', async () => {
    expect((await run(['tx', 'tail', '--interval', '0'])).exitCode).toBe(2);
  });
});

describe('tx summary', () => {
  it('figures match a count of tx list --all -o json', async () => {
    for (const [i, channel] of ['pos', 'atm', 'web', 'pos'].entries()) await simulate(cards[i % cards.length]!, `${i + 1}.25`, channel);
    const listed: Transaction[] = JSON.parse((await run(['tx', 'list', '--all', '-o', 'json'])).stdout);
    const summary = await run(['tx', 'summary', '--since', '24h', '--by', 'channel', '-o', 'json']);
    expect(summary.exitCode, summary.stderr).toBe(0);
    const s: Summary = JSON.parse(summary.stdout);

    const approved = (tx: Transaction) => APPROVED_CODES.has(tx.responseCode);
    expect(s.total).toBe(listed.length);
    expect(s.approved).toBe(listed.filter(approved).length);
    expect(s.declined).toBe(listed.length - s.approved);
    expect(s.approvalRate).toBeCloseTo(s.approved / s.total, 3);

    const byChannel = new Map<string, number>();
    for (const tx of listed) byChannel.set(tx.transactionChannel.channelType, (byChannel.get(tx.transactionChannel.channelType) ?? 0) + 1);
    expect(Object.fromEntries(s.groups.map((g) => [g.key, g.count]))).toEqual(Object.fromEntries(byChannel));
    expect(byChannel.size).toBeGreaterThanOrEqual(3);

    const minor = new Map<string, bigint>();
    for (const tx of listed) minor.set(tx.amounts.currency, (minor.get(tx.amounts.currency) ?? 0n) + BigInt(tx.amounts.amount));
    expect(s.amounts.map((a) => [a.currency, a.minor])).toEqual([...minor].sort().map(([c, m]) => [c, m.toString()]));
    expect(s.amounts[0]).toMatchObject({ currency: '566', code: 'NGN' });
    expect(s.amounts[0].amount).toMatch(/^\d+\.\d{2}$/);

    const codes = new Map<string, number>();
    for (const tx of listed) codes.set(tx.responseCode, (codes.get(tx.responseCode) ?? 0) + 1);
    expect(Object.fromEntries(s.responseCodes.map((c) => [c.code, c.count]))).toEqual(Object.fromEntries(codes));
    for (const c of s.responseCodes) expect(c.meaning).toBeTruthy();

    const byHour = JSON.parse((await run(['tx', 'summary', '--by', 'hour', '--jq', '[.groups[].count] | add'])).stdout);
    expect(byHour).toBe(listed.length);

    const csv = await run(['tx', 'summary', '--by', 'responseCode', '-o', 'csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    expect(lines(csv.stdout)[0]).toBe('key,count,approved,declined,approvalRate,amounts');
    expect(lines(csv.stdout).length).toBe(codes.size + 1);
  }, 60_000);
});

const hasTmux = (() => {
  try {
    return execaSync('tmux', ['-V'], { reject: false }).exitCode === 0;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasTmux)('pager (pseudo-terminal under tmux)', () => {
  const socket = `cardctl-pager-${process.pid}`;
  let pager: string;
  let marker: string;
  const terminalEnv = () => {
    const e = cleanEnv({ ...isolatedDirs(config.path), ...env, TERM: 'xterm-256color', CARDCTL_PAGER: pager });
    delete e.CI;
    return e;
  };
  const tmux = (...args: string[]) => execa('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env: terminalEnv(), extendEnv: false, reject: false });

  beforeAll(() => {
    pager = join(config.path, 'fake-pager.sh');
    marker = join(config.path, 'paged.txt');
    // Marks that it ran, then shows its input framed, so the screen proves the table went through it.
    writeFileSync(pager, `#!/bin/sh\necho paged >> '${marker}'\necho '<<PAGER>>'\ncat\necho '<</PAGER>>'\n`);
    chmodSync(pager, 0o755);
  });

  afterAll(async () => {
    await tmux('kill-server');
  });

  async function inTerminal(name: string, command: string): Promise<string> {
    const started = await tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '50', `${command}; echo "EXIT=$?"; sleep 60`);
    expect(started.exitCode).toBe(0);
    const deadline = Date.now() + 20_000;
    let screen = '';
    while (Date.now() < deadline) {
      screen = (await tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', name)).stdout;
      if (/EXIT=\d+/.test(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no EXIT on screen:\n${screen}`);
  }

  it('a TTY table goes through $CARDCTL_PAGER; --no-pager, a pipe and JSON do not', async () => {
    const paged = await inTerminal('paged', `node ${BIN} cards list`);
    expect(paged).toMatch(/<<PAGER>>[\s\S]*ID[\s\S]*<\/PAGER>>[\s\S]*EXIT=0/);
    expect(paged).toContain(cards[0]!);
    expect(readFileSync(marker, 'utf8')).toBe('paged\n');

    const direct = await inTerminal('direct', `node ${BIN} cards list --no-pager`);
    expect(direct).toContain(cards[0]!);
    expect(direct).not.toContain('<<PAGER>>');
    const json = await inTerminal('json', `node ${BIN} cards list -o json`);
    expect(json).not.toContain('<<PAGER>>');
    const piped = await inTerminal('piped', `node ${BIN} cards list | cat`);
    expect(piped).toContain(cards[0]!);
    expect(piped).not.toContain('<<PAGER>>');
    expect(readFileSync(marker, 'utf8')).toBe('paged\n');

    // A pager that cannot start: the table is printed directly.
    const broken = await inTerminal('broken', `CARDCTL_PAGER=/nonexistent/pager node ${BIN} cards list`);
    expect(broken).toContain(cards[0]!);
    expect(broken).toContain('EXIT=0');
  }, 60_000);

  it('never when stdout is not a terminal', async () => {
    const result = await run(['cards', 'list'], { CARDCTL_PAGER: pager });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('<<PAGER>>');
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').not.toContain('paged\npaged');
  });
});
