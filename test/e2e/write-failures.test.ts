// Writes that fail, end to end: stdout on a full device (/dev/full) is one error line and exit 2,
// never a stack; a reader that goes away (`| head -c1`) ends the run quietly with exit 0.
// Run `npm run build` first.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { BIN, cleanEnv, isolatedDirs, tempDir } from '../helpers/cli.js';

let sandbox: RunningSandbox;
const dir = tempDir('cardctl-e2e-writes-');

/** `cardctl …` through sh, its stdout redirected or piped as `tail` says. */
function shell(args: string[], tail: string) {
  const words = args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  return execa('sh', ['-c', `node '${BIN}' ${words} ${tail}`], {
    env: cleanEnv({ ...isolatedDirs(dir.path), CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token }),
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, memory: true });
}, 30_000);

afterAll(async () => {
  await sandbox?.close();
  dir.remove();
});

describe('stdout on a full device', () => {
  const commands: Array<[string, string[]]> = [
    ['a record list as JSON', ['api', 'GET', '/sandbox/card-programs', '-o', 'json']],
    ['a record list as NDJSON', ['api', 'GET', '/sandbox/card-programs', '-o', 'ndjson']],
    ['a table', ['api', 'GET', '/sandbox/pin-key']],
    ['a help topic', ['help', 'exit-codes']],
    ['--version', ['--version']],
    ['a --help page', ['cards', 'list', '--help']],
  ];

  it.each(commands)('%s: one error line, exit 2, no stack', async (_name, args) => {
    const result = await shell(args, '> /dev/full');
    expect(result.exitCode, result.stderr).toBe(2);
    // With -o json the error is also one JSON object, as for every error.
    const [line, ...json] = result.stderr.split('\n');
    expect(line).toBe('error: cannot write output: no space left on the device (ENOSPC)');
    expect(json.map((text) => JSON.parse(text).error.code)).toEqual(args.includes('json') ? ['OUTPUT'] : []);
  });
});

describe('a reader that goes away', () => {
  it('`| head -c1` ends the run quietly with exit 0', async () => {
    const result = await execa('bash', ['-c', `node '${BIN}' api GET /sandbox/card-programs -o json | head -c1; echo " \${PIPESTATUS[0]}"`], {
      env: cleanEnv({ ...isolatedDirs(dir.path), CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token }),
      extendEnv: false,
      reject: false,
    });
    expect(result.stdout).toBe('[ 0');
    expect(result.stderr).toBe('');
  });
});
