// Help is wrapped once, at the help width: no line of any command's help is followed by a line
// of the same paragraph whose first word would have fitted on it (a line broken short, as when
// the source's own line breaks and commander's wrapping both apply).
import { describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { commandTree } from '../../src/commands/index.js';
import { bufferedIO } from '../../src/core/buffered-io.js';
import { helpPaths } from '../helpers/help-paths.js';
import { reflowProse } from '../../src/app/run-cli.js';

/** Lines of `help` broken short at `width`: in the description, and in an option's or command's wrapped text. */
function brokenShort(help: string, width: number): string[] {
  const lines = help.split('\n');
  const found: string[] = [];
  let section = 'description';
  for (let i = 1; i < lines.length; i++) {
    const [above, line] = [lines[i - 1]!, lines[i]!];
    if (/^[A-Z][A-Za-z ]*:$/.test(line)) section = line;
    if (section === 'Examples:' || /^Usage:/.test(above) || !above.trim() || !line.trim() || above.endsWith(':')) continue;
    const indent = line.length - line.trimStart().length;
    // The description: prose at column 0 (an indented line or a list item keeps its own line).
    // A list of items: a continuation is indented past the item's own two columns.
    // A line that starts with a flag (--secret-stdin, -o json) is prose, not a list item ("- ").
    const continuation = section === 'description' ? indent === 0 && !/^([-*] |[|$])/.test(line) : indent > 2;
    const word = line.trimStart().split(' ')[0]!;
    if (continuation && above.length + 1 + word.length <= width) found.push(`${above}⏎${line}`);
  }
  return found;
}

/**
 * Lines of `help` (but its examples) that do not fit `width`: wider than it, or a line at column
 * 0 right under an indented one (a table row commander wrapped; reflowProse joins such a line).
 */
function overflowing(help: string, width: number): string[] {
  // Examples are commands to copy: kept whole on their line, whatever the width.
  const lines = help.split('\n\nExamples:\n')[0]!.split('\n');
  return lines.filter((line, i) => {
    const above = lines[i - 1] ?? '';
    const wrappedToColumn0 = /^\S/.test(line) && /^\s+\S/.test(above) && !/^([-*] |[|$])/.test(line) && !/^[A-Z][A-Za-z ]*:$/.test(line);
    return line.length > width || wrappedToColumn0;
  });
}

async function help(path: string[], width: number): Promise<string> {
  const io = bufferedIO({ tty: true, columns: width });
  expect(await main([...path, '--help'], { io, env: {}, signal: new AbortController().signal })).toBe(0);
  return io.stdoutText();
}

describe('help wrapping', () => {
  it.each([80, 120])('no line of any command\'s help is broken short at %i columns', async (width) => {
    const short: string[] = [];
    for (const path of helpPaths(commandTree)) {
      for (const line of brokenShort(await help(path, width), width)) short.push(`cardctl ${path.join(' ')} --help: ${line}`);
    }
    expect(short).toEqual([]);
  }, 60_000);

  it('at 80 columns every line of every command\'s help fits, none wrapped to column 0', async () => {
    const wide: string[] = [];
    for (const path of helpPaths(commandTree)) {
      for (const line of overflowing(await help(path, 80), 80)) wide.push(`cardctl ${path.join(' ')} --help: ${line}`);
    }
    expect(wide).toEqual([]);
  }, 60_000);

  it('paragraphs become one line each; blank lines, indented lines and list items stay', () => {
    expect(reflowProse('one\ntwo three\n\nnext\n  indented\n- item\n  more\n| a |\n$ cmd')).toBe('one two three\n\nnext\n  indented\n- item\n  more\n| a |\n$ cmd');
  });

  it('a line that starts with a flag joins its paragraph', () => {
    expect(reflowProse('verified with the secret from\n--secret-stdin or the profile\'s.\n-o json gives JSON.\n* item')).toBe('verified with the secret from --secret-stdin or the profile\'s. -o json gives JSON.\n* item');
  });
});
