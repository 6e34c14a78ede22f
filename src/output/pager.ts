// The pager: long table output for people goes through $CARDCTL_PAGER / $PAGER (default
// `less -FRX`, which quits by itself when the text fits one screen). Only on a TTY, only for
// tables; never with --no-pager. A pager that cannot start means plain output, never an error.
import type { IOStreams } from '../core/io.js';

export const DEFAULT_PAGER = 'less -FRX';

/**
 * The pager command to use, or undefined for none: stdout is not a terminal, --no-pager,
 * or the variable says `cat` or is set empty.
 */
export function choosePager(input: { env: Record<string, string | undefined>; stdoutIsTTY: boolean; pagerFlag?: boolean }): string | undefined {
  if (input.pagerFlag === false || !input.stdoutIsTTY) return undefined;
  const configured = input.env.CARDCTL_PAGER ?? input.env.PAGER;
  const command = (configured ?? DEFAULT_PAGER).trim();
  if (command === '' || command === 'cat') return undefined;
  return command;
}

/** Splits a command line into words: spaces separate, single and double quotes group. */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: string | undefined;
  let started = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) current += command[++i];
      else current += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (/\s/.test(c)) {
      if (started || current) words.push(current);
      current = '';
      started = false;
    } else if (c === '\\' && i + 1 < command.length) {
      current += command[++i];
    } else {
      current += c;
    }
  }
  if (started || current) words.push(current);
  return words;
}

/**
 * Writes `text` through the pager. The pager writes to the terminal itself (stdout is
 * inherited); when stdout has no file descriptor (tests), its output is copied to io.out.
 * If the pager cannot be started, `text` is written directly.
 */
export async function writeThroughPager(io: IOStreams, command: string, text: string, env: Record<string, string | undefined>): Promise<void> {
  const [file, ...args] = splitCommand(command);
  if (!file) {
    io.out(text);
    return;
  }
  const { spawn } = await import('node:child_process');
  const fd = (io.stdout as { fd?: unknown }).fd;
  const inherit = typeof fd === 'number';
  const started = await new Promise<boolean>((resolve) => {
    let child;
    try {
      child = spawn(file, args, {
        stdio: ['pipe', inherit ? io.stdout : 'pipe', 'inherit'],
        // less: keep colours, quit on one screen, leave the text on the screen.
        env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' },
      });
    } catch {
      resolve(false);
      return;
    }
    let spawned = false;
    child.once('spawn', () => {
      spawned = true;
      child.stdin!.on('error', () => {}); // the reader quit early (q in less): fine
      child.stdin!.end(text);
    });
    child.stdout?.on('data', (chunk: Buffer) => io.out(chunk.toString('utf8')));
    child.once('error', () => { if (!spawned) resolve(false); });
    child.once('close', () => resolve(true));
  });
  if (!started) io.out(text);
}
