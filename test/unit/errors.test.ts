import { describe, expect, it } from 'vitest';
import {
  AuthError, CliError, ExitCode, FieldError, InterruptedError, NetworkError, NotFoundError, RejectedError, ServerError, UsageError,
  exitCodeForStatus, toCliError,
} from '../../src/core/errors.js';
import { main, reportError } from '../../src/app/cli.js';
import { expiryMonth } from '../../src/core/card-fields.js';
import { ScriptedPrompter } from '../../src/core/prompter.js';
import { validateYearMonth } from '../../src/core/validate.js';
import { scratchDirs, testIO } from '../helpers/context.js';

describe('withHint', () => {
  it('gives a copy of the same class, fields and stack with another hint, leaving the error as it was', () => {
    const cause = new Error('socket hang up');
    const original = new NetworkError('connection reset', { code: 'ECONNRESET', status: 502, details: { a: 1 }, cause });
    const hinted = original.withHint('look the card up first');
    expect(hinted).toBeInstanceOf(NetworkError);
    expect(hinted).not.toBe(original);
    expect(hinted).toMatchObject({ exitCode: 6, code: 'ECONNRESET', status: 502, details: { a: 1 }, message: 'connection reset', hint: 'look the card up first', cause });
    expect(hinted.stack).toBe(original.stack);
    expect(original.hint).toBeUndefined();
  });
});

describe('FieldError', () => {
  it('says which field, its value and the problem in the message, and holds the field and the problem on their own', () => {
    const malformed = (() => { try { validateYearMonth('--expiration', '2029-13'); } catch (error) { return error; } })();
    expect(malformed).toBeInstanceOf(FieldError);
    expect(malformed).toMatchObject({ exitCode: 2, field: '--expiration', problem: 'expected YYYYMM, e.g. 202912', message: 'invalid --expiration "2029-13": expected YYYYMM, e.g. 202912' });
    const past = (() => { try { expiryMonth('--expiration', '202001', { now: new Date('2026-11-24T00:00:00Z'), allowCurrentMonth: false }); } catch (error) { return error; } })();
    expect(past).toMatchObject({ field: '--expiration', problem: 'it must be a month in the future (after 202611)', message: 'invalid --expiration "202001": it must be a month in the future (after 202611)' });
  });

  it('a prompt that asks again shows the problem alone (cards renew)', async () => {
    const io = testIO({ tty: true });
    const prompter = new ScriptedPrompter(['202001']);
    const code = await main(['cards', 'renew', 'c1'], { io, env: scratchDirs(), prompter, signal: new AbortController().signal });
    expect(code).toBe(1);
    expect(prompter.asked).toEqual(['New expiry month (YYYYMM):']);
    expect(io.stderrText()).toMatch(/answer rejected: it must be a month in the future \(after \d{6}\)/);
  });
});

describe('exit codes', () => {
  it('follow the table of `cardctl help exit-codes`', () => {
    expect(ExitCode).toEqual({ Ok: 0, Internal: 1, Usage: 2, Auth: 3, NotFound: 4, Rejected: 5, Network: 6, Server: 7, Partial: 8, Interrupted: 130 });
    expect([new UsageError('x'), new AuthError('x'), new NotFoundError('x'), new RejectedError('x'), new NetworkError('x'), new ServerError('x'), new InterruptedError()].map((e) => e.exitCode))
      .toEqual([2, 3, 4, 5, 6, 7, 130]);
  });

  it('map HTTP statuses', () => {
    expect([401, 403, 404, 400, 409, 422, 429, 500, 502, 503].map(exitCodeForStatus)).toEqual([3, 3, 4, 5, 5, 5, 5, 7, 7, 7]);
  });

  it('anything unexpected is a bug (exit 1) that says how to report it; prompt aborts are 130', () => {
    const bug = toCliError(new TypeError('x is undefined'));
    expect(bug.exitCode).toBe(1);
    expect(bug.message).toContain('unexpected error');
    expect(bug.hint).toMatch(/bug/);
    const abort = new Error('User force closed the prompt');
    abort.name = 'ExitPromptError';
    expect(toCliError(abort).exitCode).toBe(130);
    const usage = new UsageError('bad');
    expect(toCliError(usage)).toBe(usage);
  });
});

describe('reportError', () => {
  const error = new RejectedError('rejected (400): embossingName is required', { code: 'VALIDATION_ERROR', status: 400, details: [{ field: 'embossingName', message: 'is required' }], hint: 'give --embossing-name' });

  it('prints one error line and one hint line', () => {
    const io = testIO();
    expect(reportError(error, io, {}, {})).toBe(5);
    expect(io.stderrText()).toBe('error: rejected (400): embossingName is required\nhint: give --embossing-name\n');
    expect(io.stdoutText()).toBe('');
  });

  it('adds the JSON object with -o json / --json / CARDCTL_OUTPUT=json', () => {
    for (const [env, globals] of [[{}, { output: 'json' }], [{}, { json: true }], [{ CARDCTL_OUTPUT: 'json' }, {}]] as const) {
      const io = testIO();
      reportError(error, io, env, globals);
      const line = io.stderrText().split('\n')[2]!;
      expect(JSON.parse(line)).toEqual({
        error: { code: 'VALIDATION_ERROR', exitCode: 5, message: 'rejected (400): embossingName is required', status: 400, details: [{ field: 'embossingName', message: 'is required' }], hint: 'give --embossing-name' },
      });
    }
  });

  it('shows a stack trace only with --debug', () => {
    const bug = toCliError(new Error('boom'));
    const quiet = testIO();
    reportError(bug, quiet, {}, {});
    expect(quiet.stderrText()).not.toMatch(/\n\s+at /);
    const debug = testIO();
    reportError(bug, debug, {}, { debug: true });
    expect(debug.stderrText()).toMatch(/\n\s+at /);
  });

  it('is a CliError subclass family', () => {
    expect(new NotFoundError('x')).toBeInstanceOf(CliError);
  });
});
