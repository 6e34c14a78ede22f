// Exit 2 means nothing was sent: the options that shape the output (--fields, --jq, --template)
// are checked before the first request. The sweep runs every command that changes state (and
// every command that declares what it prints) with a bad one of each against a server that
// records what it receives, and asserts it received nothing.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AnyCommand, type GroupDefinition, isGroup } from '../../src/contract/command.js';
import { main } from '../../src/app/cli.js';
import { commandTree } from '../../src/commands/index.js';
import { outputShape, unknownFields } from '../../src/output/shape.js';
import { cardShape, simulationShape } from '../../src/commands/output-shapes.js';
import { testIO } from '../helpers/context.js';
import { scratchDir, isolatedDirs } from '../helpers/dirs.js';
import { startTestServer, type TestServer } from '../helpers/http-server.js';

interface Leaf {
  path: string[];
  definition: AnyCommand;
}

function leaves(nodes: ReadonlyArray<AnyCommand | GroupDefinition>, prefix: string[] = []): Leaf[] {
  return nodes.flatMap((node) => (isGroup(node) ? leaves(node.commands, [...prefix, node.name]) : [{ path: [...prefix, node.name], definition: node }]));
}

const useOf = (definition: AnyCommand) => (typeof definition.mcp === 'object' ? definition.mcp.use : definition.mcp);
/** The code's own notion of a command that changes state: a write, or a simulation sent to the switch. */
const changesState = (definition: AnyCommand) => useOf(definition) === 'write' || useOf(definition) === 'simulate';

/** Shell words of a command line (quotes kept together), enough for the examples in help. */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** The command line of the leaf's first example that runs it (a real one: ids, flags), else its path alone. */
function exampleArgv(leaf: Leaf): string[] {
  for (const example of leaf.definition.examples ?? []) {
    const at = example.indexOf(`cardctl ${leaf.path.join(' ')}`);
    if (at < 0) continue;
    const line = example.slice(at + 'cardctl '.length).split(/\s(?:#|\||>|2>)/)[0]!;
    const argv = words(line);
    if (argv.slice(0, leaf.path.length).join(' ') === leaf.path.join(' ')) return confirmed(leaf, argv);
  }
  return confirmed(leaf, leaf.path);
}

/** With --yes (a global flag): the line is refused for its output option alone, not for a missing confirmation. */
function confirmed(_leaf: Leaf, argv: string[]): string[] {
  return argv.includes('--yes') ? argv : [...argv, '--yes'];
}

const ALL = leaves(commandTree);
const STATEFUL = ALL.filter((leaf) => changesState(leaf.definition));
const DECLARED = ALL.filter((leaf) => leaf.definition.output !== undefined);

/** The declaring commands whose shape is not "any JSON". */
async function knowingShapes(): Promise<Leaf[]> {
  const known: Leaf[] = [];
  for (const leaf of DECLARED) if (!(await leaf.definition.output!()).openPaths.includes('')) known.push(leaf);
  expect(DECLARED.length - known.length).toBeLessThanOrEqual(1);
  return known;
}

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => {
  dir = scratchDir();
  server.requests.length = 0;
});

async function run(argv: string[]) {
  const io = testIO();
  const env = { ...isolatedDirs(dir), CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: 'tok_preflight_123456', CARDCTL_API_KEY: 'key_preflight_123456' };
  const code = await main(argv, { io, env });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

const BAD = [
  { option: '--fields', argv: ['--fields', 'nope'], message: /unknown field in --fields: "nope"/ },
  { option: '--jq', argv: ['--jq', '.[] |'], message: /^error: --jq: / },
  { option: '--template', argv: ['--template', '{{#if .id}}'], message: /^error: --template: / },
];

describe('options that shape the output are checked before anything is sent', () => {
  it('every command that changes state declares what it prints', () => {
    expect(STATEFUL.length).toBeGreaterThan(20);
    expect(STATEFUL.filter((leaf) => !leaf.definition.output).map((leaf) => leaf.path.join(' '))).toEqual([]);
  });

  it('every declared shape knows the fields of its own columns and records', async () => {
    for (const leaf of DECLARED) {
      const shape = await leaf.definition.output!();
      expect(shape.paths.length + shape.openPaths.length, leaf.path.join(' ')).toBeGreaterThan(0);
    }
  });

  for (const bad of BAD) {
    it(`a bad ${bad.option}: exit 2, one line, and the server received nothing (every command that changes state or declares its output)`, async () => {
      // A command whose records are any JSON (`api`) takes any field name: nothing to refuse.
      const swept = bad.option === '--fields' ? await knowingShapes() : [...new Set([...STATEFUL, ...DECLARED])];
      expect(swept.length).toBeGreaterThanOrEqual(STATEFUL.length);
      for (const leaf of swept) {
        const argv = [...exampleArgv(leaf), ...bad.argv];
        const result = await run(argv);
        const what = `cardctl ${argv.join(' ')}\n${result.stderr}`;
        expect(server.requests.map((r) => `${r.method} ${r.url}`), what).toEqual([]);
        expect(result.code, what).toBe(2);
        expect(result.stderr, what).toMatch(bad.message);
        expect(result.stdout, what).toBe('');
      }
    }, 120_000);
  }
});

describe('the field names a command knows before it sends', () => {
  it('a card verb knows the card (columns, nested paths, headers) and its bulk summary', () => {
    const shape = cardShape();
    expect(unknownFields(shape, ['id', 'status', 'customer.firstName', 'cardProgram.name', 'Card number', 'done', 'already', 'report'])).toEqual([]);
    expect(unknownFields(shape, ['nope', 'customer.nope'])).toEqual(['nope', 'customer.nope']);
  });

  it('a simulation knows its computed columns (outcome, amount) and its ISO 8583 fields (a map)', () => {
    expect(unknownFields(simulationShape(), ['outcome', 'amount', 'responseCode', 'request.4', 'response.39'])).toEqual([]);
  });

  it('"any" (cardctl api) takes every name; a schema map takes every key under it', () => {
    expect(unknownFields(outputShape('any'), ['whatever.deep'])).toEqual([]);
    expect(unknownFields(outputShape(Type.Object({ a: Type.Record(Type.String({ pattern: '^x' }), Type.String()) })), ['a.x1', 'b'])).toEqual(['b']);
  });
});
