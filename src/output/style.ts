// Colours, decided once per context (never chalk's global instance).
import { Chalk, type ChalkInstance } from 'chalk';

export interface Style {
  readonly enabled: boolean;
  readonly chalk: ChalkInstance;
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

const GOOD = new Set(['active', 'completed', 'approved', 'success', 'ok', '00', 'pass', 'passed']);
const BAD = new Set(['suspended', 'failed', 'declined', 'blocked', 'fail', 'error', 'expired']);
const NEUTRAL = new Set(['inactive', 'pending', 'reversed']);

export function createStyle(enabled: boolean): Style {
  const chalk = new Chalk({ level: enabled ? 1 : 0 });
  return {
    enabled,
    chalk,
    ok: (t) => chalk.green(t),
    warn: (t) => chalk.yellow(t),
    error: (t) => chalk.red(t),
    dim: (t) => chalk.dim(t),
    bold: (t) => chalk.bold(t),
    status(text) {
      const key = text.toLowerCase();
      if (GOOD.has(key)) return chalk.green(text);
      if (BAD.has(key)) return chalk.red(text);
      if (NEUTRAL.has(key)) return chalk.yellow(text);
      return text;
    },
    check: (ok) => (ok ? chalk.green('✓') : chalk.red('✗')),
  };
}
