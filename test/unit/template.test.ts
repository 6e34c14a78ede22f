import { describe, expect, it } from 'vitest';
import { compileTemplate, timeAgo, toHandlebars } from '../../src/output/template.js';
import { createStyle } from '../../src/output/style.js';
import { CliError } from '../../src/core/errors.js';

const plain = createStyle(false);
const tx = { id: 'abcdef', status: 'active', amounts: { amount: '000000150000', currency: '566' }, items: [1, 2], ok: false };

describe('--template', () => {
  it('maps gh-style {{.field}} to Handlebars paths and unescapes \\t and \\n', () => {
    expect(toHandlebars('{{.id}}\\t{{.status}}')).toBe('{{this.id}}\t{{this.status}}');
    expect(toHandlebars('{{.}}')).toBe('{{this}}');
    expect(toHandlebars('{{#each .items}}{{.}},{{/each}}')).toBe('{{#each this.items}}{{this}},{{/each}}');
    expect(toHandlebars('{{pad .id 10}}')).toBe('{{pad this.id 10}}');
    expect(toHandlebars('{{id}} {{this.id}}')).toBe('{{id}} {{this.id}}');
  });

  it('renders fields, nested paths, blocks and helpers, one line per record', async () => {
    const cases: Array<[string, string]> = [
      ['{{.id}}\\t{{.status}}', 'abcdef\tactive\n'],
      ['{{pad .id 8}}|{{pad .status -8}}|', 'abcdef  |  active|\n'],
      ['{{money .amounts.amount .amounts.currency}}', '₦1,500.00\n'],
      ['{{#each .items}}{{.}} {{/each}}', '1 2 \n'],
      ['{{#if .ok}}yes{{else}}no{{/if}}', 'no\n'],
      ['{{truncate .id 4}}', 'abc…\n'],
      ['{{color "red" .id}}', 'abcdef\n'],
      ['{{json .amounts}}', '{"amount":"000000150000","currency":"566"}\n'],
      ['{{.id}}\n', 'abcdef\n'],
      ['<{{.missing}}>', '<>\n'],
    ];
    for (const [template, expected] of cases) {
      const render = await compileTemplate(template, plain);
      expect(render(tx), template).toBe(expected);
    }
  });

  it('never HTML-escapes', async () => {
    expect((await compileTemplate('{{.name}}', plain))({ name: 'A & B <x>' })).toBe('A & B <x>\n');
  });

  it('colours only when the style has colour', async () => {
    const render = await compileTemplate('{{color "status" .status}}', createStyle(true));
    expect(render({ status: 'active' })).toContain('\x1b[');
  });

  it('reports syntax errors as usage errors (exit 2)', async () => {
    for (const bad of ['{{#if}}', '{{.id', '{{color "pink" .id}}']) {
      const error = await compileTemplate(bad, plain).then((r) => r(tx)).catch((e) => e);
      expect(error, bad).toBeInstanceOf(CliError);
      expect(error.exitCode).toBe(2);
      expect(error.message).toMatch(/^--template: /);
    }
  });

  it('says how long ago', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    expect(timeAgo('2026-11-22T11:57:00Z', now)).toBe('3 minutes ago');
    expect(timeAgo('2026-11-22T11:59:50Z', now)).toBe('just now');
    expect(timeAgo('2026-11-20T12:00:00Z', now)).toBe('2 days ago');
    expect(timeAgo('nope', now)).toBe('nope');
  });
});
