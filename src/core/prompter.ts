// Prompter: every interactive question goes through this interface. The real one
// (InquirerPrompter, app/prompter.ts) asks on the terminal; tests use ScriptedPrompter.
import { UsageError } from './errors.js';

export interface Choice<T = string> {
  name: string;
  value: T;
  description?: string;
}

export interface Prompter {
  input(message: string, options?: { default?: string; validate?: (value: string) => true | string }): Promise<string>;
  /** Hidden input (tokens, PINs); never echoed. */
  password(message: string, options?: { validate?: (value: string) => true | string }): Promise<string>;
  confirm(message: string, options?: { default?: boolean }): Promise<boolean>;
  select<T>(message: string, choices: Choice<T>[], options?: { default?: T }): Promise<T>;
}

/** A prompter for contexts that may not ask: every question is a usage error naming the flag. */
export class NoPrompter implements Prompter {
  constructor(private readonly why = 'prompting is disabled (no TTY, --no-input or CI)') {}
  private refuse(message: string): never {
    throw new UsageError(`cannot ask "${message}": ${this.why}`);
  }
  async input(message: string): Promise<string> { return this.refuse(message); }
  async password(message: string): Promise<string> { return this.refuse(message); }
  async confirm(message: string): Promise<boolean> { return this.refuse(message); }
  async select<T>(message: string): Promise<T> { return this.refuse(message); }
}

/**
 * Test double: answers come from a queue, in order; each answer may be checked against the
 * question text. Asking more questions than scripted is a test failure.
 */
export class ScriptedPrompter implements Prompter {
  readonly asked: string[] = [];
  constructor(private readonly answers: Array<string | boolean | unknown>) {}

  private take(message: string): unknown {
    this.asked.push(message);
    if (this.answers.length === 0) throw new Error(`ScriptedPrompter: unexpected question "${message}"`);
    return this.answers.shift();
  }
  async input(message: string, options: { validate?: (value: string) => true | string } = {}) {
    return validated(String(this.take(message)), options.validate);
  }
  async password(message: string, options: { validate?: (value: string) => true | string } = {}) {
    return validated(String(this.take(message)), options.validate);
  }
  async confirm(message: string) { return Boolean(this.take(message)); }
  async select<T>(message: string) { return this.take(message) as T; }
}

function validated(value: string, validate?: (value: string) => true | string): string {
  const verdict = validate?.(value);
  if (verdict !== undefined && verdict !== true) throw new Error(`ScriptedPrompter: answer rejected: ${verdict}`);
  return value;
}
