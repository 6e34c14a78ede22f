// The disclosure rule end to end (the built binary against `sandbox serve --profile sandbox`): a
// card's program carries its webhook secret, which `cards list` and `cards get` never print in any
// format unless the person asks with --show-secrets, and which the MCP tool `cards_list` never
// returns; a bulk run's row problems show bidi and zero-width characters escaped. Run `npm run build` first.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT_FORMATS } from '../../src/core/output-format.js';
import { REDACTED } from '../../src/core/redact.js';
import { BIN, cardctl, cleanEnv, isolatedDirs, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { createCardOverHttp } from '../sandbox/helpers.js';

let config: { path: string; remove(): void };
let sandbox: RunningSandbox;
let cardId: string;
/** The seeded program's webhook secret, as --show-secrets prints it. */
let secret: string;

const run = (args: string[]) => cardctl(['--profile', 'sandbox', ...args], { configDir: config.path });

beforeAll(async () => {
  config = tempDir();
  sandbox = await startSandboxProcess(['--profile', 'sandbox'], { configDir: config.path });
  cardId = await createCardOverHttp(sandbox.info);
  const shown = await run(['cards', 'get', cardId, '-o', 'json', '--show-secrets']);
  expect(shown.exitCode, shown.stderr).toBe(0);
  secret = JSON.parse(shown.stdout).cardProgram.webHookConfig.secret;
  expect(secret).toMatch(/^\S{8,}$/);
  expect(secret).not.toBe(REDACTED);
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  config?.remove();
});

describe('a card program\'s webhook secret', () => {
  it('is in no output format of cards list and cards get, nor with --jq or --template', async () => {
    const forms = [
      ...OUTPUT_FORMATS.map((format) => ['-o', format]),
      ['--jq', '.'],
      ['--template', '{{.cardProgram}}'],
      ['--fields', 'id,cardProgram.webHookConfig.secret', '-o', 'json'],
    ];
    // Both commands of a form at once: 2 × 8 runs of the binary.
    for (const form of forms) {
      await Promise.all([['cards', 'list'], ['cards', 'get', cardId]].map(async (command) => {
        const result = await run([...command, ...form]);
        expect(result.exitCode, `${[...command, ...form].join(' ')}: ${result.stderr}`).toBe(0);
        expect(`${result.stdout}${result.stderr}`, [...command, ...form].join(' ')).not.toContain(secret);
      }));
    }
    const listed = JSON.parse((await run(['cards', 'list', '-o', 'json'])).stdout);
    expect(listed[0].cardProgram.webHookConfig.secret).toBe(REDACTED);
  }, 120_000);

  it('--show-secrets brings it back in the CLI', async () => {
    const listed = await run(['cards', 'list', '-o', 'json', '--show-secrets']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)[0].cardProgram.webHookConfig.secret).toBe(secret);
  });

  it('never reaches an assistant: the MCP tools cards_list and cards_get', async () => {
    const transport = new StdioClientTransport({
      command: 'node',
      args: [BIN, 'mcp', '--profile', 'sandbox', '--show-secrets'],
      env: cleanEnv(isolatedDirs(config.path)) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cardctl-e2e-disclosure', version: '1.0.0' });
    await client.connect(transport);
    try {
      // The program asked for whole (`fields`): by default an assistant gets only its id.
      for (const [name, args] of [['cards_list', { fields: ['id', 'cardProgram'] }], ['cards_get', { cardId, fields: ['id', 'cardProgram'] }]] as const) {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        const text = JSON.stringify(result);
        expect(text).toContain('webHookConfig');
        expect(text).not.toContain(secret);
      }
    } finally {
      await client.close();
    }
  });
});

describe('a bulk run\'s row problems', () => {
  it('show bidi and zero-width characters escaped, never raw', async () => {
    const ids = join(config.path, 'ids.txt');
    writeFileSync(ids, `card_\u202Eevil\u2066x\u200By\uFEFFz\u2060w\u200Dq\n`);
    const result = await run(['cards', 'activate', '--from-file', ids, '--yes']);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/failed: row 1/);
    expect(result.stderr).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u061C\uFEFF\u2060]/);
    expect(result.stderr).toContain('\\u202e');
    expect(result.stderr).toContain('\\u200b');
  });
});
