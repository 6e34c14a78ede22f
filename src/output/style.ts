// Colours, decided once per context, painted by chalk (never its global instance). chalk is
// loaded only when colour may be on (loadColours, called by main() before any context exists):
// importing it, and the terminal detection it runs at load, cost 9 ms of every command on Node 20
// and 13 ms on Node 24, and the scripts that run cardctl in loops
// pipe its output, where colour is off.
import type { ChalkInstance } from 'chalk';
import { decideColor, type ColorInputs } from '../core/io.js';
import { isApproved } from '../iso8583/codes.js';

let chalk: ChalkInstance | undefined;

/** Loads chalk when colour may be on for these inputs (a --no-color flag can only turn it off). */
export async function loadColours(inputs: Omit<ColorInputs, 'colorFlag'>): Promise<void> {
  if (chalk || !decideColor(inputs)) return;
  const { Chalk } = await import('chalk');
  chalk ??= new Chalk({ level: 1 });
}

/** The chalk styles cardctl paints with. */
export const STYLE_NAMES = ['red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white', 'gray', 'bgRed', 'bold', 'dim'] as const;

export type StyleName = (typeof STYLE_NAMES)[number];

export interface Style {
  readonly enabled: boolean;
  /** `text` in the styles named, outermost first (plain when colour is off). */
  paint(names: StyleName | readonly StyleName[], text: string): string;
  ok(text: string): string;
  warn(text: string): string;
  error(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
  /** Colours a card or transaction status by what it means. */
  status(text: string): string;
  /** ✓ / ✗ marks (plain ASCII when colour is off is not needed: UTF-8 is fine in pipes). */
  check(ok: boolean): string;
}

const GOOD = new Set(['active', 'completed', 'approved', 'success', 'ok', 'pass', 'passed']);
const BAD = new Set(['suspended', 'failed', 'declined', 'blocked', 'fail', 'error', 'expired']);
const NEUTRAL = new Set(['inactive', 'pending', 'reversed']);

/** Colours when `enabled` and chalk is loaded (loadColours); plain text otherwise. */
export function createStyle(enabled: boolean): Style {
  const colours = enabled ? chalk : undefined;
  const paint = (names: StyleName | readonly StyleName[], text: string): string =>
    colours ? (typeof names === 'string' ? [names] : names).reduce<ChalkInstance>((chain, name) => chain[name], colours)(text) : text;
  return {
    enabled: colours !== undefined,
    paint,
    ok: (t) => paint('green', t),
    warn: (t) => paint('yellow', t),
    error: (t) => paint('red', t),
    dim: (t) => paint('dim', t),
    bold: (t) => paint('bold', t),
    status(text) {
      const key = text.toLowerCase();
      // A response code is good when it is an approval, by the one rule (isApproved).
      if (GOOD.has(key) || isApproved(text)) return paint('green', text);
      if (BAD.has(key)) return paint('red', text);
      if (NEUTRAL.has(key)) return paint('yellow', text);
      return text;
    },
    check: (ok) => (ok ? paint('green', '✓') : paint('red', '✗')),
  };
}
