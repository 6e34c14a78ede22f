// `cardctl help <topic>`: topics are text, not commands, so they are answered before commander
// sees the arguments; `cardctl help <command>` still goes to commander's own help command.
import { UsageError, type CliError } from '../core/errors.js';
import type { IOStreams } from '../core/io.js';
import { fitTopic } from './fit.js';
import { closestWords } from './suggest.js';
import { HELP_TOPICS, findHelpTopic } from './topics.js';

const HELP_WIDTH_PIPED = 80;

/**
 * Answers `help NAME`: prints the topic and returns true; returns false when NAME is a command
 * (commander shows its help); returns a UsageError when NAME is neither.
 */
export function showHelpTopic(name: string, io: IOStreams, tree: ReadonlyArray<{ name: string; aliases?: readonly string[] }>): true | false | CliError {
  const topic = findHelpTopic(name);
  if (topic) {
    // The width command help has: the terminal's, or 80 when piped.
    io.out(fitTopic(topic.text, io.stdoutIsTTY && io.columns ? io.columns : HELP_WIDTH_PIPED));
    return true;
  }
  if (name === 'topics') {
    const width = Math.max(...HELP_TOPICS.map((t) => t.name.length));
    io.out(`Help topics (cardctl help <topic>):\n\n${HELP_TOPICS.map((t) => `  ${t.name.padEnd(width)}  ${t.summary}`).join('\n')}\n`);
    return true;
  }
  const commands = tree.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
  if (commands.includes(name) || name === 'help' || name.startsWith('-')) return false;
  const candidates = [...tree.map((c) => c.name), ...HELP_TOPICS.map((t) => t.name)];
  const close = closestWords(name, candidates);
  return new UsageError(`unknown command or help topic '${name}'`, {
    code: 'USAGE_UNKNOWN_TOPIC',
    hint: close.length
      ? `did you mean ${close.map((w) => `\`cardctl help ${w}\``).join(' or ')}?`
      : `topics: ${HELP_TOPICS.map((t) => t.name).join(', ')}; commands: \`cardctl --help\``,
  });
}
