import { Readable, Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { OutputError } from '../../src/core/errors.js';
import { decideCanPrompt, decideColor, lineReader, readAll, systemIO } from '../../src/core/io.js';

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

describe('writes that fail', () => {
  /** A process whose stdout fails every write with `code`, and whose stderr fails too when asked. */
  function failingProcess(code: string, stderrFails = false) {
    const failing = (errorCode: string) => new Writable({ write: (_chunk, _encoding, done) => done(Object.assign(new Error(errorCode), { code: errorCode })) });
    const exit = vi.fn();
    // A fake process: systemIO uses only its env, exitCode, exit and two writable streams.
    const fake: { env: NodeJS.ProcessEnv; exitCode?: NodeJS.Process['exitCode']; exit(code?: number): void; stdout: Writable; stderr: Writable } = {
      env: {}, exitCode: undefined, stdout: failing(code), stderr: stderrFails ? failing('EIO') : new Writable({ write: (_c, _e, done) => done() }), exit,
    };
    return { fake: fake as NodeJS.Process, exit };
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it.each(['ENOSPC', 'EIO', 'EFBIG'])('stdout failing with %s: one OutputError, however many writes follow', async (code) => {
    const { fake, exit } = failingProcess(code);
    const failures: OutputError[] = [];
    const io = systemIO(fake, (failure) => failures.push(failure));
    io.out('a');
    io.out(new Uint8Array([98]));
    await tick();
    io.out('c');
    await tick();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(OutputError);
    expect(failures[0]!.message).toMatch(new RegExp(`^cannot write output: .*\\(${code}\\)$`));
    expect(failures[0]!.exitCode).toBe(2);
    expect(exit).not.toHaveBeenCalled();
  });

  it('a reader that went away (EPIPE) ends the run quietly with exit 0', async () => {
    const { fake, exit } = failingProcess('EPIPE');
    const failures: OutputError[] = [];
    systemIO(fake, (failure) => failures.push(failure)).out('a');
    await tick();
    expect(exit).toHaveBeenCalledWith(0);
    expect(failures).toEqual([]);
  });

  it('a stderr that fails is ignored', async () => {
    const { fake } = failingProcess('ENOSPC', true);
    const io = systemIO(fake, () => {});
    io.err('warning\n');
    await tick();
    io.stderr.write('progress\n');
    await tick();
  });
});
