// Prompter: every interactive question goes through this interface. The real one loads
// @inquirer/prompts only when the first question is asked; tests use ScriptedPrompter.
import { escapeControls } from '../output/format.js';
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

export class InquirerPrompter implements Prompter {
  private prompts?: typeof import('@inquirer/prompts');

  private async load() {
    this.prompts ??= await import('@inquirer/prompts');
    return this.prompts;
  }

  async input(message: string, options: { default?: string; validate?: (value: string) => true | string } = {}) {
    const { input } = await this.load();
    // A default shown with its control characters made visible is still the value it stands for.
    const original = options.default;
    const shown = original === undefined ? undefined : escapeControls(original);
    const validate = options.validate;
    const answer = await input({
      message: escapeControls(message),
      default: shown,
      validate: validate && ((value: string) => validate(value === shown ? original! : value)),
    });
    return answer === shown ? original! : answer;
  }

  async password(message: string, options: { validate?: (value: string) => true | string } = {}) {
    const { password } = await this.load();
    return password({ message: escapeControls(message), mask: '•', validate: options.validate });
  }

  async confirm(message: string, options: { default?: boolean } = {}) {
    const { confirm } = await this.load();
    return confirm({ message: escapeControls(message), default: options.default ?? false });
  }

  async select<T>(message: string, choices: Choice<T>[], options: { default?: T } = {}) {
    const { select } = await this.load();
    return select<T>({ message: escapeControls(message), choices: choices.map((c) => ({ ...c, name: escapeControls(c.name) })), default: options.default });
  }
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
