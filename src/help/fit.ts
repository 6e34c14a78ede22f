// A help topic fitted to the help width. Topics are README prose, wrapped near 100 columns; a
// terminal, or a pipe (80, as command help), may be narrower. Prose paragraphs and list items are
// wrapped again at the width, a list item's lines under its text; indented examples and table rows
// are kept whole: they are commands to copy and rows to read.

/** A list item's mark: "- ", "* " or "1. ". */
const ITEM = /^(?:[-*]|\d+\.) /;

/** A line kept as it is: blank, indented (an example), or a table row. */
const kept = (line: string) => line.trim() === '' || /^\s/.test(line) || line.startsWith('|');

export function fitTopic(text: string, width: number): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    const first = lines[i]!;
    i++;
    if (kept(first)) {
      out.push(first);
      continue;
    }
    const mark = ITEM.exec(first)?.[0] ?? '';
    const hang = ' '.repeat(mark.length);
    const words = [first.slice(mark.length)];
    // The paragraph's (or the item's) next lines: at column 0 for prose, under the text for an item.
    for (; i < lines.length; i++) {
      const next = lines[i]!;
      const continues = mark ? next.startsWith(hang) && !kept(next.slice(hang.length)) : !kept(next) && !ITEM.test(next);
      if (!continues) break;
      words.push(next.trim());
    }
    out.push(...wrapWords(wordsOf(words.join(' ')), width, mark, hang));
  }
  return out.join('\n');
}

/** The words of a paragraph; a `code span` is never split (a command stays on one line). */
function wordsOf(paragraph: string): string[] {
  const words: string[] = [];
  let word = '';
  let inCode = false;
  for (const char of paragraph) {
    if (char === '`') inCode = !inCode;
    if (char === ' ' && !inCode) {
      if (word) words.push(word);
      word = '';
    } else word += char;
  }
  if (word) words.push(word);
  return words;
}

/** Words filled greedily into lines of at most `width` (a longer word alone on its line). */
function wrapWords(words: readonly string[], width: number, first: string, rest: string): string[] {
  const lines: string[] = [];
  let line = first;
  let prefix = first;
  for (const word of words) {
    if (line.length > prefix.length && line.length + 1 + word.length > width) {
      lines.push(line);
      line = prefix = rest;
    }
    line += line.length > prefix.length ? ` ${word}` : word;
  }
  lines.push(line);
  return lines;
}
