// No dead code behind an `export`: every name a module of src/ exports is named somewhere else
// than where it is declared (its own file, another module, a test, a script or a benchmark).
// Counted by identifier over the repository's sources, which is coarse the right way: a name
// that occurs only once, at its declaration, is surely used by nothing.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const SOURCE = /\.(ts|mts|mjs|js|cjs)$/;
const DECLARED_EXPORT = /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;

/** Every tracked source file under `dirs`, with its text. */
function sources(dirs: string[]): Map<string, string> {
  const listing = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', ...dirs], { encoding: 'utf8' });
  return new Map(listing.split('\0').filter((file) => SOURCE.test(file)).map((file) => [file, readFileSync(file, 'utf8')]));
}

/** `file: name` for each declared export of a src/ module whose name occurs nowhere but at its declaration. */
function deadExports(files: Map<string, string>): string[] {
  const occurrences = new Map<string, number>();
  for (const text of files.values()) {
    for (const [word] of text.matchAll(/[A-Za-z_$][\w$]*/g)) occurrences.set(word, (occurrences.get(word) ?? 0) + 1);
  }
  return [...files].filter(([file]) => file.startsWith('src/')).flatMap(([file, text]) =>
    [...text.matchAll(DECLARED_EXPORT)].map((match) => match[1]!).filter((name) => occurrences.get(name) === 1).map((name) => `${file}: ${name}`));
}

describe('exports', () => {
  it('every export of src/ is used somewhere', () => {
    expect(deadExports(sources(['src', 'test', 'scripts', 'bench', 'bin']))).toEqual([]);
  });

  it('an export named nowhere else is reported', () => {
    const files = new Map([
      ['src/a.ts', 'export function used() {}\nexport const forgotten = 1;\n'],
      ['src/b.ts', "import { used } from './a.js';\nused();\n"],
    ]);
    expect(deadExports(files)).toEqual(['src/a.ts: forgotten']);
  });
});
