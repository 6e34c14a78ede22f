// No import cycles anywhere in src/, type-only imports and dynamic import() included: a cycle
// means two modules that cannot be understood (or loaded, or tested) one without the other.
// dpdm reads the TypeScript sources themselves, so `import type` counts as much as a value import.
import { parseCircular, parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

describe('imports', () => {
  it('form no cycle in src/', async () => {
    const tree = await parseDependencyTree('src/**/*.ts', { context: process.cwd(), tsconfig: 'tsconfig.json', transform: false, skipDynamicImports: false });
    const cycles = parseCircular(tree).map((cycle) => cycle.join(' -> '));
    expect(cycles).toEqual([]);
  }, 60_000);

  it('are read with their types: a type-only cycle is found', async () => {
    const tree = await parseDependencyTree('test/fixtures/import-cycle/a.ts', { context: process.cwd(), transform: false });
    expect(parseCircular(tree).map((cycle) => cycle.join(' -> '))).toEqual(['test/fixtures/import-cycle/a.ts -> test/fixtures/import-cycle/b.ts']);
  });
});
