// End to end: what a hostile or careless user does to the output — --jq filters that never end,
// readers that go away, Ctrl-C. Run `npm run build` first.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';

let config: { path: string; remove(): void };
let sandbox: RunningSandbox;
let env: Record<string, string>;

const run = (args: string[], input?: string) => cardctl(args, { configDir: config.path, env, input });

/** cardctl with stdout read as a stream (not buffered by execa). */
function spawnCardctl(args: string[]) {
  return execa('node', [BIN, ...args], {
    env: cleanEnv({ CARDCTL_CONFIG_DIR: config.path, CARDCTL_DATA_DIR: config.path, ...env }),
    extendEnv: false,
    reject: false,
    buffer: { stdout: false, stderr: true },
    stdin: 'ignore',
  });
}

/** Resolves with what came on `stream` up to and including the first newline. */
function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) {
        stream.off('data', onData);
        resolve(text.slice(0, text.indexOf('\n') + 1));
      }
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`ended before a line: ${JSON.stringify(text)}`)));
  });
}

beforeAll(async () => {
  config = tempDir('cardctl-e2e-output-');
  sandbox = await startSandboxProcess([], { configDir: config.path });
  env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  config?.remove();
});

describe('--jq that never ends', () => {
  it("a reader that goes away (`| head -1`) ends cardctl at once with exit 0", async () => {
    const child = spawnCardctl(['cards', 'list', '--jq', 'repeat(1)']);
    expect(await firstLine(child.stdout!)).toBe('1\n');
    // What head does after its first line: close its end of the pipe.
    child.stdout!.destroy();
    const result = await child;
    expect(result.exitCode, result.stderr as string).toBe(0);
    expect(result.stderr).toBe('');
  }, 30_000);

  it('Ctrl-C while it streams exits 130 with one line on stderr', async () => {
    const child = spawnCardctl(['cards', 'list', '--jq', 'repeat(1)']);
    expect(await firstLine(child.stdout!)).toBe('1\n');
    child.stdout!.resume();
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toBe('error: interrupted');
  }, 30_000);

  it('Ctrl-C while nobody reads the output (the filter is held back) exits 130 too', async () => {
    const child = spawnCardctl(['cards', 'list', '--jq', 'repeat("x" * 1000)']);
    expect(await firstLine(child.stdout!)).toBe(`${'x'.repeat(1000)}\n`);
    child.stdout!.pause();
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
  }, 30_000);

  it('an error in the filter is one line and exit 2', async () => {
    for (const expression of ['.[', 'error("boom")', '.[0] | keys']) {
      const result = await run(['cards', 'list', '--jq', expression]);
      expect(result.exitCode, expression).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^error: --jq: jq: /);
      expect(lines.slice(1).every((line) => line.startsWith('hint: '))).toBe(true);
    }
  });
});
