// The logger's lines for people: the text's own control characters are made visible, and the
// emphasis a command asks for is applied after that, so it reaches the terminal as styling.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testContext } from '../helpers/context.js';

describe('ctx.log on a terminal', () => {
  it('styles the escaped text, never escapes the style', () => {
    const ctx = testContext({ tty: true, env: { FORCE_COLOR: '1' } });
    ctx.log.info('following \x1b[31mred', 'dim');
    ctx.log.info('Scenario: x', 'bold');
    const err = ctx.io.stderrText();
    expect(err).toContain('\x1b[2mfollowing \\x1b[31mred');
    expect(err).toContain('\x1b[1mScenario: x');
    expect(err).not.toMatch(/\\x1b\[(1|2|22)m/);
  });

  it('without colour, the emphasis adds nothing', () => {
    const ctx = testContext({ tty: false });
    ctx.log.info('page 1 of 3', 'dim');
    expect(ctx.io.stderrText()).toBe('page 1 of 3\n');
  });

  // The logger escapes what it is given: styled text handed to it would print as `\x1b[2m…`.
  it('no command hands styled text to the logger', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts') && /\blog\.(info|warn|verbose|debug)\(\s*(ctx\.)?style\./.test(readFileSync(path, 'utf8'))) offenders.push(path);
      }
    };
    walk('src');
    expect(offenders).toEqual([]);
  });
});
