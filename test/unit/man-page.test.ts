// The man page: the committed man/cardctl.1 is what the help source renders (node
// scripts/build.mjs rewrites it), it documents every command, flag and help topic, and groff
// renders it without a warning.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram, PROGRAM_EXAMPLES, renderManPage } from '../../src/app/cli.js';
import { commandTree } from '../../src/commands/index.js';
import { manCommandPaths, manSectionOf, MAN_PAGE_FILE } from '../../src/help/man-page.js';
import { helpPaths } from '../helpers/help-paths.js';
import { HELP_TOPICS } from '../../src/help/topics.js';

const committed = readFileSync(new URL(`../../${MAN_PAGE_FILE}`, import.meta.url), 'utf8');
const source = { program: buildProgram(commandTree), tree: commandTree, examples: PROGRAM_EXAMPLES };

/** The page as text, the way man(1) would show it (escapes undone, no formatting). */
function plain(roff: string): string {
  return roff
    .replace(/\\\[u([0-9A-F]{4,5})\]/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/\\f[BIR]|\\&|\\:/g, '')
    .replace(/\\\(dq/g, '"')
    .replace(/\\-/g, '-')
    .replace(/\\e/g, '\\');
}

function installed(tool: string): boolean {
  return spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
}

let generated: string;
beforeAll(async () => {
  generated = await renderManPage();
});

describe('man/cardctl.1', () => {
  it('is what the help source renders (run `node scripts/build.mjs` if not)', () => {
    expect(committed).toBe(generated);
  });

  it('has a subsection for every command and group, under its full path', () => {
    const paths = manCommandPaths(source);
    // Every path that answers --help, aliases aside.
    const canonical = helpPaths(commandTree).filter((path) => path.length > 0 && !isAliasPath(path));
    expect(paths.sort()).toEqual(canonical.map((p) => p.join(' ')).sort());
    for (const path of paths) expect(generated).toContain(`.SS "cardctl ${path.replace(/-/g, '\\-')}"`);
  });

  it('lists every flag of every command, and the global ones', () => {
    const page = plain(generated);
    const walk = (command: ReturnType<typeof buildProgram>): void => {
      for (const option of command.options) if (!option.hidden) expect(page, option.flags).toContain(option.flags);
      command.commands.forEach(walk);
    };
    walk(buildProgram(commandTree));
  });

  it('has a section for every help topic, with its text', () => {
    const page = plain(generated);
    for (const topic of HELP_TOPICS) {
      expect(generated).toContain(`.SH "${manSectionOf(topic)}"`);
      // Each topic's first sentence, as filled text.
      const first = topic.text.split('\n')[0]!.replace(/`/g, '');
      expect(page, topic.name).toContain(first);
    }
    expect(HELP_TOPICS.map(manSectionOf)).toEqual(expect.arrayContaining(['EXIT STATUS', 'ENVIRONMENT', 'FILES']));
  });

  it('keeps text from being read as roff requests or escapes', () => {
    for (const line of generated.split('\n')) {
      if (/^[.']/.test(line)) expect(line, line).toMatch(/^\.(TH|SH|SS|PP|TP|IP|RS|RE|nf|fi|br|B|BR|ad|nh)( |$)/);
    }
    // A backslash in the help text (a template's \t) is \e on the page.
    expect(generated).toContain("'{{.id}}\\et{{.status}}'");
  });

  it.skipIf(!installed('groff'))('renders with groff without a warning (skipped when groff is not installed)', () => {
    const result = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', MAN_PAGE_FILE], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it.skipIf(!installed('man'))('`man -l` shows it without a warning (skipped when man is not installed)', () => {
    const result = spawnSync('man', ['-l', MAN_PAGE_FILE], { encoding: 'utf8', env: { ...process.env, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' } });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^CARDCTL\(1\)/);
    expect(result.stdout).toContain('EXIT STATUS');
  });
});

/** `cards ls` and the like: a path through an alias, which the page names under the command. */
function isAliasPath(path: string[]): boolean {
  let nodes: ReadonlyArray<{ name: string; aliases?: string[]; commands?: unknown }> = commandTree;
  for (const word of path) {
    const node = nodes.find((n) => n.name === word || n.aliases?.includes(word));
    if (!node || node.name !== word) return true;
    nodes = (node.commands as typeof nodes | undefined) ?? [];
  }
  return false;
}
