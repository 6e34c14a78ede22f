// Property-based fuzzing (fast-check) of everything that takes outside input: validators, the
// simulate request builder (--set overrides), main() with random argv, the importer's readers,
// and the HTTP response parser. Fixed seed, bounded runs; `npm run fuzz` raises FUZZ_RUNS.
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { interpret } from '../../src/api/client.js';
import { main } from '../../src/app/cli.js';
import { buildSimulateBody } from '../../src/api/simulate-request.js';
import { CliError, UsageError } from '../../src/core/errors.js';
import {
  validateDate, validateDateTime, validateEmail, validatePan, validatePhone, validatePositiveInt, validateScope, validateUri, validateUrl, validateYearMonth,
} from '../../src/core/validate.js';
import { readCsvRows, readJsonArrayRows, readNdjsonRows, type SourceRow } from '../../src/bulk/readers.js';
import { AmountError, parseAmount } from '../../src/iso8583/amount.js';
import { buildPinBlock } from '../../src/pin/block.js';
import { pinProblem } from '../../src/pin/policy.js';
import { testIO } from '../helpers/context.js';
import { scratchDirs } from '../helpers/dirs.js';

export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const params = (numRuns = FUZZ_RUNS) => ({ seed: SEED, numRuns });
const DOCUMENTED_EXIT_CODES = new Set([0, 2, 3, 4, 5, 6, 7, 8, 130]);

/** Strings people (and fuzzers) type: digits, punctuation, unicode, whitespace. */
const messy = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.stringMatching(/^[0-9 .,:\-+TZ/]{0,30}$/),
  fc.constantFrom('', ' ', '0', '-1', '1e3', 'NaN', 'Infinity', '9'.repeat(40), '2024-02-30', '2024-13-01', '4111111111111111', '\u0000', '１２３４'),
);

/** Runs fn: it must return, or throw a UsageError (or the given class). Anything else fails. */
function valueOrUsage(fn: () => unknown, ...allowed: Array<new (...args: never[]) => Error>): void {
  try {
    fn();
  } catch (error) {
    if (error instanceof UsageError || allowed.some((cls) => error instanceof cls)) return;
    throw error;
  }
}

describe('validators: a value or a UsageError, never another exception', () => {
  const validators: Array<[string, (v: string) => unknown]> = [
    ['validatePan', (v) => validatePan('--pan', v)],
    ['validateDate', (v) => validateDate('--birth-date', v)],
    ['validateDateTime', (v) => validateDateTime('--start-date', v)],
    ['validateYearMonth', (v) => validateYearMonth('--expiration', v)],
    ['validateEmail', (v) => validateEmail('--email', v)],
    ['validatePhone', (v) => validatePhone('--phone', v)],
    ['validatePositiveInt', (v) => validatePositiveInt('--limit', v, 100)],
    ['validateScope', (v) => validateScope('--scope', v)],
    ['validateUrl', (v) => validateUrl('--website-url', v)],
    ['validateUri', (v) => validateUri('--redirect-uri', v)],
  ];
  it.each(validators)('%s', (_name, validate) => {
    fc.assert(fc.property(messy, (value) => valueOrUsage(() => validate(value))), params());
  });

  it('validatePan accepts exactly the Luhn-valid 12-19 digit numbers it returns', () => {
    fc.assert(fc.property(fc.stringMatching(/^\d{12,19}$/), (digits) => {
      try {
        expect(validatePan('--pan', digits)).toMatch(/^\d{12,19}$/);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
      }
    }), params());
  });

  it('parseAmount: minor units or an AmountError; valid amounts round-trip', () => {
    fc.assert(fc.property(messy, fc.integer({ min: 0, max: 3 }), (text, digits) => valueOrUsage(() => parseAmount(text, digits), AmountError)), params());
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 999_999_999_999n }), (minor) => {
      const text = `${minor / 100n}.${String(minor % 100n).padStart(2, '0')}`;
      expect(parseAmount(text, 2)).toBe(minor);
    }), params());
  });

  it('PINs: the policy says yes or why not; blocks are built only for 4-12 digits', () => {
    fc.assert(fc.property(messy, (pin) => {
      const problem = pinProblem(pin);
      expect(problem === undefined || typeof problem === 'string').toBe(true);
      if (problem === undefined) {
        expect(pin).toMatch(/^\d{4,12}$/);
        expect(buildPinBlock(pin)).toHaveLength(8);
      }
    }), params());
  });

  it('simulate request builder (--amount, --set F=V, …): a body or a UsageError', () => {
    const set = fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.tuple(fc.integer({ min: -5, max: 200 }), fc.string({ maxLength: 30 })).map(([f, v]) => `${f}=${v}`)), { maxLength: 4 });
    fc.assert(fc.property(
      fc.constantFrom('authorization', 'financial', 'reversal', 'refund', ''),
      messy, set, fc.option(messy), fc.option(fc.constantFrom('pos', 'atm', 'web', 'mail')), fc.option(messy),
      (intent, amount, overrides, pan, channel, currency) => valueOrUsage(() => buildSimulateBody({
        intent: intent as 'authorization', amount, set: overrides, pan: pan ?? '4111111111111111', expiry: '2812', account: '0123456789',
        channel: channel ?? undefined, currency: currency ?? undefined,
      }), AmountError),
    ), params());
  });
});

describe('main() with random argv: a documented exit code, never a stack trace', () => {
  const words = fc.constantFrom(
    'cards', 'create', 'list', 'get', 'renew', 'pin', 'change', 'reset', 'activate', 'deactivate', 'customer', 'update', 'tx', 'show', 'oauth', 'keygen',
    'users', 'import', 'simulate', 'authorization', 'financial', 'reversal', 'run', 'webhook', 'sandbox', 'serve', 'profile', 'use', 'set', 'auth', 'status',
    'api', 'GET', 'POST', 'help', 'completion', 'bash', '--json', '-o', 'yaml', 'csv', '--fields', '--limit', '--page', '--all', '--amount', '--set', '--pan',
    '--expiry', '--card', '--from-file', '-', '--pin-stdin', '--timeout', '--retries', '--no-retry', '--base-url', 'http://example.com', '--yes', '-q', '--',
    '--quiet', '--no-input', '--expiration', '--start-date', '--birth-date', '--scope', '--unknown', '-Z', '=', '--concurrency', '0', '-1', '1e9',
  );
  const arg = fc.oneof({ weight: 4, arbitrary: words }, { weight: 1, arbitrary: messy });
  it('random command lines', async () => {
    const dirs = scratchDirs();
    await fc.assert(fc.asyncProperty(fc.array(arg, { maxLength: 7 }), async (argv) => {
      // Commands that would wait on a server or stdin are cut short: no base URL, no network.
      if (argv.includes('serve') || argv.includes('listen') || argv.includes('demo')) return;
      const io = testIO({ stdin: '' });
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 5_000);
      const code = await main(argv, { io, env: { ...dirs, CI: '1', CARDCTL_BASE_URL: 'http://127.0.0.1:9' }, signal: controller.signal });
      clearTimeout(timer);
      const stderr = io.stderrText();
      expect(DOCUMENTED_EXIT_CODES.has(code), `exit ${code} for ${JSON.stringify(argv)}: ${stderr}`).toBe(true);
      if (!argv.includes('--debug')) expect(stderr, JSON.stringify(argv)).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    }), params(Math.max(20, Math.round(FUZZ_RUNS / 2))));
  }, 120_000);
});

async function collect(rows: AsyncGenerator<SourceRow>): Promise<SourceRow[]> {
  const out: SourceRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

describe('importer readers: rows or line-numbered errors, never a crash', () => {
  const csvField = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('"quoted, with comma"', '"with ""quotes"""', '"multi\nline"', '"unterminated', 'x"y', '', ' ', '\uFEFF', 'é', '\u0000'),
    fc.string({ minLength: 2_000, maxLength: 8_000 }).map((s) => s.replace(/[",\r\n]/g, 'x')),
  );
  const csvText = fc.tuple(
    fc.boolean(), fc.constantFrom('\n', '\r\n'),
    fc.array(fc.array(csvField, { minLength: 1, maxLength: 5 }), { maxLength: 8 }),
    fc.boolean(),
  ).map(([bom, eol, rows, trailing]) => `${bom ? '\uFEFF' : ''}realId,firstName,card.bin${eol}${rows.map((r) => r.join(',')).join(eol)}${trailing ? eol : ''}`);
  const bytes = fc.uint8Array({ maxLength: 400 }).map((a) => Buffer.from(a));
  const chunked = (data: Buffer | string, size: number) => {
    const buffer = Buffer.from(data);
    const chunks: Buffer[] = [];
    for (let i = 0; i < buffer.length; i += size) chunks.push(buffer.subarray(i, i + size));
    return Readable.from(chunks);
  };

  const checkRows = (rows: SourceRow[]) => {
    for (const row of rows) {
      expect(Number.isInteger(row.line) && row.line >= 1).toBe(true);
      if (row.error !== undefined) expect(typeof row.error).toBe('string');
    }
  };
  /** The reader either yields rows or stops with an error that names a line. */
  const survives = async (rows: AsyncGenerator<SourceRow>) => {
    try {
      checkRows(await collect(rows));
    } catch (error) {
      expect(error instanceof Error, String(error)).toBe(true);
      expect((error as Error).message).toMatch(/line \d+|UTF-8|encoding|empty|header|JSON|array/i);
    }
  };

  it('CSV: quotes, BOM, CRLF, empty lines, huge fields', async () => {
    await fc.assert(fc.asyncProperty(csvText, fc.integer({ min: 1, max: 64 }), async (text, size) => survives(readCsvRows(chunked(text, size)))), params(Math.max(20, Math.round(FUZZ_RUNS / 2))));
  }, 60_000);
  it('CSV, NDJSON, JSON: random bytes and invalid UTF-8', async () => {
    await fc.assert(fc.asyncProperty(bytes, async (data) => {
      await survives(readCsvRows(chunked(Buffer.concat([Buffer.from('realId,firstName\n'), data]), 7)));
      await survives(readNdjsonRows(chunked(data, 5)));
      await survives(readJsonArrayRows(chunked(data, 5)));
    }), params());
  }, 60_000);
  it('NDJSON: lines of JSON values, blank lines, CRLF', async () => {
    const line = fc.oneof(fc.json(), fc.constantFrom('', ' ', '{', '{"realId":', '[1,2]', 'null'));
    await fc.assert(fc.asyncProperty(fc.array(line, { maxLength: 10 }), fc.constantFrom('\n', '\r\n'), async (lines, eol) => {
      const rows = await collect(readNdjsonRows(Readable.from([lines.join(eol)])));
      checkRows(rows);
      // Line numbers are the file's: strictly increasing.
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.line).toBeGreaterThan(rows[i - 1]!.line);
    }), params());
  });
});

describe('HTTP response parser (interpret): data or a CliError with a documented exit code', () => {
  const body = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.json().map((j) => j),
    fc.json().map((j) => j.slice(0, Math.max(0, j.length - 3))),
    fc.record({ statusCode: fc.anything(), message: fc.anything(), data: fc.anything(), error: fc.anything(), errors: fc.anything(), pagination: fc.anything() }, { requiredKeys: [] }).map((o) => JSON.stringify(o) ?? ''),
    fc.uint8Array({ maxLength: 100 }).map((a) => Buffer.from(a).toString('latin1')),
    fc.constantFrom('<html><title>502 Bad Gateway</title></html>', '', 'null', '[]', '{"data":', '{"statusCode":"200"}'),
  );
  it('random statuses, bodies and headers', () => {
    fc.assert(fc.property(
      fc.integer({ min: 100, max: 599 }), body, fc.option(fc.constantFrom('application/json', 'text/html', 'text/plain')), fc.option(fc.string({ maxLength: 10 })), fc.boolean(), fc.constantFrom('GET', 'POST'),
      (status, text, type, retryAfter, envelope, method) => {
        const headers: Record<string, string> = {};
        if (type) headers['content-type'] = type;
        if (retryAfter !== null) headers['retry-after'] = retryAfter;
        try {
          const result = interpret({ method, path: '/x', envelope }, { status, text, headers, durationMs: 1 });
          expect(status).toBeLessThan(400);
          expect(result.status).toBe(status);
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(CliError);
          expect(DOCUMENTED_EXIT_CODES.has((error as CliError).exitCode)).toBe(true);
          expect((error as CliError).exitCode).not.toBe(0);
        }
      },
    ), params(FUZZ_RUNS * 5));
  });
});
