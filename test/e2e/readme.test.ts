// Every ```sh runnable block of README.md, run with bash (errexit, pipefail) against a sandbox
// started for this test, with a `cardctl` on PATH that is the built bin/cardctl.js and a
// throwaway config and data directory. Blocks run in order in one working directory.
import { execa } from 'execa';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The runnable blocks, with the line each starts on (for failure messages). */
function runnableBlocks(markdown: string): Array<{ line: number; code: string }> {
  const blocks: Array<{ line: number; code: string }> = [];
  const pattern = /^```sh runnable\n([\s\S]*?)^```$/gm;
  for (const match of markdown.matchAll(pattern)) {
    blocks.push({ line: markdown.slice(0, match.index).split('\n').length, code: match[1]! });
  }
  return blocks;
}

const blocks = runnableBlocks(README);

let dir: ReturnType<typeof tempDir>;
let sandbox: RunningSandbox;
let env: Record<string, string | undefined>;
let work: string;

beforeAll(async () => {
  dir = tempDir('cardctl-readme-');
  const bin = join(dir.path, 'bin');
  work = join(dir.path, 'work');
  mkdirSync(bin);
  mkdirSync(work);
  writeFileSync(join(bin, 'cardctl'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(bin, 'cardctl'), 0o755);
  const configDir = join(dir.path, 'config');
  env = cleanEnv({
    CARDCTL_CONFIG_DIR: configDir,
    CARDCTL_DATA_DIR: join(dir.path, 'data'),
    PATH: `${bin}:${process.env.PATH}`,
  });
  // `sandbox serve --profile sandbox`, as the README says: the profile becomes the current one.
  sandbox = await startSandboxProcess(['--profile', 'sandbox', '--quiet-log'], { configDir });
});

afterAll(async () => {
  await sandbox?.stop();
  dir?.remove();
});

describe('README.md', () => {
  it('has runnable blocks for the main sections', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
  });

  it('documents every profile key `profile set` accepts', async () => {
    const { SETTABLE_PROFILE_KEYS } = await import('../../src/config/store.js');
    const section = README.slice(README.indexOf('## Configuration'), README.indexOf('## Security'));
    for (const key of Object.keys(SETTABLE_PROFILE_KEYS)) expect(section, key).toContain(`\`${key}\``);
  });

  it('shows every top-level command at least once', async () => {
    const { commandTree } = await import('../../src/commands/index.js');
    for (const command of commandTree) expect(README, command.name).toMatch(new RegExp(`cardctl (-p \\S+ )?${command.name}\\b`));
  });

  it.each(blocks.map((b) => [b.line, b] as const))('the block at line %i runs (exit 0)', async (_line, block) => {
    const child = execa('bash', ['-euo', 'pipefail', '-c', block.code], {
      cwd: work,
      env,
      extendEnv: false,
      reject: false,
      timeout: 90_000,
      detached: true,
      stdin: 'ignore',
    });
    const result = await child;
    // Anything the block left in the background goes with it.
    try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* already gone */ }
    expect(result.exitCode, `README.md line ${block.line}:\n${block.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
  }, 120_000);
});
