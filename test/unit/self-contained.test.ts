// The repository explains itself: someone who clones it has nothing else, so no file may send
// them to a document kept outside it or to a tracker's issue number. What such a pointer
// stood for belongs in docs/, README.md, RELIABILITY.md or BENCHMARKS.md, said in full. And the
// pointers that stay inside must lead somewhere: every path a document names exists.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * What a pointer outside the repository looks like, and why each is refused. `unlessInside`:
 * allowed when the match is a path to a directory the repository has (a "shared" folder of its own).
 * Spelled so that no pattern matches its own source.
 */
const OUTSIDE_POINTERS: ReadonlyArray<{ pattern: RegExp; what: string; unlessInside?: boolean }> = [
  { pattern: /[\w.@/-]*shared\//i, what: 'a directory of notes outside the repository', unlessInside: true },
  { pattern: /\bCLI\.md\b/i, what: 'an outside command-line contract (docs/command-contract.md)' },
  { pattern: /API-DECISION[S]/i, what: 'an outside list of API decisions (docs/sandbox-api.md, pin.md, switch.md)' },
  { pattern: /\bSTYLE\.md\b/i, what: 'an outside style guide (docs/architecture.md)' },
  { pattern: /api-referenc[e]/i, what: 'an outside copy of the API reference' },
  { pattern: /\bissue\s*#?\d+/i, what: 'an issue number' },
  { pattern: /[(]issue\b/i, what: 'an issue reference' },
  // A number sign and digits, as trackers link issues; not PKCS#8, an HTML entity (&#123;) or a URL fragment (/#1).
  { pattern: /(?<![\w&/#])#\d+\b/, what: 'an issue number' },
];

/** Every pointer outside the repository in `text` (the content of `file`), as `line: match (what)`. */
function outsidePointers(text: string, file: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    for (const { pattern, what, unlessInside } of OUTSIDE_POINTERS) {
      for (const [match] of line.matchAll(new RegExp(pattern.source, `${pattern.flags}g`))) {
        if (!(unlessInside && isRepositoryDirectory(match, file))) found.push(`${index + 1}: "${match}" (${what})`);
      }
    }
  });
  return found;
}

/** Whether `path`, written in `file` (relative to it when it starts with a dot), is a directory of the repository. */
function isRepositoryDirectory(path: string, file: string): boolean {
  if (path.startsWith('/')) return false;
  const resolved = join(ROOT, path.startsWith('.') ? dirname(file) : '', path);
  return resolved.startsWith(ROOT) && existsSync(resolved);
}

/** The files of the repository: tracked ones and new ones not ignored (so a new page counts before it is added). */
function repositoryFiles(): string[] {
  const listing = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(listing.split('\0').filter(Boolean))];
}

/** The top-level directories a document may point into. */
const TOP_DIRECTORIES = ['bench', 'bin', 'completions', 'docs', 'examples', 'scripts', 'src', 'test'];

/**
 * The repository paths `text` names: in a Markdown file, code spans and link targets that start
 * with a top-level directory or end in `.md` (link targets relative to the file); in any file,
 * mentions of a page under docs/.
 */
function namedPaths(file: string, text: string): string[] {
  const named = [...text.matchAll(/\bdocs\/[\w-]+\.md\b/g)].map((m) => m[0]);
  if (file.endsWith('.md')) {
    const top = new RegExp(`^(?:${TOP_DIRECTORIES.join('|')})/\\S+$`);
    for (const [, span, link] of text.matchAll(/`([^`\s]+)`|\]\(([^)\s#]+)/g)) {
      const candidate = span ?? link!;
      if (/^[a-z]+:/.test(candidate)) continue; // a URL
      if (top.test(candidate)) named.push(candidate);
      else if (link !== undefined && candidate.endsWith('.md')) named.push(join(dirname(file), candidate));
    }
  }
  return named;
}

/** Whether a named path exists; a pattern (`bench/*.mjs`, `columns/<resource>.ts`) needs its directory. */
function exists(path: string): boolean {
  const wildcard = path.search(/[*<{]/);
  return existsSync(join(ROOT, wildcard === -1 ? path : dirname(path.slice(0, wildcard + 1))));
}

describe('the repository is self-contained', () => {
  it('recognises pointers outside the repository, and leaves ordinary text alone', () => {
    // Built from pieces, so that this file does not hold what it looks for.
    const pointers = [
      `Read ../${'shared'}/ first`, `the table of CLI${'.md'}`, `API-${'DECISIONS'}.md`, `STYLE${'.md'} says`,
      `api-${'reference'}.md`, `(${'issue'} 3)`, `${'Issue'} 8's aim`, `fixed in ${'#'}12`, `see ${'issue'} ${'#'}4`,
    ];
    for (const text of pointers) expect(outsidePointers(text, 'README.md'), text).not.toEqual([]);
    const ordinary = ['PKCS#8 and PKCS#1 keys', 'Issue a card', 'the issued numbers (issued twice)', '&#123;', 'https://example.com/#1', 'src/commands/cards/shared.ts', 'the program issues 16-digit numbers'];
    for (const text of ordinary) expect(outsidePointers(text, 'README.md'), text).toEqual([]);
    expect(isRepositoryDirectory('src/api/', 'README.md')).toBe(true);
    expect(isRepositoryDirectory('../api/', 'src/core/errors.ts')).toBe(true);
    expect(isRepositoryDirectory('../', 'README.md')).toBe(false);
    expect(isRepositoryDirectory(`/work/${'shared'}/`, 'README.md')).toBe(false);
  });

  it('has no file that points outside it', () => {
    const files = repositoryFiles();
    expect(files).toContain('README.md');
    const findings: string[] = [];
    for (const file of files) {
      let content: Buffer;
      try {
        content = readFileSync(join(ROOT, file));
      } catch {
        continue; // listed but deleted in the working tree
      }
      if (content.includes(0)) continue; // binary
      for (const finding of outsidePointers(content.toString('utf8'), file)) findings.push(`${file}:${finding}`);
    }
    expect(findings).toEqual([]);
  });

  it('names only files that exist in it', () => {
    const missing: string[] = [];
    for (const file of repositoryFiles()) {
      if (!/\.(md|ts|mjs|js)$/.test(file) || !existsSync(join(ROOT, file))) continue;
      for (const path of namedPaths(file, readFileSync(join(ROOT, file), 'utf8'))) {
        if (!exists(path)) missing.push(`${file}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
