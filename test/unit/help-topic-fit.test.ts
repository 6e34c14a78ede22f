// `cardctl help <topic>` fits the help width as command help does: the README's prose (wrapped
// near 100 columns) is wrapped again, list items under their text; examples and table rows are
// kept whole, code spans never split, and not a word is lost.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { bufferedIO } from '../../src/core/buffered-io.js';
import { fitTopic } from '../../src/help/fit.js';
import { HELP_TOPICS } from '../../src/help/topics.js';

/** An example (indented four) or a table row: kept whole. */
const example = (line: string) => /^( {4}|\|)/.test(line);
/** A line not wrapped: blank, an example, a table row, or a list item's continuation checked with its item. */
const kept = (line: string) => line.trim() === '' || /^\s/.test(line) || line.startsWith('|');
const words = (text: string) => text.split(/\s+/).filter(Boolean);

describe('help topics fitted to the width', () => {
  it.each(HELP_TOPICS.map((topic) => [topic.name, topic.text] as const))('%s: every prose line fits 80 columns (or is one word), nothing lost or reordered', (_name, text) => {
    const fitted = fitTopic(text, 80);
    expect(words(fitted)).toEqual(words(text));
    expect(fitted.split('\n').filter(example)).toEqual(text.split('\n').filter(example));
    const long = fitted.split('\n').filter((line) => !example(line) && line.length > 80 && /[^`] [^`]/.test(line.replace(/`[^`]*`/g, '``')));
    expect(long).toEqual([]);
  });

  it('wraps a list item under its text, keeps a code span whole and an example as it is', () => {
    const text = '1. one two three `a b c` four\n   five six\n\n    cardctl cards list --all -o ndjson   # an example, kept\n| a | b |';
    expect(fitTopic(text, 16)).toBe('1. one two three\n   `a b c` four\n   five six\n\n    cardctl cards list --all -o ndjson   # an example, kept\n| a | b |');
  });

  it('cardctl help TOPIC uses the terminal\'s width, 80 when piped', async () => {
    for (const [tty, columns, width] of [[true, 60, 60], [false, undefined, 80]] as const) {
      const io = bufferedIO({ tty, columns });
      expect(await main(['help', 'pin-encryption'], { io, env: {}, signal: new AbortController().signal })).toBe(0);
      const lines = io.stdoutText().split('\n').filter((line) => !kept(line));
      expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(width);
      expect(Math.max(...lines.map((line) => line.length))).toBeGreaterThan(width - 10);
    }
  });
});
