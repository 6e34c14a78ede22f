// The flag declarations: what commander makes of a command line for each kind of flag, and the
// option types TypeScript infers from them.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CARD_STATUSES } from '../../src/core/enums.js';
import * as fields from '../../src/core/card-fields.js';
import { commandTree } from '../../src/commands/index.js';
import { defineCommand, isGroup, type AnyCommand, type GroupDefinition } from '../../src/contract/command.js';
import { GLOBAL_FLAGS } from '../../src/core/global-flags.js';
import { UsageError } from '../../src/core/errors.js';
import { bodyFields, commanderOptions, defineFlags, flagWords, longFlag, type FlagSpec, type Flags } from '../../src/core/flags.js';
import { parseCommand } from '../helpers/parse.js';

const probe = defineCommand({
  name: 'probe',
  summary: 'every kind of flag',
  args: [{ syntax: '<id>', description: 'an id' }, { syntax: '[more...]', description: 'more ids' }],
  flags: {
    text: { type: 'string', value: 'text', description: 'a value', path: 'body.text' },
    shade: { type: 'string', value: 'shade', choices: ['light', 'dark'], default: 'light', description: 'a choice with a default' },
    status: { type: 'string', value: 'status', choices: CARD_STATUSES, parse: fields.cardStatus, description: 'a choice with its own validator' },
    dry: { type: 'boolean', description: 'a switch' },
    active: { type: 'boolean', description: 'a switch', negation: 'and its negation' },
    pin: { type: 'negated', description: 'only the negation' },
    scope: { type: 'list', value: 'scope', repeat: 'variadic', description: 'several values after one flag' },
    header: { type: 'list', short: 'H', value: 'header', repeat: 'each', description: 'one value per flag, repeated' },
    enroll2fa: { type: 'boolean', long: 'enroll-2fa', description: 'a name that is not the kebab case of its key' },
  },
  async run() {},
});

const parsed = defineCommand({
  name: 'parsed',
  summary: 'a command with its own parse step',
  args: [{ syntax: '<count>', description: 'a count' }],
  flags: { label: { type: 'string', value: 'label', description: 'a label' } },
  parse({ args: [count], opts }) {
    const n = Number(count);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`invalid count "${count}": expected a whole number from 1`);
    return { count: n, label: opts.label ?? 'none' };
  },
  async run(_ctx, input) {
    expectTypeOf(input).toEqualTypeOf<{ count: number; label: string }>();
  },
});

describe('a command with parse(): argv → its typed input, or a usage error before run()', () => {
  it.each<[string[], { count: number; label: string } | RegExp]>([
    [['3'], { count: 3, label: 'none' }],
    [['1', '--label', 'x'], { count: 1, label: 'x' }],
    [['0'], /^invalid count "0"/],
    [['two'], /^invalid count "two"/],
  ])('%j', async (argv, expected) => {
    const result = await parseCommand(parsed, argv).then((input) => input, (error: unknown) => error);
    if (expected instanceof RegExp) {
      expect(result).toBeInstanceOf(UsageError);
      expect((result as UsageError).message).toMatch(expected);
    } else expect(result).toEqual(expected);
  });
});

describe('a command line → the options run() gets', () => {
  it.each<[string[], Record<string, unknown>]>([
    [['x'], { text: undefined, shade: 'light', status: undefined, dry: undefined, active: undefined, pin: true, scope: undefined, header: undefined, enroll2fa: undefined }],
    [['x', '--text', 'hello', '--shade', 'dark', '--dry'], { text: 'hello', shade: 'dark', dry: true }],
    [['x', '--active'], { active: true }],
    [['x', '--no-active', '--no-pin', '--enroll-2fa'], { active: false, pin: false, enroll2fa: true }],
    [['x', '--scope', 'read:card', 'read:transaction'], { scope: ['read:card', 'read:transaction'] }],
    [['x', '-H', 'a: 1', '--header', 'b: 2'], { header: ['a: 1', 'b: 2'] }],
    [['x', '--status', ' ACTIVE '], { status: 'active' }],
    [['x', '--json', '-o', 'csv', '--no-input'], { json: true, output: 'csv', input: false }],
  ])('%j', async (argv, expected) => {
    const opts: Record<string, unknown> = (await parseCommand(probe, argv)).opts;
    expect(Object.fromEntries(Object.keys(expected).map((key) => [key, opts[key]]))).toEqual(expected);
  });

  it.each<[string[], RegExp]>([
    [[], /missing required argument 'id'/],
    [['x', '--shade', 'grey'], /^invalid --shade "grey": expected one of light, dark$/],
    // A field with its own validator is refused in that validator's words (as in a file).
    [['x', '--status', 'frozen'], /^invalid --status "frozen": expected one of active, inactive, suspended, expired$/],
    [['x', '--text'], /^--text needs a value$/],
    [['x', '--nope'], /unknown option '--nope'/],
    [['x', '-o', 'yaml'], /^invalid --output "yaml"/],
  ])('%j is a usage error', async (argv, message) => {
    const error = await parseCommand(probe, argv).then(() => undefined, (e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(message);
  });

  it('hands over the positional arguments in order, variadic ones as arrays', async () => {
    expect((await parseCommand(probe, ['x'])).args).toEqual(['x', []]);
    expect((await parseCommand(probe, ['x', 'y', 'z'])).args).toEqual(['x', ['y', 'z']]);
  });
});

describe('the option types are inferred from the declarations', () => {
  it('string, choice, default, switch, negation, list', async () => {
    const { opts, args } = await parseCommand(probe, ['x']);
    expectTypeOf(opts.text).toEqualTypeOf<string | undefined>();
    expectTypeOf(opts.shade).toEqualTypeOf<'light' | 'dark'>();
    expectTypeOf(opts.status).toEqualTypeOf<(typeof CARD_STATUSES)[number] | undefined>();
    expectTypeOf(opts.dry).toEqualTypeOf<boolean | undefined>();
    expectTypeOf(opts.pin).toEqualTypeOf<boolean>();
    expectTypeOf(opts.scope).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(opts.output).toEqualTypeOf<'table' | 'json' | 'ndjson' | 'csv' | 'raw' | undefined>();
    expectTypeOf(args).toEqualTypeOf<[string, string[] | undefined]>();
  });
});

describe('flag names and body fields', () => {
  it('a flag is the kebab case of its key unless it says otherwise', () => {
    expect(longFlag('addressLine1', { type: 'string', value: 'text', description: '' })).toBe('--address-line1');
    expect(longFlag('enroll2fa', { type: 'boolean', long: 'enroll-2fa', description: '' })).toBe('--enroll-2fa');
  });

  it('only flags with a body path are body fields, with their flag and validator', () => {
    const flags = defineFlags({
      firstName: { type: 'string', value: 'name', description: '', path: 'customer.firstName', parse: fields.personName, required: true, prompt: 'First name' },
      quiet: { type: 'boolean', description: '' },
    });
    expect(bodyFields(flags)).toEqual([{ key: 'firstName', flag: '--first-name', path: 'customer.firstName', parse: fields.personName, required: true, prompt: 'First name' }]);
  });
});

describe('secret flags', () => {
  it('a --…-stdin switch may be secret', () => {
    expect(() => defineFlags({ tokenStdin: { type: 'boolean', secret: true, description: 'token on stdin' } })).not.toThrow();
  });

  it.each<[string, FlagSpec]>([
    ['a switch not read from stdin', { type: 'boolean', description: 'x' }],
    ['a value', { type: 'string', value: 'token', description: 'x' }],
    ['a list', { type: 'list', value: 'token', repeat: 'each', description: 'x' }],
  ])('refuses %s declared secret, when declared and when a command gets it', (_what, spec) => {
    const message = /--token is declared secret but is not a --…-stdin switch: secrets are read from stdin or the environment, never from argv/;
    // `secret` added at run time: TypeScript already refuses it on a value flag's declaration.
    const flags: Flags = { token: Object.assign({ ...spec }, { secret: true }) };
    expect(() => defineFlags(flags)).toThrow(message);
    expect(() => commanderOptions(flags)).toThrow(message);
  });

  it('every --…-stdin flag of the tree carries a secret and says so', () => {
    const leaves = (nodes: Array<AnyCommand | GroupDefinition>): AnyCommand[] => nodes.flatMap((node) => (isGroup(node) ? leaves(node.commands) : [node]));
    const stdin = [GLOBAL_FLAGS, ...leaves(commandTree).map((command) => command.flags ?? {})]
      .flatMap((flags) => [...flagWords([flags])].filter(([word]) => word.endsWith('-stdin')));
    expect([...new Set(stdin.map(([word]) => word))].sort()).toEqual(['--api-key-stdin', '--pin-stdin', '--previous-secret-stdin', '--secret-stdin', '--token-stdin']);
    for (const [word, spec] of stdin) expect(spec, word).toMatchObject({ type: 'boolean', secret: true });
  });
});
