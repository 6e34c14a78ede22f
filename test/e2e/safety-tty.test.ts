// Production guardrails as an operator meets them: the real binary in a pseudo-terminal under
// tmux, a production profile pointing at the sandbox, the last four digits typed at the prompt.
// Skipped when tmux is not installed. Run `npm run build` first.
import { execa, execaSync } from 'execa';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';

const hasTmux = (() => {
  try {
    return execaSync('tmux', ['-V'], { reject: false }).exitCode === 0;
  } catch {
    return false;
  }
})();

const socket = `cardctl-safety-${process.pid}`;
let sandbox: RunningSandbox;
let dir: { path: string; remove(): void };

function terminalEnv(): Record<string, string | undefined> {
  const env = cleanEnv({ CARDCTL_CONFIG_DIR: dir.path, CARDCTL_DATA_DIR: dir.path, CARDCTL_PROFILE: 'prod', TERM: 'xterm-256color' });
  delete env.CI;
  return env;
}

const tmux = (...args: string[]) => execa('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env: terminalEnv(), extendEnv: false, reject: false });
const screen = async (session: string) => (await tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', session)).stdout;

async function waitFor(session: string, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const started = Date.now();
  let last = '';
  while (Date.now() - started < timeoutMs) {
    last = await screen(session);
    if (pattern.test(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${pattern} on screen:\n${last}`);
}

async function type(session: string, keys: string): Promise<void> {
  await tmux('send-keys', '-t', session, '-l', keys);
  await tmux('send-keys', '-t', session, 'Enter');
}

const journal = () => {
  const file = join(dir.path, 'journal', 'journal.ndjson');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
};

describe.skipIf(!hasTmux)('production confirmation in a terminal (tmux)', () => {
  beforeAll(async () => {
    dir = tempDir('cardctl-e2e-safety-tty-');
    sandbox = await startSandboxProcess();
    const pem = ((await (await fetch(`${sandbox.info.baseUrl}/sandbox/pin-key`)).json()) as { publicKey: string }).publicKey;
    writeFileSync(join(dir.path, 'pin.pem'), pem);
    const login = await cardctl(['login', '-p', 'prod', '--base-url', sandbox.info.baseUrl, '--token-stdin', '--env', 'production', '--pin-key', join(dir.path, 'pin.pem')], { configDir: dir.path, input: sandbox.info.token });
    expect(login.exitCode, login.stderr).toBe(0);
  }, 30_000);

  afterAll(async () => {
    await tmux('kill-server');
    await sandbox?.stop();
    dir?.remove();
  });

  it('deactivate shows the banner, refuses a wrong last four and goes ahead with the right one', async () => {
    const created = await cardctl(['-p', 'prod', 'cards', 'create', '--program', sandbox.info.cardProgramId, '--first-name', 'Ada', '--last-name', 'Obi',
      '--email', 'ada@example.com', '--phone', '+2348012345678', '--birth-date', '1990-05-17', '--account-number', '0123456789', '--account-type', 'savings',
      '--pin-stdin', '-o', 'json'], { configDir: dir.path, input: '4821\n' });
    expect(created.exitCode, created.stderr).toBe(0);
    const card = JSON.parse(created.stdout) as { id: string; lastFour: string };

    const start = (session: string) => tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '40',
      `node ${BIN} cards deactivate ${card.id} --reason "reported stolen"; echo "EXIT=$?"; sleep 60`);

    expect((await start('wrong')).exitCode).toBe(0);
    const asked = await waitFor('wrong', /type the card's last four digits/);
    expect(asked).toContain('PRODUCTION');
    expect(asked).toContain(`profile "prod" → ${sandbox.info.baseUrl}`);
    await type('wrong', card.lastFour === '0000' ? '1111' : '0000');
    const refused = await waitFor('wrong', /EXIT=\d+/);
    expect(refused).toContain('EXIT=2');
    expect(refused).toContain('did not match');
    expect(journal().filter((l) => l.path.endsWith('/deactivate'))).toEqual([]);

    expect((await start('right')).exitCode).toBe(0);
    await waitFor('right', /type the card's last four digits/);
    await type('right', card.lastFour);
    const done = await waitFor('right', /EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    expect(done).toMatch(/suspended/);
    expect(journal().filter((l) => l.path.endsWith('/deactivate'))).toEqual([
      expect.objectContaining({ env: 'production', profile: 'prod', reason: 'reported stolen', status: null, phase: 'intent' }),
      expect.objectContaining({ env: 'production', profile: 'prod', reason: 'reported stolen', status: 200 }),
    ]);
  }, 60_000);

  // The note is styled after its text is made safe: the terminal gets the style, not `\x1b[2m` as text.
  it('tx tail styles its note on a terminal', async () => {
    expect((await tmux('new-session', '-d', '-s', 'tail', '-x', '160', '-y', '40', `node ${BIN} -p prod tx tail --interval 60`)).exitCode).toBe(0);
    try {
      const shown = await waitFor('tail', /following new transactions; Ctrl-C to stop/);
      expect(shown).not.toContain('\\x1b');
    } finally {
      await tmux('kill-session', '-t', 'tail');
    }
  }, 30_000);
});
