// Where PINs come from: a hidden prompt (a new PIN is asked twice and must match) or, with
// --pin-stdin, one line of stdin per PIN. Never argv, never the environment; nothing here
// writes a PIN anywhere.
import { UsageError } from '../core/errors.js';
import { lineReader, type IOStreams } from '../core/io.js';
import type { Prompter } from '../core/prompter.js';
import type { Notes } from '../config/settings.js';
import { PIN_MAX_LENGTH, PIN_MIN_LENGTH } from './block.js';
import { assertAcceptablePin, pinProblem } from './policy.js';

export interface PinInput {
  /** A PIN the card already has (the current PIN of `pin change`): checked for shape only. */
  existing(label: string): Promise<string>;
  /** A PIN being set: asked twice on a terminal, refused when weak unless allowed. */
  fresh(label: string): Promise<string>;
}

export interface PinInputOptions {
  /** --pin-stdin */
  stdin: boolean;
  /** --allow-weak-pin */
  allowWeak?: boolean;
  /** How many mismatched confirmations before giving up. */
  maxMismatches?: number;
}

/** Where PINs are read from and asked on. */
export interface PinInputContext {
  io: Pick<IOStreams, 'stdin' | 'stdinIsTTY' | 'canPrompt'>;
  prompter: Pick<Prompter, 'password'>;
  log: Pick<Notes, 'warn'>;
}

export function createPinInput(ctx: PinInputContext, options: PinInputOptions): PinInput {
  return options.stdin ? stdinPinInput(ctx, options) : promptPinInput(ctx, options);
}

function stdinPinInput(ctx: PinInputContext, options: PinInputOptions): PinInput {
  const reader = lineReader(ctx.io.stdin);
  let line = 0;
  const nextLine = async (label: string): Promise<string> => {
    if (ctx.io.stdinIsTTY) {
      // Typed on a terminal, the PIN would be echoed on the screen.
      throw new UsageError('--pin-stdin reads a pipe, and stdin is a terminal here (what you type would be shown)', {
        hint: 'leave out --pin-stdin to be asked with a hidden prompt, or pipe the PIN: printf %s "$PIN" | cardctl … --pin-stdin',
      });
    }
    line++;
    const text = await reader.next();
    if (text === undefined) {
      throw new UsageError(`--pin-stdin: expected the ${label} on line ${line} of stdin, but stdin ended`, {
        hint: line > 1 ? `give one PIN per line, e.g. printf '%s\\n%s\\n' "$OLD" "$NEW" | cardctl …` : undefined,
      });
    }
    return text.trim();
  };
  return {
    async existing(label) {
      const pin = await nextLine(label);
      const problem = pinProblem(pin, { allowWeak: true });
      if (problem) throw new UsageError(`invalid ${label} (line ${line} of stdin): ${problem}`, { code: 'INVALID_PIN' });
      return pin;
    },
    async fresh(label) {
      const pin = await nextLine(label);
      assertAcceptablePin(pin, { allowWeak: options.allowWeak, what: `${label} (line ${line} of stdin)` });
      return pin;
    },
  };
}

function promptPinInput(ctx: PinInputContext, options: PinInputOptions): PinInput {
  const ensureTerminal = (label: string) => {
    if (!ctx.io.canPrompt) {
      throw new UsageError(`a ${label} is needed and no prompt is possible (no terminal, --no-input or CI)`, {
        hint: 'pipe it on stdin with --pin-stdin, e.g. `printf %s "$PIN" | cardctl … --pin-stdin` (PINs are never taken from flags)',
      });
    }
  };
  const shape = (value: string): true | string => pinProblem(value, { allowWeak: true }) ?? true;
  const acceptable = (value: string): true | string => {
    const problem = pinProblem(value, { allowWeak: options.allowWeak });
    if (!problem) return true;
    const weakOnly = pinProblem(value, { allowWeak: true }) === undefined;
    return weakOnly ? `${problem}; choose another (or rerun with --allow-weak-pin)` : problem;
  };
  return {
    async existing(label) {
      ensureTerminal(label);
      return ctx.prompter.password(`${capitalise(label)} (${PIN_MIN_LENGTH}-${PIN_MAX_LENGTH} digits):`, { validate: shape });
    },
    async fresh(label) {
      ensureTerminal(label);
      const max = options.maxMismatches ?? 3;
      for (let attempt = 1; ; attempt++) {
        const first = await ctx.prompter.password(`${capitalise(label)} (${PIN_MIN_LENGTH}-${PIN_MAX_LENGTH} digits):`, { validate: acceptable });
        const second = await ctx.prompter.password(`Confirm ${label}:`, { validate: shape });
        if (first === second) return first;
        if (attempt >= max) throw new UsageError(`the ${label} and its confirmation did not match ${max} times; nothing was sent`);
        ctx.log.warn(`the two entries do not match; enter the ${label} again`);
      }
    },
  };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
