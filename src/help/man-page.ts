// The man page, man/cardctl.1: written by scripts/build.mjs from the same sources as `--help`
// and `cardctl help <topic>` (the command definitions, the commander tree built from them, and
// src/help/topics.ts), so it cannot say anything the help does not. test/unit/man-page.test.ts
// keeps the committed page equal to what this renders, and renders it with groff.
import type { Command, Help, Option } from 'commander';
import { type AnyCommand, type GroupDefinition, isGroup } from '../contract/command.js';
import { VERSION } from '../version.js';
import { HELP_TOPICS, type HelpTopic } from './topics.js';

export const MAN_PAGE_FILE = 'man/cardctl.1';

/** Sections whose man(7) name differs from the topic's own. */
const SECTION_OF_TOPIC: Readonly<Record<string, string>> = { 'exit-codes': 'EXIT STATUS' };

export function manSectionOf(topic: HelpTopic): string {
  return SECTION_OF_TOPIC[topic.name] ?? topic.name.replace(/-/g, ' ').toUpperCase();
}

export interface ManPageSource {
  /** The root program as buildProgram() makes it: usage, option terms and their help lines. */
  program: Command;
  /** The command definitions the program was built from: descriptions and examples. */
  tree: ReadonlyArray<AnyCommand | GroupDefinition>;
  /** The root program's help examples. */
  examples: readonly string[];
}

/** A command of the tree with its commander counterpart, depth first. */
interface Node {
  path: string[];
  definition: AnyCommand | GroupDefinition;
  command: Command;
}

function* walk(tree: ReadonlyArray<AnyCommand | GroupDefinition>, parent: Command, path: string[] = []): Generator<Node> {
  for (const definition of tree) {
    const command = parent.commands.find((c) => c.name() === definition.name);
    if (!command) throw new Error(`${[...path, definition.name].join(' ')}: not in the commander tree`);
    const node = { path: [...path, definition.name], definition, command };
    yield node;
    if (isGroup(definition)) yield* walk(definition.commands, command, node.path);
  }
}

/** Every command path the page documents ("cards list", "tx", …), in page order. */
export function manCommandPaths(source: ManPageSource): string[] {
  return [...walk(source.tree, source.program)].map((n) => n.path.join(' '));
}

export function renderManPage(source: ManPageSource): string {
  const { program } = source;
  const help = program.createHelp();
  const lines: string[] = [
    `.TH CARDCTL 1 "" "cardctl ${VERSION}" "User Commands"`,
    // Ragged right and no hyphenation: option values like delay=100-300ms,deadline=2s,… cannot be
    // spread to justify, and a flag broken across lines would not copy.
    '.ad l',
    '.nh',
    '.SH NAME',
    `cardctl \\- ${inline(firstSentence(program.description()))}`,
    '.SH SYNOPSIS',
    `.B cardctl`,
    inline(help.commandUsage(program).replace(/^cardctl /, '')),
    '.br',
    '.B cardctl help',
    inline('<command> | <topic>'),
    '.SH DESCRIPTION',
    ...prose(program.description()),
    '.PP',
    'Examples:',
    ...preformatted(source.examples.map((e) => `$ ${e}`)),
    '.SH GLOBAL OPTIONS',
    'These options are accepted by every command.',
    ...options(help, program),
    '.SH COMMANDS',
  ];
  for (const node of walk(source.tree, program)) lines.push(...commandSection(node));
  for (const topic of HELP_TOPICS) {
    lines.push(`.SH ${quoted(manSectionOf(topic))}`, ...prose(topic.text));
    lines.push('.PP', inline(`Also: \`cardctl help ${topic.name}\`.`));
  }
  lines.push(
    '.SH SEE ALSO',
    inline('`cardctl <command> --help`, `cardctl help topics`, the README.md of the cardctl package;'),
    '.BR jq (1),',
    '.BR less (1)',
  );
  return `${lines.join('\n')}\n`;
}

function commandSection({ path, definition, command }: Node): string[] {
  const help = command.createHelp();
  const lines = [`.SS ${quoted(`cardctl ${path.join(' ')}`)}`];
  lines.push('.PP', `.B ${quoted(help.commandUsage(command))}`);
  if (definition.aliases?.length) lines.push('.br', inline(`alias: ${definition.aliases.join(', ')}`));
  lines.push(...prose(definition.description ?? definition.summary));
  const args = help.visibleArguments(command);
  if (args.length) {
    lines.push('.PP', 'Arguments:');
    for (const argument of args) lines.push('.TP', bold(help.argumentTerm(argument)), inline(help.argumentDescription(argument)));
  }
  if (!isGroup(definition)) lines.push(...options(help, command));
  if (definition.examples?.length) lines.push('.PP', 'Examples:', ...preformatted(definition.examples.map((e) => `$ ${e}`)));
  return lines;
}

/** The command's options as `--help` lists them, but for -h, --help (a global option). */
function options(help: Help, command: Command): string[] {
  const shown = help.visibleOptions(command).filter((o: Option) => command.parent === null || o.long !== '--help');
  if (!shown.length) return [];
  const lines = ['.PP', command.parent ? 'Options:' : ''];
  for (const option of shown) lines.push('.TP', bold(help.optionTerm(option)), inline(help.optionDescription(option)));
  return lines.filter(Boolean);
}

/**
 * Help text (the Markdown-ish of the topics, or a command's description) as roff: paragraphs,
 * `| a | b |` tables as tagged paragraphs, `1.` lists, and indented lines kept as they are.
 */
function prose(text: string): string[] {
  const out: string[] = [];
  const source = text.replace(/\n+$/, '').split('\n');
  for (let i = 0; i < source.length;) {
    const line = source[i]!;
    if (line.trim() === '') {
      i++;
    } else if (line.startsWith('|')) {
      const rows: string[][] = [];
      for (; i < source.length && source[i]!.startsWith('|'); i++) rows.push(cells(source[i]!));
      // Each row a tagged paragraph: the first cell the tag; a middle cell (a table of three or
      // more columns) is named by its header, the last one is the text.
      const header = rows[0]!;
      for (const [tag, ...rest] of rows.slice(2)) {
        const named = rest.map((cell, n) => (n < rest.length - 1 ? `${header[n + 1]}: ${cell}` : cell));
        out.push('.TP', inline(tag!), inline(named.join(' \u2014 ')));
      }
    } else if (/^\d+\. /.test(line)) {
      for (; i < source.length && /^\d+\. /.test(source[i]!);) {
        const [, number, first] = /^(\d+\.) (.*)$/.exec(source[i++]!)!;
        const item = [first!];
        for (; i < source.length && /^ {2,}\S/.test(source[i]!); i++) item.push(source[i]!.trim());
        out.push(`.IP ${number} 4`, inline(item.join('\n')));
      }
    } else if (/^\s/.test(line)) {
      const block: string[] = [];
      for (; i < source.length && (/^\s/.test(source[i]!) || (source[i]!.trim() === '' && /^\s+\S/.test(source[i + 1] ?? ''))); i++) block.push(source[i]!);
      out.push(...preformatted(block));
    } else {
      const paragraph: string[] = [];
      for (; i < source.length && /^[^\s|]/.test(source[i]!) && !/^\d+\. /.test(source[i]!); i++) paragraph.push(source[i]!);
      out.push('.PP', inline(paragraph.join('\n')));
    }
  }
  return out;
}

function cells(row: string): string[] {
  return row.replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
}

/** Lines kept as written (code, examples), indented. */
function preformatted(lines: readonly string[]): string[] {
  return ['.PP', '.RS 4', '.nf', ...lines.map((l) => (l.trim() === '' ? '\\&' : guardLine(escape(l)))), '.fi', '.RE'];
}

/**
 * Filled text: `code` in bold, every line safe from being read as a request, and a break point
 * (\\:) after each comma inside a word, so a long list of values can wrap.
 */
function inline(text: string): string {
  const styled = text.split('`').map((part, i) => (i % 2 === 1 ? `\\fB${escape(part)}\\fR` : escape(part))).join('').replace(/,(?=\S)/g, ',\\:');
  return styled.split('\n').map(guardLine).join('\n');
}

function bold(text: string): string {
  return guardLine(`\\fB${escape(text)}\\fR`);
}

/** A request argument in double quotes (a quote inside becomes \(dq). */
function quoted(text: string): string {
  return `"${escape(text).replace(/"/g, '\\(dq')}"`;
}

/** roff's special characters: backslash, hyphen (a minus, so flags copy), and non-ASCII as \[uXXXX]. */
function escape(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '\\') out += '\\e';
    else if (char === '-') out += '\\-';
    else if (code > 0x7e || (code < 0x20 && char !== '\n')) out += `\\[u${code.toString(16).toUpperCase().padStart(4, '0')}]`;
    else out += char;
  }
  return out;
}

/** A line starting with . or ' would be a request; \& in front makes it text. */
function guardLine(line: string): string {
  return /^[.']/.test(line) ? `\\&${line}` : line;
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[:.]( |$)/);
  return end === -1 ? flat : flat.slice(0, end);
}
