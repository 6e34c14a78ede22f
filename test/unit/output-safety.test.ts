// What hostile data does to the output: CSV cells a spreadsheet would run as formulas, and
// control characters that would drive the terminal, in every format and view of the renderer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Card } from '../../src/api/schemas.js';
import type { GlobalOptions } from '../../src/contract/context.js';
import { csvField, escapeControls, neutralizeFormula } from '../../src/output/format.js';
import { cardColumns } from '../../src/output/columns/cards.js';
import { transactionColumns } from '../../src/output/columns/transactions.js';
import type { Column } from '../../src/output/renderer.js';
import { reportError } from '../../src/app/cli.js';
import { UsageError } from '../../src/core/errors.js';
import { testContext, testIO } from '../helpers/context.js';

const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const FUZZ = { seed: Number(process.env.FUZZ_SEED ?? 20261122), numRuns: FUZZ_RUNS };
/** Strings heavy in the characters that matter here: controls, bidi, formula starters, quotes. */
const hostileText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', '"', ',', "'", '\x1b', '\x07', '\x9b', '\u202e', '\u2066', '\u200b', '\u200d', '\ufeff', '\uff1d', '1', '.', 'e'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 24,
});

const FORMULA = "=cmd|'/C calc'!A0";
// Window title, then red: what a last name must not do to a terminal.
const ESCAPES = 'Obi\x1b]0;pwned\x07\x1b[31mRED\x9b2J\u202Egnp.exe\u2066x\u2069\u200B\uFEFF\r\n\t!';
const ESCAPES_SHOWN = 'Obi\\x1b]0;pwned\\x07\\x1b[31mRED\\x9b2J\\u202egnp.exe\\u2066x\\u2069\\u200b\\ufeff\\r\\n\\t!';

const hostile = {
  id: 'c1',
  status: 'active',
  embossingName: 'ADA OBI',
  customer: { firstName: FORMULA, lastName: ESCAPES },
  amount: '-5.00',
  createdAt: '2026-11-22T10:30:00.000Z',
};
const columns: Column<typeof hostile>[] = [
  { header: 'ID', path: 'id' },
  { header: 'FIRST', path: 'customer.firstName' },
  { header: 'LAST', path: 'customer.lastName' },
  { header: 'AMOUNT', path: 'amount' },
];

async function render(globals: GlobalOptions, options: { tty?: boolean; what?: 'list' | 'record' | 'stream-live' } = {}) {
  const ctx = testContext({ tty: options.tty, globals, env: { CARDCTL_PAGER: 'cat' } });
  const out = ctx.output();
  if (options.what === 'record') await out.record(hostile);
  else if (options.what === 'stream-live') {
    const stream = out.stream(columns, { live: true });
    await stream.write([hostile]);
    await stream.end();
  } else await out.list([hostile], columns);
  return { stdout: ctx.io.stdoutText(), stderr: ctx.io.stderrText() };
}

/** Any C0/C1 control or bidi/format character other than the SGR colour codes the renderer adds itself. */
function rawControls(text: string): string[] {
  // eslint-disable-next-line no-control-regex
  const withoutOwnColour = text.replace(/\x1b\[[0-9;]*m/g, '');
  return [...withoutOwnColour.matchAll(/(?![\n])[\p{Cc}\p{Cf}\u2028\u2029]/gu)].map((m) => m[0]);
}

describe('CSV cells a spreadsheet would evaluate', () => {
  it('get a single quote in front; plain numbers, and text that only contains = + - @, do not', () => {
    for (const cell of ['=1+1', FORMULA, '+cmd', '-2+3', '-5.00+cmd|x', '@SUM(A1:A9)', '\t=1', '\r=1', '\uFF1D1+1', '\uFF20x', '-', '+', '=']) {
      expect(neutralizeFormula(cell), JSON.stringify(cell)).toBe(`'${cell}`);
    }
    for (const cell of ['-5.00', '+3', '5', '1e5', '-1.5E-3', '.5', '', 'a=b', 'x@example.com', 'Ada', '2026-11-22T10:30:00.000Z', ' =1']) {
      expect(neutralizeFormula(cell), JSON.stringify(cell)).toBe(cell);
    }
    // Then RFC 4180 quoting, of the neutralised text.
    expect(csvField('=1,2')).toBe('"\'=1,2"');
    expect(csvField('\r=1')).toBe('"\'\r=1"');
    expect(csvField('=A1&"x"')).toBe('"\'=A1&""x"""');
  });

  it('in a list, a record, and the header of --fields; amounts stay numbers', async () => {
    // The last name (controls, CR LF) is exact in CSV, quoted by RFC 4180.
    const list = (await render({ output: 'csv' })).stdout;
    expect(list).toBe(`id,customer.firstName,customer.lastName,amount\nc1,'${FORMULA},"${ESCAPES}",-5.00\n`);
    const ctx = testContext({ globals: { output: 'csv', fields: 'customer.firstName,=HYPERLINK("x")' } });
    await ctx.output().list([{ customer: { firstName: FORMULA }, '=HYPERLINK("x")': '-1' }], []);
    expect(ctx.io.stdoutText()).toBe(`customer.firstName,"'=HYPERLINK(""x"")"\n'${FORMULA},-1\n`);
    const record = (await render({ output: 'csv' }, { what: 'record' })).stdout;
    expect(record).toContain(`,'${FORMULA},`);
    expect(record).toContain(',-5.00,');
  });

  it('the columns of real resources too: a negative amount is a number, a formula in a name is not', async () => {
    const ctx = testContext({ globals: { output: 'csv', fields: 'id,customer.firstName' } });
    // Two fields of a card, all that --fields asks for: the columns' Card type wants the whole record.
    await ctx.output().list([{ id: '=1', customer: { firstName: '@x' } } as Card], cardColumns);
    expect(ctx.io.stdoutText()).toBe("id,customer.firstName\n'=1,'@x\n");
    expect(transactionColumns.length).toBeGreaterThan(0);
  });

  it('json, ndjson and raw are exact', async () => {
    expect(JSON.parse((await render({ output: 'json' })).stdout)[0].customer.firstName).toBe(FORMULA);
    expect(JSON.parse((await render({ output: 'ndjson' })).stdout).customer.firstName).toBe(FORMULA);
  });
});

describe('control characters in human-readable output', () => {
  it('escapeControls makes C0, C1, bidi and other invisible format characters visible; joiners and letters stay', () => {
    expect(escapeControls(ESCAPES)).toBe(ESCAPES_SHOWN);
    expect(escapeControls('\u0000\u007f\u0085\u00ad\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u2067\u2068\u{E0001}')).toBe(
      '\\x00\\x7f\\x85\\xad\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a\\u202b\\u202c\\u202d\\u2067\\u2068\\u{e0001}',
    );
    for (const text of ['Ada Obi', 'Zoë Ñúñez', 'محمد\u200Cرضا', '👩\u200D💻', 'Łódź', '東京']) expect(escapeControls(text)).toBe(text);
  });

  it('a TTY table, a TTY key/value view and live rows carry no raw control character', async () => {
    for (const what of ['list', 'record', 'stream-live'] as const) {
      const { stdout } = await render({}, { tty: true, what });
      expect(rawControls(stdout), what).toEqual([]);
      expect(stdout, what).toContain('\\x1b]0;pwned\\x07');
    }
    // The renderer's own colour still works (status column of the key/value view is coloured).
    expect((await render({}, { tty: true, what: 'record' })).stdout).toContain('\x1b[');
  });

  it('the piped table and key/value view (tab-separated) and --template escape them too', async () => {
    for (const what of ['list', 'record'] as const) {
      const { stdout } = await render({}, { what });
      expect(rawControls(stdout.replace(/\t/g, ' ')), what).toEqual([]);
      expect(stdout, what).toContain('Obi\\x1b]0;pwned\\x07\\x1b[31mRED');
    }
    const template = await render({ template: '{{.customer.lastName}}\\t{{upper .customer.lastName}}' });
    expect(template.stdout).toBe(`${ESCAPES_SHOWN}\t${ESCAPES_SHOWN.toUpperCase()}\n`);
  });

  it('json and ndjson stay exact', async () => {
    expect(JSON.parse((await render({ output: 'json' })).stdout)[0].customer.lastName).toBe(ESCAPES);
    expect(JSON.parse((await render({ output: 'ndjson' }, { what: 'record' })).stdout).customer.lastName).toBe(ESCAPES);
  });

  it('status lines, empty-list messages and error lines that echo server text', async () => {
    const ctx = testContext({ tty: true });
    ctx.output().success(`created "${ESCAPES}"`);
    await ctx.output().list([], columns, { emptyMessage: `no cards for "${ESCAPES}"` });
    expect(rawControls(ctx.io.stderrText().replace(/\n$/gm, ''))).toEqual([]);
    expect(ctx.io.stderrText()).toContain(ESCAPES_SHOWN);
    ctx.log.warn(`server says ${ESCAPES}`);
    ctx.log.info(`server says ${ESCAPES}`);
    expect(rawControls(ctx.io.stderrText())).toEqual([]);

    const io = testIO();
    reportError(new UsageError(`server said: ${ESCAPES}`, { hint: `try ${ESCAPES}` }), io, {}, {});
    expect(io.stderrText()).toBe(`error: server said: ${ESCAPES_SHOWN}\nhint: try ${ESCAPES_SHOWN}\n`);
  });
});

describe('unknown --fields', () => {
  const records = [
    { id: 'c1', status: 'active', customer: { firstName: 'Ada', middleName: null }, embossingName: 'ADA OBI' },
    { id: 'c2', status: 'active', customer: { firstName: 'Bayo' }, embossingName: 'BAYO' },
  ];
  const cardCols: Column[] = [{ header: 'ID', path: 'id' }, { header: 'NAME', path: 'embossingName' }, { header: 'CITY', path: 'customer.address.city', wide: true }];

  async function attempt(globals: GlobalOptions, what: 'list' | 'stream' | 'record' | 'value' = 'list') {
    const ctx = testContext({ globals, env: { CARDCTL_PAGER: 'cat' } });
    const out = ctx.output();
    const error = await (async () => {
      if (what === 'record') return out.record(records[0]);
      if (what === 'value') return out.value(records);
      if (what === 'stream') {
        const stream = out.stream(cardCols);
        await stream.write(records);
        return stream.end();
      }
      return out.list(records, cardCols);
    })().then(() => undefined, (e) => e);
    return { error, stdout: ctx.io.stdoutText() };
  }

  it('is a usage error naming it and listing the known fields, in every format, with nothing written', async () => {
    for (const output of ['table', 'json', 'ndjson', 'csv'] as const) {
      for (const what of ['list', 'stream', 'record', 'value'] as const) {
        const { error, stdout } = await attempt({ output, fields: 'id,stauts' }, what);
        expect(error?.exitCode, `${output} ${what}`).toBe(2);
        expect(error.message).toBe('unknown field in --fields: "stauts"');
        expect(error.hint).toMatch(/^known fields: .*\bid\b.*\bstatus\b.*customer\.firstName/);
        expect(stdout, `${output} ${what}`).toBe('');
      }
    }
    const two = await attempt({ output: 'json', fields: 'nope,id,customer.nope' });
    expect(two.error.message).toBe('unknown fields in --fields: "nope", "customer.nope"');
  });

  it('with --jq, --template, -q and on a terminal as well', async () => {
    for (const globals of [{ jq: '.', fields: 'x' }, { template: '{{.id}}', fields: 'x' }, { quiet: true, fields: 'x' }] as GlobalOptions[]) {
      expect((await attempt(globals)).error?.exitCode, JSON.stringify(globals)).toBe(2);
    }
    const ctx = testContext({ tty: true, globals: { fields: 'ID,x' }, env: { CARDCTL_PAGER: 'cat' } });
    await expect(ctx.output().list(records, cardCols)).rejects.toMatchObject({ exitCode: 2 });
  });

  it('a column (path or header, any case), a path some record has (null counts), a wide column: all fine', async () => {
    const table = await attempt({ output: 'csv', fields: 'ID,name,customer.firstName,customer.middleName,customer.address.city' });
    expect(table.error).toBeUndefined();
    expect(table.stdout.split('\n')[1]).toBe('c1,ADA OBI,Ada,,');
    const json = await attempt({ output: 'json', fields: 'id,customer.middleName' });
    expect(json.error).toBeUndefined();
    expect(JSON.parse(json.stdout)).toEqual([{ id: 'c1', customer: { middleName: null } }, { id: 'c2' }]);
    // An empty list has nothing to check against: the header alone, as before.
    const ctx = testContext({ globals: { output: 'csv', fields: 'id,whatever' } });
    await ctx.output().list([], cardCols);
    expect(ctx.io.stdoutText()).toBe('id,whatever\n');
  });
});

describe('properties (fast-check; FUZZ_RUNS)', () => {
  it('escapeControls leaves no control, format or separator character but the joiners, and changes nothing else', () => {
    // Without backslashes in the input, the escapes decode back to exactly the input.
    const decode = (t: string) => t.replace(/\\(?:([tnr])|x([0-9a-f]{2})|u([0-9a-f]{4})|u\{([0-9a-f]+)\})/g, (_m, named: string, x: string, u: string, cp: string) =>
      named ? ({ t: '\t', n: '\n', r: '\r' } as Record<string, string>)[named]! : String.fromCodePoint(parseInt(x ?? u ?? cp, 16)));
    fc.assert(fc.property(hostileText.filter((text) => !text.includes('\\')), (text) => {
      const shown = escapeControls(text);
      expect(/(?![\u200C\u200D])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(shown)).toBe(false);
      expect(decode(shown)).toBe(text);
    }), FUZZ);
  });

  it('a CSV cell never starts like a formula unless it is a plain number, and unquotes to the quoted-if-needed text', () => {
    fc.assert(fc.property(hostileText, (text) => {
      const field = csvField(text);
      const cell = field.startsWith('"') ? field.slice(1, -1).replace(/""/g, '"') : field;
      expect(/^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(cell) && !/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(cell)).toBe(false);
      expect(cell === text || cell === `'${text}`).toBe(true);
    }), FUZZ);
  });
});
