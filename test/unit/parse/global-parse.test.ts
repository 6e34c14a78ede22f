// The one global parse step (parseGlobals) runs before every command's own: swept over every
// command of the tree, so a command added tomorrow is covered. Its table, and the context that
// takes its result rather than checking again.
import { describe, expect, it } from 'vitest';
import { type AnyCommand, type GroupDefinition, isGroup } from '../../../src/contract/command.js';
import { createContext } from '../../../src/app/context.js';
import { commandTree } from '../../../src/commands/index.js';
import { bufferedIO } from '../../../src/core/buffered-io.js';
import { UsageError } from '../../../src/core/errors.js';
import { parseGlobals, type GlobalFacts } from '../../../src/core/global-flags.js';
import { parseOutcome, terminalFacts } from '../../helpers/parse.js';
import { isolatedDirs, scratchDir } from '../../helpers/dirs.js';

function leaves(nodes: Array<AnyCommand | GroupDefinition>, prefix = ''): Array<[string, AnyCommand]> {
  return nodes.flatMap((node) => (isGroup(node) ? leaves(node.commands, `${prefix}${node.name} `) : [[`${prefix}${node.name}`, node] as [string, AnyCommand]]));
}

/** A value for each required positional argument, so commander reaches the parse steps. */
function requiredArgs(command: AnyCommand): string[] {
  return (command.args ?? []).filter((a: { syntax: string }) => a.syntax.startsWith('<')).map(() => 'x1');
}

const COMMANDS = leaves(commandTree);

describe('every command: the global flags are checked before its own parse step', () => {
  it.each(COMMANDS)('%s', async (_name, command) => {
    for (const [globals, message] of [
      [['--timeout', '0'], /^invalid --timeout "0"/],
      [['--retries', '11'], /^invalid --retries "11"/],
      [['-p', ' '], /^-p\/--profile needs a profile name$/],
      [['--jq', '.', '--template', '{{.id}}'], /^--jq and --template cannot be used together$/],
    ] as const) {
      const error = await parseOutcome(command, [...requiredArgs(command), ...globals]);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toMatch(message);
    }
  });
});

describe('every command: its parse step gives an input or a usage error, at a terminal or not', () => {
  it.each(COMMANDS)('%s', async (_name, command) => {
    for (const tty of [false, true]) {
      const outcome = await parseOutcome(command, requiredArgs(command), undefined, terminalFacts(tty));
      if (outcome instanceof Error) expect(outcome).toBeInstanceOf(UsageError);
    }
  });
});

describe('parseGlobals', () => {
  const none: GlobalFacts = { env: {}, stdoutIsTTY: false, stdinIsTTY: false };
  const terminal: GlobalFacts = { env: {}, stdoutIsTTY: true, stdinIsTTY: true };

  it.each([
    [{}, none, { globals: { profile: undefined, timeoutMs: 30_000, retries: 2 }, terminal: { stdoutIsTTY: false, canPrompt: false, colour: false } }],
    [{}, terminal, { terminal: { stdoutIsTTY: true, canPrompt: true, colour: true } }],
    [{ profile: 'prod', timeout: '2.5', retries: '0' }, none, { globals: { profile: { name: 'prod', from: '-p' }, timeoutMs: 2500, retries: 0 } }],
    [{ retries: '5', retry: false }, none, { globals: { retries: 0 } }],
    [{}, { ...none, env: { CARDCTL_PROFILE: 'sbx' } }, { globals: { profile: { name: 'sbx', from: 'CARDCTL_PROFILE' } } }],
    [{ input: false }, terminal, { terminal: { canPrompt: false } }],
    [{ color: false }, terminal, { terminal: { colour: false, canPrompt: true } }],
    [{}, { ...terminal, env: { CI: 'true' } }, { terminal: { canPrompt: false } }],
    [{}, { ...terminal, env: { NO_COLOR: '1' } }, { terminal: { colour: false } }],
    [{}, { ...none, env: { FORCE_COLOR: '1' } }, { terminal: { colour: true } }],
    [{}, { ...terminal, streamsCanPrompt: false }, { terminal: { canPrompt: false } }],
  ] as const)('%j at %j', (opts, facts, expected) => {
    expect(parseGlobals(opts, facts)).toMatchObject(expected);
  });

  it.each([
    [{ profile: '' }, none, /^-p\/--profile needs a profile name$/],
    [{}, { ...none, env: { CARDCTL_PROFILE: '' } }, /^CARDCTL_PROFILE is set but empty$/],
    [{ timeout: 'soon' }, none, /^invalid --timeout "soon"/],
    [{ timeout: '3601' }, none, /^invalid --timeout "3601"/],
    [{ retries: '1.5' }, none, /^invalid --retries "1.5"/],
    [{ jq: '.', template: 'x' }, none, /^--jq and --template cannot be used together$/],
  ] as const)('%j at %j is a usage error', (opts, facts, message) => {
    expect(() => parseGlobals(opts, facts)).toThrow(UsageError);
    expect(() => parseGlobals(opts, facts)).toThrow(message);
  });

  it('names the stored profiles in the hint of a blank one', () => {
    const error = (() => { try { parseGlobals({ profile: ' ' }, { ...none, profileNames: () => ['prod', 'sbx'] }); } catch (e) { return e; } })();
    expect((error as UsageError).hint).toBe('give -p NAME; stored profiles: prod, sbx');
  });

  it('the context takes the checked values as given, and checks nothing again', () => {
    const env = isolatedDirs(scratchDir());
    const ctx = createContext({
      io: bufferedIO({ tty: true }),
      env,
      // Values the global parse step would refuse: the context never reads them.
      globals: { timeout: 'soon', retries: 'many', input: false },
      checked: { globals: { profile: undefined, timeoutMs: 5_000, retries: 1 }, terminal: { stdoutIsTTY: true, canPrompt: true, colour: false } },
    });
    expect(ctx.settings()).toMatchObject({ timeoutMs: 5_000, retries: 1 });
    expect(ctx.io.canPrompt).toBe(true);
    expect(ctx.io.colorEnabled).toBe(false);
  });
});
