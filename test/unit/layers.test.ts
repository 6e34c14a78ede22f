// Floors that hold: each layer of src/ (a folder, or a file at its top) and what it may not
// import, type-only imports and dynamic import() included. Dependencies point down: core/ is the
// ground floor; api/, config/, audit/ and output/ stand on it; commands/ are the top, which only
// app/ (the composition root: the context, the command tree, the entry) imports. The sandbox
// stands beside the CLI, not on it. Read from the same graph as the import-cycle test.
import { parseDependencyTree, type DependencyTree } from 'dpdm';
import { beforeAll, describe, expect, it } from 'vitest';

/** The layers named, or every layer but those named (for the floors that may import only a few). */
type Forbidden = readonly string[] | { allBut: readonly string[] };
const allBut = (...allowed: string[]): Forbidden => ({ allBut: allowed });
const namedIn = (rule: Forbidden): readonly string[] => ('allBut' in rule ? rule.allBut : rule);

/** Layer → the layers it may not import. */
const RULES: Record<string, Forbidden> = {
  core: allBut('iso8583'),
  iso8583: allBut('core'),
  'webhook-protocol': allBut('core', 'iso8583'),
  api: ['app', 'commands', 'output', 'sandbox', 'scenario', 'load'],
  config: ['app', 'commands', 'output', 'sandbox', 'scenario', 'load'],
  audit: ['app', 'commands', 'output', 'sandbox', 'scenario', 'load'],
  pin: ['app', 'commands', 'output', 'sandbox', 'scenario', 'load'],
  output: ['app', 'commands', 'sandbox', 'scenario', 'load'],
  sandbox: ['app', 'commands', 'output', 'config', 'audit', 'pin', 'scenario', 'load', 'help', 'completion', 'aliases'],
  scenario: ['app', 'commands'],
  certify: ['app', 'commands', 'output', 'sandbox'],
  mcp: ['commands', 'sandbox', 'scenario', 'load'],
};
/** The top floor: no layer but app/ (and commands/ itself) imports it. */
const TOP = 'commands';
const TOP_IMPORTED_BY = ['app'];

/** The layer of a module under `root`: its first folder there, or its own name at the top. */
function layerOf(file: string, root: string): string {
  return file.slice(root.length).split('/')[0]!;
}

/** Every import of a module under `root` that crosses into a layer it may not import, as `from -> to`. */
function forbiddenImports(tree: DependencyTree, root: string, rules: Record<string, Forbidden>, top?: { layer: string; importedBy: string[] }): string[] {
  const files = Object.keys(tree).filter((file) => file.startsWith(root));
  const layers = new Set(files.map((file) => layerOf(file, root)));
  const forbidden = (from: string): Set<string> => {
    const rule = rules[from] ?? [];
    const named = 'allBut' in rule ? [...layers].filter((layer) => !rule.allBut.includes(layer)) : rule;
    const all = new Set(named);
    if (top && from !== top.layer && !top.importedBy.includes(from)) all.add(top.layer);
    all.delete(from);
    return all;
  };
  return files.flatMap((file) => {
    const from = layerOf(file, root);
    const refused = forbidden(from);
    return (tree[file] ?? [])
      .map((dependency) => dependency.id)
      .filter((id): id is string => typeof id === 'string' && id.startsWith(root) && refused.has(layerOf(id, root)))
      .map((id) => `${file} -> ${id}`);
  });
}

let tree: DependencyTree;
beforeAll(async () => {
  tree = await parseDependencyTree('src/**/*.ts', { context: process.cwd(), tsconfig: 'tsconfig.json', transform: false, skipDynamicImports: false });
}, 60_000);

describe('layers', () => {
  it('no module of src/ imports a layer its floor may not', () => {
    expect(forbiddenImports(tree, 'src/', RULES, { layer: TOP, importedBy: TOP_IMPORTED_BY })).toEqual([]);
  });

  it('every layer a rule names is a folder or file of src/', () => {
    const layers = new Set(Object.keys(tree).filter((file) => file.startsWith('src/')).map((file) => layerOf(file, 'src/')));
    const named = [...Object.keys(RULES), ...Object.values(RULES).flatMap(namedIn), TOP, ...TOP_IMPORTED_BY];
    expect(named.filter((layer) => !layers.has(layer))).toEqual([]);
  });

  it('a forbidden import is reported: the ground floor importing from above', async () => {
    const fixture = await parseDependencyTree('test/fixtures/layers/**/*.ts', { context: process.cwd(), transform: false });
    expect(forbiddenImports(fixture, 'test/fixtures/layers/', { core: allBut() })).toEqual(['test/fixtures/layers/core/ground.ts -> test/fixtures/layers/output/above.ts']);
  });
});
