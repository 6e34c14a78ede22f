// `cardctl mcp`'s tools as derived from the command tree: every command classified, names and
// schemas from the declarations, nothing secret as an input, the command line a call runs, and
// the scope rules (simulations on a sandbox, writes only with --allow-write, production refused).
import { describe, expect, it } from 'vitest';
import type { CliHost, RunOrigin } from '../../src/contract/command.js';
import { commandTree } from '../../src/commands/index.js';
import type { IOStreams } from '../../src/core/io.js';
import { callTool, type CallSettings } from '../../src/mcp/call.js';
import { toolCommandLine } from '../../src/mcp/command-line.js';
import { rowFilters } from '../../src/mcp/inputs.js';
import { commandTools, leaves, toolsInScope, useOf, writeGroupNames, type Tool } from '../../src/mcp/tools.js';
import { SECRET_LIKE, secretLikeProperties } from '../helpers/mcp.js';

const tools = commandTools(commandTree);
const tool = (name: string): Tool => {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

describe('classification', () => {
  it('every command of the tree declares what cardctl mcp makes of it', () => {
    const undeclared = leaves(commandTree).filter(({ definition }) => useOf(definition) === undefined).map(({ path }) => path.join(' '));
    expect(undeclared, 'add `mcp: read | simulate | write | never` to these command definitions').toEqual([]);
  });

  it.each([
    'login', 'logout', 'profile use', 'profile set', 'profile set-dialect', 'profile remove', 'alias set', 'alias list', 'alias delete',
    'completion', 'sandbox serve', 'webhook listen', 'demo', 'api', 'mcp', 'auth token', 'tx tail', 'cards pin change',
  ])('%s is never a tool', (path) => {
    const leaf = leaves(commandTree).find((l) => l.path.join(' ') === path);
    expect(leaf, path).toBeDefined();
    expect(useOf(leaf!.definition)).toBe('never');
  });

  it('names a tool after its command path, hyphens too', () => {
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['cards_list', 'tx_show', 'simulate_authorization', 'cards_customer_update', 'cards_pin_reset', 'import']));
    for (const t of tools) expect(t.name).toMatch(/^[a-z0-9_]{1,64}$/);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it('--allow-write names the top-level groups that hold a write command', () => {
    expect(writeGroupNames(tools).sort()).toEqual(['cards', 'import', 'oauth', 'users']);
  });
});

describe('input schemas', () => {
  it('are objects with a property for each argument and tool flag, none of them clashing', () => {
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      const expected = t.args.length + t.flags.length + (t.use === 'write' && !t.flags.some((f) => f.key === 'reason') ? 1 : 0)
        + (t.use === 'read' ? 1 : 0) + Object.keys(rowFilters(t.definition)).length;
      expect(Object.keys(t.inputSchema.properties), t.name).toHaveLength(expected);
    }
  });

  it('give choices as an enum, required arguments as required, and a bounded reason to every write', () => {
    expect(tool('tx_list').inputSchema.properties.status).toMatchObject({ type: 'string', enum: ['pending', 'completed', 'failed', 'reversed'] });
    expect(tool('cards_get').inputSchema.required).toEqual(['cardId']);
    expect(tool('simulate_authorization').inputSchema.properties.set).toMatchObject({ type: 'array', items: { type: 'string' } });
    for (const t of tools.filter((w) => w.use === 'write')) {
      expect(t.inputSchema.required, t.name).toContain('reason');
      expect(t.inputSchema.properties.reason).toMatchObject({ type: 'string', maxLength: 500 });
    }
    for (const t of tools.filter((w) => w.use !== 'write')) expect(t.inputSchema.properties.reason, t.name).toBeUndefined();
  });

  it(`never have a secret-like property (${SECRET_LIKE})`, () => {
    expect(tools.flatMap((t) => secretLikeProperties(t.name, t.inputSchema.properties))).toEqual([]);
  });

  it('leave out secret, card-number and person-only flags', () => {
    for (const t of tools) {
      for (const { spec, long } of t.flags) {
        expect('secret' in spec && spec.secret, `${t.name} ${long}`).toBeFalsy();
        expect(spec.type === 'string' && spec.pan, `${t.name} ${long}`).toBeFalsy();
        expect(spec.mcp, `${t.name} ${long}`).not.toBe(false);
      }
    }
    expect(tool('simulate_load').inputSchema.properties.allowRemote).toBeUndefined();
    expect(tool('simulate_authorization').inputSchema.properties.pan).toBeUndefined();
    expect(tool('cards_renew').inputSchema.properties.reason).toMatchObject({ description: expect.stringContaining('audit journal') });
  });
});

describe('scope', () => {
  it('offers reads always, simulations on a sandbox, writes of the groups allowed', () => {
    const production = toolsInScope(tools, { sandbox: false, writeGroups: new Set() });
    expect(production.every((t) => t.use === 'read')).toBe(true);
    expect(production.map((t) => t.name)).toEqual(expect.arrayContaining(['cards_list', 'cards_get', 'tx_list', 'tx_show', 'tx_summary', 'oauth_list', 'history', 'doctor', 'profile_show']));
    const sandbox = toolsInScope(tools, { sandbox: true, writeGroups: new Set() });
    expect(sandbox.some((t) => t.use === 'write')).toBe(false);
    expect(sandbox.map((t) => t.name)).toEqual(expect.arrayContaining(['simulate_authorization', 'simulate_run', 'simulate_load', 'simulate_clock']));
    const cards = toolsInScope(tools, { sandbox: false, writeGroups: new Set(['cards']) }).filter((t) => t.use === 'write');
    expect(cards.map((t) => t.name).sort()).toEqual(['cards_activate', 'cards_create', 'cards_customer_update', 'cards_deactivate', 'cards_pin_reset', 'cards_renew']);
  });
});

describe('the command line of a call', () => {
  it('gives flags as --name=value (a leading dash stays a value), then -- and the arguments', () => {
    const line = toolCommandLine(tool('cards_deactivate'), { cardId: '-odd-id', reason: '--yes please', fromFile: undefined });
    expect(line.argv).toEqual(['cards', 'deactivate', '--reason=--yes please', '--', '-odd-id']);
    expect(line.reason).toBe('--yes please');
    expect(toolCommandLine(tool('simulate_authorization'), { card: 'c1', set: ['a=1', 'b=2'], forward: true, messages: false }).argv)
      .toEqual(['simulate', 'authorization', '--card=c1', '--forward', '--set=a=1', '--set=b=2']);
    expect(toolCommandLine(tool('cards_create'), { pin: false, reason: 'r' }).argv).toContain('--no-pin');
  });

  it('refuses inputs the schema does not name, of the wrong type, or a write without a reason', () => {
    expect(() => toolCommandLine(tool('cards_list'), { pan: '5061000000000000009' })).toThrow(/cards_list has no input "pan"/);
    expect(() => toolCommandLine(tool('cards_list'), { all: 'yes' })).toThrow(/"all" must be true or false/);
    expect(() => toolCommandLine(tool('cards_get'), {})).toThrow(/cards_get needs "cardId"/);
    expect(() => toolCommandLine(tool('cards_activate'), { cardId: 'c', reason: '  ' })).toThrow(/needs a "reason"/);
  });

  it('keeps a load run short', () => {
    const bound = tool('simulate_load').bound!;
    expect(() => bound({ rate: '10/s', duration: '2m' })).toThrow(/longer than the 50s a load run through cardctl mcp may send for \(its last answers must arrive within 60s\)/);
    expect(() => bound({ rate: '10/s', duration: '51s' })).toThrow(/longer than the 50s/);
    expect(() => bound({ rate: '10/s', duration: '50s' })).not.toThrow();
    expect(() => bound({ rate: '10/s', count: '50' })).toThrow(/needs a duration too/);
    expect(() => bound({ rate: '10/s', count: '20000', duration: '30s' })).toThrow(/above the 10,000/);
    expect(() => bound({ rate: '10/s', count: '500', duration: '30s' })).not.toThrow();
    expect(() => bound({ rate: '10/s' })).not.toThrow();
    expect(() => bound({ rate: '10/s', ramp: '30s', duration: '40s' })).toThrow(/ramp 30s and duration make a load run longer than the 50s/);
    expect(() => bound({ rate: '10/s', ramp: '11s', duration: '40s' })).toThrow(/longer than the 50s/);
    expect(() => bound({ rate: '10/s', ramp: '10s', duration: '40s' })).not.toThrow();
    // An assistant writes no load script: --export (and its --url) are not tool inputs.
    expect(tool('simulate_load').inputSchema.properties.export).toBeUndefined();
    expect(tool('simulate_load').inputSchema.properties.url).toBeUndefined();
  });
});

describe('a call', () => {
  interface Ran { argv: string[]; origin?: RunOrigin; stdin: string }
  const fakeHost = (exitCode = 0, stdout = '{"ok":true}', stderr = ''): { host: Pick<CliHost, 'run'>; runs: Ran[] } => {
    const runs: Ran[] = [];
    return {
      runs,
      host: {
        async run(argv, deps: { io: IOStreams; origin?: RunOrigin }) {
          let stdin = '';
          for await (const chunk of deps.io.stdin) stdin += String(chunk);
          runs.push({ argv, origin: deps.origin, stdin });
          deps.io.out(stdout);
          deps.io.err(stderr);
          return exitCode;
        },
      },
    };
  };
  const settings = (over: Partial<CallSettings> = {}): CallSettings => ({
    env: {}, profile: 'live', production: false, allowProductionWrites: false, client: () => 'claude/1.0', log: () => {}, askPerson: async () => 'cannot ask', ...over,
  });
  const signal = new AbortController().signal;

  it('runs the command for the profile, JSON out, never prompting; a write with --yes and the origin', async () => {
    const { host, runs } = fakeHost();
    const result = await callTool(host, tool('cards_deactivate'), { cardId: 'c1', reason: 'stolen' }, settings(), signal);
    expect(result).toEqual({ content: [{ type: 'text', text: '{"ok":true}' }] });
    expect(runs[0]!.argv).toEqual(['cards', 'deactivate', '--profile', 'live', '--output', 'json', '--no-input', '--no-color', '--yes', '--reason=stolen', '--', 'c1']);
    expect(runs[0]!.origin).toEqual({ via: 'mcp', client: 'claude/1.0', reason: 'stolen' });
  });

  it('refuses a production write unless the server was started with --allow-production-writes', async () => {
    const { host, runs } = fakeHost();
    const refused = await callTool(host, tool('cards_deactivate'), { cardId: 'c1', reason: 'stolen' }, settings({ production: true }), signal);
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/^error: refusing cards_deactivate on production profile "live".*\nhint: .*--allow-production-writes/);
    expect(runs).toEqual([]);
    await callTool(host, tool('cards_deactivate'), { cardId: 'c1', reason: 'stolen' }, settings({ production: true, allowProductionWrites: true }), signal);
    expect(runs[0]!.argv).toEqual(expect.arrayContaining(['--yes', '--confirm-production']));
  });

  it('asks the person through the client for each production change, when the client can ask', async () => {
    const { host, runs } = fakeHost();
    const questions: string[] = [];
    const asking = (answer: 'yes' | 'no') => settings({ production: true, allowProductionWrites: true, askPerson: async (q) => (questions.push(q), answer) });
    const declined = await callTool(host, tool('cards_deactivate'), { cardId: 'c1', reason: 'stolen' }, asking('no'), signal);
    expect(declined.content[0]!.text).toBe('error: cards_deactivate on production profile "live" was not confirmed: nothing was sent');
    expect(runs).toEqual([]);
    expect(questions[0]).toMatch(/cardctl cards deactivate.*PRODUCTION profile "live".*reason: stolen/);
    await callTool(host, tool('cards_deactivate'), { cardId: 'c1', reason: 'stolen' }, asking('yes'), signal);
    expect(runs).toHaveLength(1);
    // Reads and a sandbox's changes ask no one.
    await callTool(host, tool('cards_list'), {}, asking('no'), signal);
    await callTool(host, tool('cards_deactivate'), { cardId: 'c1', reason: 'stolen' }, settings({ askPerson: async () => 'no' }), signal);
    expect(runs).toHaveLength(3);
  });

  it('gives a PIN tool a random PIN on stdin, never in the command line', async () => {
    const { host, runs } = fakeHost();
    await callTool(host, tool('cards_pin_reset'), { cardId: 'c1', reason: 'locked out' }, settings(), signal);
    expect(runs[0]!.argv).toContain('--pin-stdin');
    expect(runs[0]!.stdin).toMatch(/^\d{6}\n$/);
    expect(runs[0]!.argv.join(' ')).not.toContain(runs[0]!.stdin.trim());
  });

  it("reports a failed run as the CLI's one-line error and hint", async () => {
    const reported = JSON.stringify({ error: { code: 'NOT_FOUND', exitCode: 4, message: 'card c9 not found', hint: 'check the id' } });
    const { host } = fakeHost(4, '', `error: card c9 not found\nhint: check the id\n${reported}\n`);
    const result = await callTool(host, tool('cards_get'), { cardId: 'c9' }, settings(), signal);
    expect(result.isError).toBe(true);
    expect(result.content[0]).toEqual({ type: 'text', text: 'error: card c9 not found\nhint: check the id' });
    expect(JSON.parse(result.content[1]!.text)).toEqual({ error: { code: 'NOT_FOUND', exitCode: 4 } });
    expect(result.structuredContent).toBeUndefined();
  });
});
