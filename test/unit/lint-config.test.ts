// The linter's promised rules can fail: fixtures holding each violation are linted with the
// project's own .oxlintrc.json (and its local plugin), and every one must be reported; the
// lookalikes that are fine must not be. `npm run lint` runs first in `npm test` and denies warnings.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../helpers/dirs.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OXLINT = join(ROOT, 'node_modules', '.bin', 'oxlint');
const CONFIG = join(ROOT, '.oxlintrc.json');

interface Diagnostic { code: string; filename: string; labels: Array<{ span: { line: number } }> }

/** Lints `files` (name → text) in a fresh directory with the project's config: each finding as `file:line rule`. */
async function lint(files: Record<string, string>): Promise<string[]> {
  const dir = scratchDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  // oxlint exits 1 when it finds something; its JSON report is on stdout either way.
  const stdout = await promisify(execFile)(OXLINT, ['-c', CONFIG, '-f', 'json', dir], { cwd: ROOT })
    .then((done) => done.stdout, (failed: { stdout?: string }) => failed.stdout ?? '');
  const { diagnostics } = JSON.parse(stdout) as { diagnostics: Diagnostic[] };
  return diagnostics
    .map((d) => `${d.filename.slice(dir.length + 1)}:${d.labels[0]?.span.line ?? 0} ${d.code}`)
    .sort();
}

const lines = (count: number) => Array.from({ length: count }, (_, i) => `export const line${i} = ${i};`).join('\n');

describe('lint rules', () => {
  it('reports an explicit any, as never, <never>x, as unknown as T (parenthesized too)', async () => {
    const found = await lint({
      'escapes.ts': [
        'export const loose: any = 1;',
        'export const never1 = loose as never;',
        'export const never2 = <never>loose;',
        'export const through = loose as unknown as string;',
        'export const parenthesized = (loose as unknown) as number;',
        'export const angled = <string><unknown>loose;',
        'export function list(values: Array<any>): number { return values.length; }',
      ].join('\n'),
    });
    expect(found).toEqual([
      'escapes.ts:1 typescript(no-explicit-any)',
      'escapes.ts:2 cardctl(no-type-escape)',
      'escapes.ts:3 cardctl(no-type-escape)',
      'escapes.ts:4 cardctl(no-type-escape)',
      'escapes.ts:5 cardctl(no-type-escape)',
      'escapes.ts:6 cardctl(no-type-escape)',
      'escapes.ts:7 typescript(no-explicit-any)',
    ]);
  });

  it('lets the honest lookalikes through: a checked as, unknown itself, never as a type', async () => {
    const found = await lint({
      'fine.ts': [
        'const raw: unknown = JSON.parse("{}");',
        'export const record = raw as Record<string, unknown>;',
        'export const widened = 1 as unknown;',
        'export const fails = async (): Promise<never> => { throw new Error("x"); };',
        'export const same = { a: 1 } satisfies { a: number };',
      ].join('\n'),
    });
    expect(found).toEqual([]);
  });

  it('allows 450 lines a file and reports the 451st, every line counted (blank and comments too)', async () => {
    const found = await lint({
      'at-limit.ts': lines(450),
      'over-limit.ts': `${lines(449)}\n\n// one comment too many`,
      'script.mjs': lines(451),
    });
    expect(found).toEqual(['over-limit.ts:451 eslint(max-lines)', 'script.mjs:451 eslint(max-lines)']);
  });

  it('is part of npm test, before the tests, and fails on warnings', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.lint).toMatch(/^oxlint --deny-warnings /);
    // Everything linted: the sources, the browser script of the inspector beneath them, the scripts, benchmarks and tests.
    expect(scripts.lint!.split(' ').slice(2)).toEqual(['src', 'bin', 'scripts', 'bench', 'test']);
    expect(scripts.test).toMatch(/^npm run lint && .*vitest run$/);
  });
});
