// src/output/style.ts paints with chalk at level 1 (16 colours), loaded only when colour may be on;
// styles combine outermost first and status words are coloured by what they mean.
import { Chalk, type ChalkInstance } from 'chalk';
import { describe, expect, it } from 'vitest';
import { createStyle, STYLE_NAMES, type StyleName } from '../../src/output/style.js';

const chalk = new Chalk({ level: 1 });
// chalk's styles chained by name: each step is a ChalkInstance the next name indexes.
const viaChalk = (names: readonly StyleName[], text: string) => names.reduce<ChalkInstance>((c, name) => c[name], chalk)(text);
const TEXTS = ['active', '', 'two\nlines', 'crlf\r\nline', 'already \x1b[1mbold\x1b[22m inside', 'dim \x1b[2min\x1b[22m dim', 'red \x1b[31mred\x1b[39m end', '✓ é 中'];

describe('styles', () => {
  const style = createStyle(true);

  it('each style, on every kind of text, is byte for byte what chalk printed at level 1', () => {
    for (const name of STYLE_NAMES) {
      for (const text of TEXTS) expect(style.paint(name, text), `${name} ${JSON.stringify(text)}`).toBe(viaChalk([name], text));
    }
  });

  it('styles combined (outermost first) as chalk chains them, and the helpers by what they mean', () => {
    for (const names of [['bgRed', 'white', 'bold'], ['bold', 'dim'], ['red', 'green']] as StyleName[][]) {
      for (const text of TEXTS) expect(style.paint(names, text), `${names.join('.')} ${JSON.stringify(text)}`).toBe(viaChalk(names, text));
    }
    expect([style.ok('x'), style.warn('x'), style.error('x'), style.dim('x'), style.bold('x')]).toEqual([chalk.green('x'), chalk.yellow('x'), chalk.red('x'), chalk.dim('x'), chalk.bold('x')]);
    expect([style.status('Active'), style.status('declined'), style.status('pending'), style.status('other')]).toEqual([chalk.green('Active'), chalk.red('declined'), chalk.yellow('pending'), 'other']);
    expect([style.check(true), style.check(false)]).toEqual([chalk.green('✓'), chalk.red('✗')]);
  });

  it('without colour, text is left as it is', () => {
    const plain = createStyle(false);
    for (const name of STYLE_NAMES) for (const text of TEXTS) expect(plain.paint(name, text)).toBe(text);
    expect([plain.status('active'), plain.check(true), plain.paint(['bgRed', 'bold'], ' PRODUCTION ')]).toEqual(['active', '✓', ' PRODUCTION ']);
  });
});
