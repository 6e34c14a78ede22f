// Floors that hold, over the import graph of src/ (type-only imports and dynamic import()
// included), read with the same parser as the import-cycle test:
// - an allow-list: every folder of src/ (and each file at its top) is a layer with a row naming
//   the layers it may import. A new folder without a row fails, and so does an import its row
//   does not grant. Two layers that import each other need a reason written in MUTUAL.
// - docs/architecture.json, the intended parts and what must never import what: every file of
//   src/ is on a part, no import breaks a never, and no row of the allow-list grants one.
// docs/architecture.md restates the allow-list as a table; it is held equal to ALLOWED here.
import { readFileSync } from 'node:fs';
import { parseDependencyTree, type DependencyTree } from 'dpdm';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * Layer → the layers it may import (its own files always). From the ground up: plain data and
 * protocols, then the API client and what it reads, the contract commands are written against,
 * the runners and servers, the commands, and the composition root on top.
 */
const ALLOWED: Record<string, readonly string[]> = {
  'version.ts': [],
  core: [],
  iso8583: ['core'],
  'webhook-protocol': ['core', 'iso8583'],
  config: ['core'],
  audit: ['core', 'config'],
  pin: ['core', 'config'],
  api: ['core', 'config', 'iso8583', 'webhook-protocol'],
  output: ['core', 'api', 'iso8583', 'webhook-protocol'],
  contract: ['core', 'config', 'audit', 'api', 'output'],
  sandbox: ['version.ts', 'core', 'iso8583', 'webhook-protocol', 'api'],
  deployment: ['core', 'api'],
  bulk: ['core', 'pin', 'api'],
  scenario: ['core', 'iso8583', 'api', 'sandbox'],
  listener: ['core', 'iso8583', 'webhook-protocol', 'api'],
  help: ['version.ts', 'core', 'api', 'output', 'contract', 'bulk'],
  completion: ['core', 'config', 'api', 'help'],
  aliases: ['core', 'output', 'contract'],
  load: ['core', 'iso8583', 'webhook-protocol', 'api', 'output', 'contract'],
  certify: ['core', 'iso8583', 'webhook-protocol', 'pin', 'api', 'load'],
  mcp: ['version.ts', 'core', 'pin', 'api', 'contract', 'help'],
  commands: [
    'version.ts', 'core', 'iso8583', 'webhook-protocol', 'config', 'audit', 'pin', 'api', 'output', 'contract', 'sandbox',
    'deployment', 'bulk', 'scenario', 'listener', 'help', 'completion', 'aliases', 'load', 'certify', 'mcp',
  ],
  app: ['version.ts', 'core', 'config', 'audit', 'api', 'output', 'contract', 'help', 'completion', 'aliases', 'commands'],
};

/** Pairs of layers allowed to import each other, each with why: none. */
const MUTUAL: Record<string, string> = {};

/** The layer of a module under `root`: its first folder there, or its own name at the top. */
function layerOf(file: string, root: string): string {
  return file.slice(root.length).split('/')[0]!;
}

/** Every import between two modules under `root`, as [from, to]. */
function importsUnder(tree: DependencyTree, root: string): Array<[string, string]> {
  return Object.entries(tree)
    .filter(([file]) => file.startsWith(root))
    .flatMap(([file, dependencies]) => (dependencies ?? [])
      .map((dependency) => dependency.id)
      .filter((id): id is string => typeof id === 'string' && id.startsWith(root))
      .map((id): [string, string] => [file, id]));
}

/** The layers of `root` that have no row in `allowed`. */
function layersWithoutRow(tree: DependencyTree, root: string, allowed: Record<string, readonly string[]>): string[] {
  const layers = new Set(Object.keys(tree).filter((file) => file.startsWith(root)).map((file) => layerOf(file, root)));
  return [...layers].filter((layer) => !Object.hasOwn(allowed, layer)).sort();
}

/** Every import of a module under `root` into a layer its row does not grant, as `from -> to`. */
function forbiddenImports(tree: DependencyTree, root: string, allowed: Record<string, readonly string[]>): string[] {
  return importsUnder(tree, root)
    .filter(([from, to]) => {
      const [a, b] = [layerOf(from, root), layerOf(to, root)];
      return a !== b && !(allowed[a] ?? []).includes(b);
    })
    .map(([from, to]) => `${from} -> ${to}`);
}

/** Pairs of layers that grant each other, without a reason in `mutual`, as `a <-> b`. */
function unexplainedMutual(allowed: Record<string, readonly string[]>, mutual: Record<string, string>): string[] {
  return Object.entries(allowed).flatMap(([a, granted]) => granted
    .filter((b) => a < b && (allowed[b] ?? []).includes(a))
    .map((b) => `${a} <-> ${b}`)
    .filter((pair) => !mutual[pair]));
}

interface Drawing {
  parts: Record<string, { is: string[] }>;
  never: Array<[string, string, string?]>;
}

/** The part of the drawing a file is on (by the longest path that holds it), if any. */
function partOf(drawing: Drawing, file: string): string | undefined {
  let found: { part: string; length: number } | undefined;
  for (const [part, { is }] of Object.entries(drawing.parts)) {
    for (const path of is) {
      const holds = path.endsWith('/') ? file.startsWith(path) : file === path;
      if (holds && path.length > (found?.length ?? -1)) found = { part, length: path.length };
    }
  }
  return found?.part;
}

/** Every import that breaks a never of the drawing, as `A -> B: from -> to`. */
function brokenNevers(tree: DependencyTree, root: string, drawing: Drawing): string[] {
  const never = new Set(drawing.never.map(([a, b]) => `${a} -> ${b}`));
  return importsUnder(tree, root).flatMap(([from, to]) => {
    const pair = `${partOf(drawing, from)} -> ${partOf(drawing, to)}`;
    return never.has(pair) ? [`${pair}: ${from} -> ${to}`] : [];
  });
}

const readDrawing = (path: string): Drawing => JSON.parse(readFileSync(path, 'utf8')) as Drawing;

let tree: DependencyTree;
beforeAll(async () => {
  tree = await parseDependencyTree('src/**/*.ts', { context: process.cwd(), tsconfig: 'tsconfig.json', transform: false, skipDynamicImports: false });
}, 60_000);

describe('layers: the allow-list', () => {
  it('has a row for every folder of src/ and each file at its top', () => {
    expect(layersWithoutRow(tree, 'src/', ALLOWED)).toEqual([]);
  });

  it('names only layers that exist', () => {
    const layers = new Set(Object.keys(tree).filter((file) => file.startsWith('src/')).map((file) => layerOf(file, 'src/')));
    const named = [...Object.keys(ALLOWED), ...Object.values(ALLOWED).flat()];
    expect(named.filter((layer) => !layers.has(layer))).toEqual([]);
  });

  it('no module of src/ imports a layer its row does not grant', () => {
    expect(forbiddenImports(tree, 'src/', ALLOWED)).toEqual([]);
  });

  it('no two layers may import each other without a reason', () => {
    expect(unexplainedMutual(ALLOWED, MUTUAL)).toEqual([]);
  });

  it('is the table of docs/architecture.md', () => {
    const text = readFileSync('docs/architecture.md', 'utf8');
    const table = text.slice(text.indexOf('| Layer | May import |')).split('\n\n')[0]!;
    const sorted = (rows: Record<string, readonly string[]>) => Object.fromEntries(Object.entries(rows).map(([layer, granted]) => [layer, [...granted].sort()]));
    const documented = Object.fromEntries([...table.matchAll(/^ *\| `([\w.-]+?)\/?` \| (.*) \|$/gm)].map(([, layer, cell]) => {
      const named = [...cell!.matchAll(/`([\w.-]+?)\/?`/g)].map((m) => m[1]!);
      // "every layer but `app/`": the top row, written by what it may not import.
      const granted = cell === 'nothing' ? [] : cell!.startsWith('every layer but') ? Object.keys(ALLOWED).filter((other) => other !== layer && !named.includes(other)) : named;
      return [layer!, granted];
    }));
    expect(sorted(documented)).toEqual(sorted(ALLOWED));
  });
});

describe('layers: docs/architecture.json', () => {
  const drawing = readDrawing('docs/architecture.json');

  it('places every file of src/ on a part', () => {
    expect(Object.keys(tree).filter((file) => file.startsWith('src/') && !partOf(drawing, file))).toEqual([]);
  });

  it('no import breaks a never', () => {
    expect(brokenNevers(tree, 'src/', drawing)).toEqual([]);
  });

  it('no row of the allow-list grants a never', () => {
    const representative = (layer: string) => (layer.endsWith('.ts') ? `src/${layer}` : `src/${layer}/x.ts`);
    const never = new Set(drawing.never.map(([a, b]) => `${a} -> ${b}`));
    const granted = Object.entries(ALLOWED).flatMap(([a, layers]) => layers.map((b) => [a, b] as const));
    expect(granted.filter(([a, b]) => never.has(`${partOf(drawing, representative(a))} -> ${partOf(drawing, representative(b))}`))).toEqual([]);
  });
});

describe('layers: the checks can fail (test/fixtures/layers)', () => {
  const root = 'test/fixtures/layers/';
  let fixture: DependencyTree;
  beforeAll(async () => {
    fixture = await parseDependencyTree(`${root}**/*.ts`, { context: process.cwd(), transform: false });
  });
  const allowed = { core: [], output: ['core'] };

  it('a folder without a row', () => {
    expect(layersWithoutRow(fixture, root, allowed)).toEqual(['stray']);
  });

  it('the ground floor importing from above', () => {
    expect(forbiddenImports(fixture, root, allowed)).toEqual([`${root}core/ground.ts -> ${root}output/above.ts`]);
  });

  it('two layers granting each other without a reason', () => {
    const both = { core: ['output'], output: ['core'] };
    expect(unexplainedMutual(both, {})).toEqual(['core <-> output']);
    expect(unexplainedMutual(both, { 'core <-> output': 'a reason' })).toEqual([]);
  });

  it('a never broken', () => {
    expect(brokenNevers(fixture, root, readDrawing(`${root}architecture.json`))).toEqual([`Ground -> Above: ${root}core/ground.ts -> ${root}output/above.ts`]);
  });
});
