// End to end: `cardctl mcp` (the built binary) driven by the MCP SDK's own client over stdio, and by
// a second client (the MCP inspector's CLI mode), against `cardctl sandbox serve --profile sandbox`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { execa } from 'execa';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, isolatedDirs, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { createCardOverHttp } from '../sandbox/helpers.js';
import { data, SECRET_LIKE, secretLikeProperties, untrusted } from '../helpers/mcp.js';
import { luhnValid } from '../../src/core/redact.js';

const INSPECTOR = fileURLToPath(new URL('../../node_modules/.bin/mcp-inspector-cli', import.meta.url));

let config: { path: string; remove(): void };
let sandbox: RunningSandbox;
const clients: Client[] = [];

interface TextResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * `cardctl mcp …` started by the SDK's client over stdio, initialized; with `answer`, a client
 * that can ask its person (elicitation) and answers so.
 */
async function connect(args: string[] = [], options: { profile?: string; answer?: 'accept' | 'decline'; asked?: string[] } = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: 'node',
    args: [BIN, 'mcp', '--profile', options.profile ?? 'sandbox', ...args],
    env: cleanEnv(isolatedDirs(config.path)) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'cardctl-e2e', version: '1.2.3' }, options.answer ? { capabilities: { elicitation: { form: {} } } } : {});
  if (options.answer) {
    const answer = options.answer;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      options.asked?.push(request.params.message);
      return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
  }
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<TextResult> {
  return (await client.callTool({ name, arguments: args })) as TextResult;
}

/** Luhn-valid runs of 13 to 19 digits: full card numbers. */
function fullCardNumbers(textToSearch: string): string[] {
  return (textToSearch.match(/\d{13,19}/g) ?? []).filter(luhnValid);
}

function text(result: TextResult): string {
  return result.content.map((part) => part.text ?? '').join('\n');
}

beforeAll(async () => {
  config = tempDir();
  sandbox = await startSandboxProcess(['--profile', 'sandbox'], { configDir: config.path });
}, 60_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await sandbox?.stop();
  config?.remove();
});

describe('cardctl mcp over stdio (the SDK client)', () => {
  it('lists read and simulation tools, each schema an object, none that changes anything by default', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['cards_list', 'cards_get', 'tx_list', 'tx_show', 'tx_summary', 'oauth_list', 'history', 'doctor', 'profile_show', 'simulate_authorization', 'simulate_reversal', 'simulate_run', 'simulate_load']));
    for (const tool of tools) expect(tool.inputSchema.type, tool.name).toBe('object');
    for (const write of ['cards_create', 'cards_deactivate', 'cards_activate', 'cards_pin_reset', 'oauth_create', 'users_update', 'import']) expect(names).not.toContain(write);
    for (const never of ['login', 'logout', 'profile_use', 'profile_set', 'profile_remove', 'alias_set', 'completion', 'sandbox_serve', 'webhook_listen', 'demo', 'api', 'mcp', 'auth_token', 'cards_pin_change']) expect(names).not.toContain(never);
    expect(tools.find((tool) => tool.name === 'cards_get')!.inputSchema.required).toEqual(['cardId']);
  }, 60_000);

  it('lists cards with their numbers masked, and simulates an authorization', async () => {
    const card = await createCardOverHttp(sandbox.info);
    const client = await connect();
    const listed = await call(client, 'cards_list', { cardId: card });
    expect(listed.isError, text(listed)).toBeFalsy();
    expect(listed.structuredContent).toBeUndefined();
    const rows = data(listed) as Array<Record<string, unknown>>;
    expect(rows.map((row) => row.id)).toContain(card);
    expect(fullCardNumbers(text(listed))).toEqual([]);
    expect(JSON.stringify(rows[0])).toMatch(/\d{6}\*+\d{4}|\*{4,}\d{4}/);

    const approved = await call(client, 'simulate_authorization', { card, amount: '12.50', channel: 'pos', method: 'chip' });
    expect(approved.isError, text(approved)).toBeFalsy();
    expect(data(approved)).toMatchObject({ responseCode: '00' });
    expect(fullCardNumbers(JSON.stringify(approved))).toEqual([]);
  }, 60_000);

  it('returns a tool error as the one-line message and its hint, never a stack', async () => {
    const client = await connect();
    const missing = await call(client, 'cards_get', { cardId: 'no-such-card' });
    expect(missing.isError).toBe(true);
    const lines = missing.content[0]!.text!.split('\n');
    expect(lines).toHaveLength(2);
    // The server's words are untrusted: marked in the line, quoted in the last part.
    expect(lines[0]).toMatch(/^error: ⟦u1⟧$/);
    expect(untrusted(missing)['⟦u1⟧']).toBe('card no-such-card not found');
    expect(lines[1]).toMatch(/^hint: /);
    expect(text(missing)).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+/);
    expect(data(missing)).toMatchObject({ error: { code: 'NOT_FOUND', exitCode: 4 } });

    // Refused by the command's own validator, as on the command line.
    const badChoice = await call(client, 'tx_list', { status: 'lost' });
    expect(badChoice.isError).toBe(true);
    expect(text(badChoice)).toMatch(/^error: invalid status "lost"/);
    const unknownInput = await call(client, 'cards_list', { pan: '5061000000000000009' });
    expect(unknownInput.isError).toBe(true);
    expect(text(unknownInput)).toMatch(/^error: cards_list has no input "pan"/);
    expect(text(unknownInput)).not.toContain('5061000000000000009');
  }, 60_000);

  it('refuses a write without --allow-write: not listed, and calling it is an error that says how', async () => {
    const card = await createCardOverHttp(sandbox.info);
    const client = await connect();
    await expect(call(client, 'cards_deactivate', { cardId: card, reason: 'test' })).rejects.toThrow(/no tool "cards_deactivate".*--allow-write cards/);
    const run = await cardctl(['cards', 'get', card, '-o', 'json'], { configDir: config.path, env: { CARDCTL_PROFILE: 'sandbox' } });
    expect(JSON.parse(run.stdout).status).toBe('active');
  }, 60_000);

  it('with --allow-write cards: deactivates a card with a reason, journaled as made through MCP', async () => {
    const card = await createCardOverHttp(sandbox.info);
    const client = await connect(['--allow-write', 'cards']);
    const { tools } = await client.listTools();
    const deactivate = tools.find((tool) => tool.name === 'cards_deactivate')!;
    expect(deactivate.inputSchema.required).toEqual(expect.arrayContaining(['reason']));
    expect(tools.map((tool) => tool.name)).not.toContain('oauth_create');

    const noReason = await call(client, 'cards_deactivate', { cardId: card });
    expect(noReason.isError).toBe(true);
    expect(text(noReason)).toMatch(/^error: cards_deactivate needs "reason"/);

    const done = await call(client, 'cards_deactivate', { cardId: card, reason: 'reported stolen by phone' });
    expect(done.isError, text(done)).toBeFalsy();
    expect(data(done)).toMatchObject({ id: card, status: 'suspended' });

    const history = await cardctl(['history', '--card', card, '-o', 'json'], { configDir: config.path });
    expect(history.exitCode, history.stderr).toBe(0);
    const entries = JSON.parse(history.stdout) as Array<Record<string, unknown>>;
    expect(entries).toContainEqual(expect.objectContaining({
      via: 'mcp', client: 'cardctl-e2e/1.2.3', reason: 'reported stolen by phone', profile: 'sandbox', ids: [card],
    }));
  }, 60_000);

  it('resets a PIN with one made and encrypted on this machine, never shown', async () => {
    const card = await createCardOverHttp(sandbox.info);
    const client = await connect(['--allow-write', 'cards']);
    const reset = await call(client, 'cards_pin_reset', { cardId: card, reason: 'cardholder locked out' });
    expect(reset.isError, text(reset)).toBeFalsy();
    const { tools } = await client.listTools();
    const inputs = Object.keys(tools.find((tool) => tool.name === 'cards_pin_reset')!.inputSchema.properties ?? {});
    expect(inputs).toEqual(expect.arrayContaining(['cardId', 'reason']));
    expect(inputs).not.toContain('pinStdin');
    expect(inputs).not.toContain('pan');
    expect(JSON.stringify(reset)).not.toMatch(/"pin"|defaultPIN|pinBlock/i);
  }, 60_000);

  it('offers no tool input that is secret-like, whatever is allowed', async () => {
    const client = await connect(['--allow-write', 'cards', 'oauth', 'users', 'import']);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['cards_create', 'oauth_create', 'users_update', 'import']));
    const found = tools.flatMap((tool) => secretLikeProperties(tool.name, tool.inputSchema.properties ?? {}));
    expect(found, `properties matching ${SECRET_LIKE}`).toEqual([]);
  }, 60_000);

  it('serves the help topics as resources', async () => {
    const client = await connect();
    const { resources } = await client.listResources();
    expect(resources).toContainEqual(expect.objectContaining({ uri: 'cardctl-help://exit-codes', mimeType: 'text/plain' }));
    expect(resources.map((resource) => resource.uri)).toContain('cardctl-help://mcp');
    const read = await client.readResource({ uri: 'cardctl-help://exit-codes' });
    expect(read.contents[0]).toMatchObject({ uri: 'cardctl-help://exit-codes', mimeType: 'text/plain' });
    const first = read.contents[0]!;
    expect('text' in first ? first.text : '').toContain('partial failure');
  }, 60_000);

  it('writes nothing but JSON-RPC to stdout, its note to stderr', async () => {
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'cards_list', arguments: { limit: '1' } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'cards_get', arguments: { cardId: 'nope' } } },
    ];
    const run = await cardctl(['mcp', '--profile', 'sandbox'], { configDir: config.path, input: messages.map((m) => `${JSON.stringify(m)}\n`).join('') });
    expect(run.exitCode, run.stderr).toBe(0);
    const lines = run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { jsonrpc: string; id: number });
    // Calls run concurrently: answered in any order, each answered although stdin ended.
    expect(lines.map((line) => [line.jsonrpc, line.id]).sort()).toEqual([['2.0', 1], ['2.0', 2], ['2.0', 3]]);
    expect(run.stderr).toMatch(/^cardctl mcp: \d+ tools \(0 that change things\) for profile "sandbox" on stdio\n/);
  }, 60_000);

  it('refuses an unknown --allow-write group as a usage error (exit 2)', async () => {
    const run = await cardctl(['mcp', '--profile', 'sandbox', '--allow-write', 'cardz'], { configDir: config.path });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/--allow-write: no command group "cardz"/);
    expect(run.stdout).toBe('');
  });
});

describe('a production profile', () => {
  beforeAll(() => {
    // `live`: the sandbox's settings, as a production profile (what `profile set env production` stores).
    const file = join(config.path, 'config.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
    stored.profiles.live = { ...stored.profiles.sandbox, env: 'production' };
    writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
  });

  it('offers no simulation, and refuses a change unless the person started the server with --allow-production-writes', async () => {
    const card = await createCardOverHttp(sandbox.info);
    const client = await connect(['--allow-write', 'cards'], { profile: 'live' });
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('cards_deactivate');
    expect(names.filter((name) => name.startsWith('simulate_'))).toEqual([]);
    const refused = await call(client, 'cards_deactivate', { cardId: card, reason: 'stolen' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^error: refusing cards_deactivate on production profile "live": this server was not started with --allow-production-writes\nhint: /);
  }, 60_000);

  it('with --allow-production-writes, asks the person through a client that can ask; a "no" sends nothing', async () => {
    const card = await createCardOverHttp(sandbox.info);
    const asked: string[] = [];
    const declining = await connect(['--allow-write', 'cards', '--allow-production-writes'], { profile: 'live', answer: 'decline', asked });
    const declined = await call(declining, 'cards_deactivate', { cardId: card, reason: 'stolen' });
    expect(declined.content[0]!.text).toBe('error: cards_deactivate on production profile "live" was not confirmed: nothing was sent');
    expect(asked[0]).toMatch(/cardctl cards deactivate.*PRODUCTION profile "live".*reason: stolen/);

    const accepting = await connect(['--allow-write', 'cards', '--allow-production-writes'], { profile: 'live', answer: 'accept' });
    const done = await call(accepting, 'cards_deactivate', { cardId: card, reason: 'stolen' });
    expect(done.isError, text(done)).toBeFalsy();
    const history = await cardctl(['history', '--card', card, '-o', 'json'], { configDir: config.path });
    expect(JSON.parse(history.stdout)).toEqual([expect.objectContaining({ env: 'production', profile: 'live', via: 'mcp', reason: 'stolen' })]);
  }, 60_000);
});

describe('a second client: the MCP inspector in CLI mode', () => {
  it.skipIf(!existsSync(INSPECTOR))('lists the tools of cardctl mcp', async () => {
    // The inspector (1.0.x) looks for its package.json relative to the working directory: run it
    // from its own build folder, where that path holds.
    const cwd = dirname(realpathSync(INSPECTOR));
    const result = await execa('node', [INSPECTOR, '--cli', 'node', BIN, 'mcp', '--profile', 'sandbox', '--method', 'tools/list'], {
      cwd, env: cleanEnv(isolatedDirs(config.path)), extendEnv: false, reject: false, timeout: 60_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const listed = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as { tools: Array<{ name: string; inputSchema: { type: string } }> };
    expect(listed.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['cards_list', 'simulate_authorization']));
    expect(listed.tools.every((tool) => tool.inputSchema.type === 'object')).toBe(true);
  }, 90_000);
});
