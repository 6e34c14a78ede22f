// Free text from argv is bounded where the flag is declared: list filters at the API's bound
// (LIST_BOUNDS.maxText), --reason at REASON_MAX_LENGTH; a longer value is a usage error before
// anything is sent. A reason is kept once in a journal entry, and a 431 says what to shorten.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_BOUNDS } from '../../src/core/list-bounds.js';
import { Journal } from '../../src/audit/journal.js';
import { main } from '../../src/app/cli.js';
import { REASON_MAX_LENGTH } from '../../src/commands/card-flags.js';
import { testIO } from '../helpers/context.js';
import { envelope, startTestServer, type TestServer } from '../helpers/http-server.js';
import { tempDir } from '../helpers/cli.js';

let server: TestServer;
let dir: { path: string; remove(): void };
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer((_req, res) => envelope(res, { id: 'c1', status: 'suspended' }));
  dir = tempDir();
  env = { CARDCTL_CONFIG_DIR: dir.path, CARDCTL_DATA_DIR: dir.path, CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: 'tok_test_0123456789', CI: '1' };
});
afterAll(async () => {
  await server.close();
  dir.remove();
});

async function run(args: string[]) {
  const io = testIO();
  const code = await main(args, { io, env, signal: new AbortController().signal });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

const FILTER = 'x'.repeat(LIST_BOUNDS.maxText + 1);
const REASON = 'r'.repeat(REASON_MAX_LENGTH + 1);

describe('bounded free text', () => {
  it.each([
    [['cards', 'list', '--search', FILTER], '--search', LIST_BOUNDS.maxText],
    [['cards', 'list', '--card-id', FILTER], '--card-id', LIST_BOUNDS.maxText],
    [['oauth', 'list', '--search', FILTER], '--search', LIST_BOUNDS.maxText],
    [['tx', 'list', '--merchant', FILTER], '--merchant', LIST_BOUNDS.maxText],
    [['tx', 'list', '--terminal', FILTER], '--terminal', LIST_BOUNDS.maxText],
    [['tx', 'summary', '--merchant', FILTER], '--merchant', LIST_BOUNDS.maxText],
    [['tx', 'tail', '--terminal', FILTER], '--terminal', LIST_BOUNDS.maxText],
    [['cards', 'deactivate', 'c1', '--yes', '--reason', REASON], '--reason', REASON_MAX_LENGTH],
    [['cards', 'activate', 'c1', '--reason', REASON], '--reason', REASON_MAX_LENGTH],
    [['cards', 'renew', 'c1', '--reason', REASON], '--reason', REASON_MAX_LENGTH],
    [['cards', 'customer', 'update', 'c1', '--email', 'a@example.com', '--reason', REASON], '--reason', REASON_MAX_LENGTH],
    [['cards', 'pin', 'reset', 'c1', '--reason', REASON], '--reason', REASON_MAX_LENGTH],
    [['import', '--from-file', 'rows.csv', '--reason', REASON], '--reason', REASON_MAX_LENGTH],
  ] as const)('%j: exit 2 naming the flag and its bound, nothing sent', async (args, flag, bound) => {
    const before = server.requests.length;
    const result = await run([...args]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`invalid ${flag}: at most ${bound} characters (this has ${bound + 1})`);
    expect(result.stderr.trim().split('\n')[0]!.length).toBeLessThan(200);
    expect(server.requests.length).toBe(before);
  });

  it('the help line of a bounded flag states its bound', async () => {
    const help = await run(['cards', 'list', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(`free-text search across card fields (at most ${LIST_BOUNDS.maxText} characters)`);
  });

  it('a journal entry holds the reason once', async () => {
    const reason = `lost ${'q'.repeat(REASON_MAX_LENGTH - 5)}`;
    const result = await run(['cards', 'deactivate', 'c1', '--yes', '--reason', reason]);
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(new Journal(env).file, 'utf8');
    // Two lines (the intent, then the outcome), each with the reason once.
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.split(reason)).toHaveLength(2);
    const entry = JSON.parse(text.trim().split('\n').at(-1)!);
    expect(entry.reason).toBe(reason);
    expect(entry.command).toBe('cardctl cards deactivate c1 --yes --reason …');
  });

  it('a 431 from the server (a URL too large for it) is one line with what to shorten', async () => {
    server.enqueue((_req, res) => { res.writeHead(431, { connection: 'close' }).end(); });
    const result = await run(['cards', 'list']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/rejected \(431\)/);
    expect(result.stderr).toMatch(/shorten the filters \(at most 256 characters each\)/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
