// The prompter that asks on the terminal: loads @inquirer/prompts only when the first question
// is asked, and shows every message with its control characters made visible.
import { escapeControls } from '../output/format.js';
import type { Choice, Prompter } from '../core/prompter.js';

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
