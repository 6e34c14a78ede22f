import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { decideCanPrompt, decideColor, lineReader, readAll } from '../../src/core/io.js';

describe('colour', () => {
  it('follows --no-color, NO_COLOR, FORCE_COLOR, TTY and TERM=dumb', () => {
    expect(decideColor({ env: {}, stdoutIsTTY: true })).toBe(true);
    expect(decideColor({ env: {}, stdoutIsTTY: false })).toBe(false);
    expect(decideColor({ env: {}, stdoutIsTTY: true, colorFlag: false })).toBe(false);
    expect(decideColor({ env: { NO_COLOR: '1' }, stdoutIsTTY: true })).toBe(false);
    expect(decideColor({ env: { NO_COLOR: '' }, stdoutIsTTY: true })).toBe(true);
    expect(decideColor({ env: { FORCE_COLOR: '1' }, stdoutIsTTY: false })).toBe(true);
    expect(decideColor({ env: { FORCE_COLOR: '0' }, stdoutIsTTY: true })).toBe(false);
    expect(decideColor({ env: { TERM: 'dumb' }, stdoutIsTTY: true })).toBe(false);
    expect(decideColor({ env: { NO_COLOR: '1', FORCE_COLOR: '1' }, stdoutIsTTY: true })).toBe(false);
  });
});

describe('prompting', () => {
  it('only with TTYs on both ends, without --no-input and CI', () => {
    expect(decideCanPrompt({ env: {}, stdinIsTTY: true, stdoutIsTTY: true })).toBe(true);
    expect(decideCanPrompt({ env: {}, stdinIsTTY: false, stdoutIsTTY: true })).toBe(false);
    expect(decideCanPrompt({ env: {}, stdinIsTTY: true, stdoutIsTTY: false })).toBe(false);
    expect(decideCanPrompt({ env: {}, stdinIsTTY: true, stdoutIsTTY: true, inputFlag: false })).toBe(false);
    expect(decideCanPrompt({ env: { CI: 'true' }, stdinIsTTY: true, stdoutIsTTY: true })).toBe(false);
    expect(decideCanPrompt({ env: { CI: '0' }, stdinIsTTY: true, stdoutIsTTY: true })).toBe(true);
  });
});

describe('stdin', () => {
  it('readAll joins chunks', async () => {
    expect(await readAll(Readable.from([Buffer.from('ab'), Buffer.from('c\n')]))).toBe('abc\n');
  });

  it('lineReader gives lines on demand, CRLF or LF, last line without newline', async () => {
    const reader = lineReader(Readable.from(['12', '34\r\n56', '78\nlast']));
    expect(await reader.next()).toBe('1234');
    expect(await reader.next()).toBe('5678');
    expect(await reader.next()).toBe('last');
    expect(await reader.next()).toBeUndefined();
  });
});
