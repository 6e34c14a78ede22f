// Where the sandbox ends: the CLI takes from src/sandbox/ only what starts a sandbox (`sandbox
// serve`, `demo`, `webhook certify`, a scenario's sandbox); `webhook listen` shares the webhook protocol with the
// switch through src/webhook-protocol/ and loads nothing of the sandbox; the sandbox's store
// knows nothing of the switch. Read from the same graph as the import-cycle test.
import { parseDependencyTree, type DependencyTree } from 'dpdm';
import { beforeAll, describe, expect, it } from 'vitest';

/** The modules outside src/sandbox/ that start a sandbox, and so may import it. */
const STARTERS = ['src/commands/sandbox/', 'src/commands/demo.ts', 'src/commands/webhook/certify-run.ts', 'src/scenario/'];

let tree: DependencyTree;
beforeAll(async () => {
  tree = await parseDependencyTree('src/**/*.ts', { context: process.cwd(), tsconfig: 'tsconfig.json', transform: false, skipDynamicImports: false });
}, 60_000);

function importsOf(file: string): string[] {
  return (tree[file] ?? []).map((dependency) => dependency.id).filter((id): id is string => typeof id === 'string');
}

/** Every module `file` loads, directly or through others. */
function reachableFrom(file: string): Set<string> {
  const seen = new Set<string>();
  const queue = [file];
  while (queue.length > 0) {
    for (const id of importsOf(queue.pop()!)) if (!seen.has(id)) { seen.add(id); queue.push(id); }
  }
  return seen;
}

describe('the sandbox boundary', () => {
  it('only the modules that start a sandbox import it from outside', () => {
    const crossing = Object.keys(tree)
      .filter((file) => file.startsWith('src/') && !file.startsWith('src/sandbox/'))
      .filter((file) => !STARTERS.some((starter) => file.startsWith(starter)))
      .flatMap((file) => importsOf(file).filter((id) => id.startsWith('src/sandbox/')).map((id) => `${file} -> ${id}`));
    expect(crossing).toEqual([]);
  });

  it('webhook listen loads nothing of the sandbox', () => {
    const loaded = [...reachableFrom('src/commands/webhook/listen.ts')].filter((id) => id.startsWith('src/sandbox/'));
    expect(loaded).toEqual([]);
  });

  it("the sandbox's store imports nothing from the switch", () => {
    const crossing = Object.keys(tree)
      .filter((file) => file.startsWith('src/sandbox/store/'))
      .flatMap((file) => importsOf(file).filter((id) => id.startsWith('src/sandbox/switch/')).map((id) => `${file} -> ${id}`));
    expect(crossing).toEqual([]);
  });
});
