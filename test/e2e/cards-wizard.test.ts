// The `cards create` wizard driven as a person would: the real binary in a pseudo-terminal under
// tmux, keys sent one prompt at a time, the screen read back. Skipped when tmux is not installed.
// Run `npm run build` first.
import { execa, execaSync } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, startSandboxProcess, tempDir, type RunningSandbox, isolatedDirs } from '../helpers/cli.js';

const hasTmux = (() => {
  try {
    return execaSync('tmux', ['-V'], { reject: false }).exitCode === 0;
  } catch {
    return false;
  }
})();

const socket = `cardctl-wizard-${process.pid}`;
const session = 'wizard';
let sandbox: RunningSandbox;
let config: { path: string; remove(): void };

function terminalEnv(): Record<string, string | undefined> {
  // A person's terminal: no CI, no --no-input; the profile comes from the environment.
  const env = cleanEnv({ ...isolatedDirs(config.path), CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token, TERM: 'xterm-256color' });
  delete env.CI;
  return env;
}

const tmux = (...args: string[]) => execa('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env: terminalEnv(), extendEnv: false, reject: false });

async function screen(): Promise<string> {
  return (await tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', session)).stdout;
}

/** Waits until the screen matches, returning it. */
async function waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const started = Date.now();
  let last = '';
  while (Date.now() - started < timeoutMs) {
    last = await screen();
    if (pattern.test(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${pattern} on screen:\n${last}`);
}

async function answer(prompt: RegExp, keys: string): Promise<string> {
  const seen = await waitFor(prompt);
  if (keys) await tmux('send-keys', '-t', session, '-l', keys);
  await tmux('send-keys', '-t', session, 'Enter');
  return seen;
}

/** Lines after the last occurrence of `marker`. */
function after(text: string, marker: string): string {
  const index = text.lastIndexOf(marker);
  return index < 0 ? '' : text.slice(index);
}

describe.skipIf(!hasTmux)('cards create wizard in a terminal (tmux)', () => {
  beforeAll(async () => {
    config = tempDir('cardctl-e2e-wizard-');
    sandbox = await startSandboxProcess();
  }, 30_000);

  afterAll(async () => {
    await tmux('kill-server');
    await sandbox?.stop();
    config?.remove();
  });

  it('asks for everything missing, re-asks a mismatched PIN confirmation, and issues the card', async () => {
    const started = await tmux('new-session', '-d', '-s', session, '-x', '140', '-y', '60', `node ${BIN} cards create; echo "EXIT=$?"; sleep 120`);
    expect(started.exitCode).toBe(0);

    const programScreen = await answer(/Card program:/, '');
    expect(programScreen).toContain('Sandbox Virtual Debit');
    await answer(/First name:/, 'Ada');
    await answer(/Last name:/, 'Obi');
    // A wrong email is refused on the spot; the rest of it is typed after.
    await answer(/Email:/, 'ada@');
    await waitFor(/invalid --email "ada@"/);
    await tmux('send-keys', '-t', session, '-l', 'example.com');
    await tmux('send-keys', '-t', session, 'Enter');
    await answer(/Phone \(international/, '+2348012345678');
    const nameScreen = await answer(/Name on the card:/, '');
    expect(after(nameScreen, 'Name on the card')).toContain('ADA OBI');
    await answer(/Account number:/, '0123456789');
    await answer(/Account type/, '');
    await answer(/Bank code:/, '');
    await answer(/Currency \(ISO 4217\):/, '');
    const today = new Date().toISOString().slice(0, 10);
    const fromScreen = await answer(/Valid from/, '');
    expect(after(fromScreen, 'Valid from')).toContain(today);
    await answer(/Expires \(YYYY-MM-DD\):/, '');

    await answer(/Default PIN \(4-12 digits\):/, '4821');
    await answer(/Confirm default PIN:/, '4812');
    const mismatch = await waitFor(/do not match[\s\S]*Default PIN \(4-12 digits\):\s*$/m);
    expect(mismatch).toContain('the two entries do not match; enter the default PIN again');
    await answer(/Default PIN \(4-12 digits\):\s*$/m, '4821');
    await answer(/Confirm default PIN:\s*$/m, '4821');

    const summary = await answer(/Create this card\?/, '');
    expect(summary).toMatch(/cardholder\s+Ada Obi <ada@example.com>/);
    expect(summary).toMatch(/account\s+0123456789 \(savings, 566, bank 999\)/);

    const done = await waitFor(/EXIT=\d+/);
    if (process.env.SHOW_SCREEN) console.log(done);
    expect(done).toContain('EXIT=0');
    expect(done).toMatch(/reference: cardctl-\d{8}-[0-9a-f]{8}, reuse it with --reference to retry safely/);
    expect(done).toMatch(/✓ Card \d{6}\*+\d{4} \(ADA OBI\) created/);
    // Hidden input: no PIN on the screen at any point.
    for (const pin of ['4821', '4812']) expect(done).not.toContain(pin);

    // The card exists, and its PIN is the one typed twice (the sandbox checks the old PIN).
    const env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
    const cards = JSON.parse((await cardctl(['cards', 'list', '--search', 'ada@example.com', '--json'], { configDir: config.path, env })).stdout);
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ embossingName: 'ADA OBI', customer: { emailAddress: 'ada@example.com' }, account: { number: '0123456789', type: 'savings', currency: '566' } });
    const change = await cardctl(['cards', 'pin', 'change', cards[0].id, '--pin-stdin', '-q'], { configDir: config.path, env, input: '4821\n7305\n' });
    expect(change.exitCode).toBe(0);
  }, 60_000);
});
