import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { drained } from '../../src/core/io.js';
import type { GlobalOptions } from '../../src/contract/context.js';
import type { Column } from '../../src/output/renderer.js';
import { csvField, formatDateTime } from '../../src/output/format.js';
import { testContext } from '../helpers/context.js';

interface Card {
  id: string;
  status: string;
  embossingName: string;
  customer: { firstName: string; address: { city: string } };
  createdAt: string;
}

const cards: Card[] = [
  { id: 'c1', status: 'active', embossingName: 'ADA OBI', customer: { firstName: 'Ada', address: { city: 'Lagos' } }, createdAt: '2026-11-22T10:30:00.000Z' },
  { id: 'c2', status: 'suspended', embossingName: 'BAYO "B" ADE, JR', customer: { firstName: 'Bayo', address: { city: 'Abuja\tFCT' } }, createdAt: '2026-11-21T08:00:00.000Z' },
];

const columns: Column<Card>[] = [
  { header: 'ID', path: 'id' },
  { header: 'STATUS', path: 'status', status: true },
  { header: 'NAME', path: 'embossingName' },
  { header: 'CREATED', path: 'createdAt' },
  { header: 'CITY', path: 'customer.address.city', wide: true },
];

async function render(globals: GlobalOptions, options: { tty?: boolean; columns?: number; env?: Record<string, string> } = {}, what: 'list' | 'record' = 'list') {
  const ctx = testContext({ tty: options.tty, globals, env: { CARDCTL_CONFIG_DIR: '/nonexistent-cardctl-test', ...options.env } });
  if (options.columns !== undefined) ctx.io.columns = options.columns;
  const out = ctx.output();
  if (what === 'list') await out.list(cards, columns, { raw: '{"statusCode":200,"data":[]}' });
  else await out.record(cards[0], { raw: '{"statusCode":200,"data":{}}' });
  return { stdout: ctx.io.stdoutText(), stderr: ctx.io.stderrText() };
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[/;

describe('table', () => {
  it('on a TTY: headers, padded columns, local dates, coloured statuses, fitted to the terminal width', async () => {
    const { stdout } = await render({}, { tty: true, columns: 60 });
    const plain = stdout.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
    expect(plain[0]).toMatch(/^ID\s{2,}STATUS\s{2,}NAME/);
    expect(plain[1]).toMatch(/^c1\s{2,}active\s{2,}ADA OBI/);
    expect(plain[1]!.indexOf('active')).toBe(plain[0]!.indexOf('STATUS'));
    expect(stdout).toContain('ID');
    expect(stdout).toContain('STATUS');
    expect(stdout).toMatch(ANSI);
    expect(stdout).toContain('\x1b[32mactive');
    expect(stdout).toContain('\x1b[31msuspended');
    expect(stdout).toContain(formatDateTime('2026-11-22T10:30:00.000Z', true));
    expect(stdout).not.toContain('2026-11-22T10:30:00.000Z');
    expect(stdout).not.toContain('Lagos'); // wide column hidden
    for (const line of stdout.trimEnd().split('\n')) {
      expect(line.replace(/\x1b\[[0-9;]*m/g, '').length).toBeLessThanOrEqual(60);
    }
  });

  it('a long list is drawn in blocks that line up as one table: one header, every row, the same columns', async () => {
    const many = Array.from({ length: 600 }, (_, i) => ({ ...cards[i % 2]!, id: `c${i}`, embossingName: 'N'.repeat(i < 256 ? 3 : 30) }));
    const ctx = testContext({ tty: true, globals: {}, env: { CARDCTL_CONFIG_DIR: '/nonexistent-cardctl-test' } });
    ctx.io.columns = 100;
    await ctx.output().list(many, columns);
    const lines = ctx.io.stdoutText().replace(/\x1b\[[0-9;]*m/g, '').trimEnd().split('\n');
    expect(lines).toHaveLength(601);
    expect(lines.filter((line) => line.startsWith('ID '))).toHaveLength(1);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(many.map((card) => card.id));
    // Where the columns after the names start, in the header and in rows of every block (the
    // first block's names are short, the others' long: widths of a block's own would differ).
    const createdAt = lines[0]!.indexOf('CREATED');
    for (const line of [lines[1]!, lines[256]!, lines[257]!, lines[600]!]) expect(line.slice(createdAt - 2, createdAt + 1)).toMatch(/^  \d$/);
  });

  it('on a narrow terminal long cells are truncated with …', async () => {
    const { stdout } = await render({}, { tty: true, columns: 40 });
    expect(stdout).toContain('…');
    for (const line of stdout.trimEnd().split('\n')) expect(line.replace(/\x1b\[[0-9;]*m/g, '').length).toBeLessThanOrEqual(40);
  });

  it('--no-color / NO_COLOR: no escape codes even on a TTY', async () => {
    expect((await render({ color: false }, { tty: true })).stdout).not.toMatch(ANSI);
    expect((await render({}, { tty: true, env: { NO_COLOR: '1' } })).stdout).not.toMatch(ANSI);
  });

  it('piped: plain tab-separated rows, no header, no colour, ISO dates, tabs in values replaced', async () => {
    const { stdout } = await render({}, { tty: false });
    expect(stdout).toBe(
      'c1\tactive\tADA OBI\t2026-11-22T10:30:00.000Z\n' +
      'c2\tsuspended\tBAYO "B" ADE, JR\t2026-11-21T08:00:00.000Z\n',
    );
  });

  it('--wide adds wide columns; --fields picks columns by path, dot paths allowed', async () => {
    expect((await render({ wide: true })).stdout.split('\n')[1]).toBe('c2\tsuspended\tBAYO "B" ADE, JR\t2026-11-21T08:00:00.000Z\tAbuja FCT');
    expect((await render({ fields: 'id,customer.firstName' })).stdout).toBe('c1\tAda\nc2\tBayo\n');
  });

  it('an empty list on a TTY says so on stderr, stdout stays empty', async () => {
    const ctx = testContext({ tty: true });
    await ctx.output().list([], columns, { emptyMessage: 'no cards' });
    expect(ctx.io.stdoutText()).toBe('');
    expect(ctx.io.stderrText()).toContain('no cards');
  });
});

describe('machine formats', () => {
  it('json: a JSON array of the records, ISO dates, never colour (even on a TTY)', async () => {
    const { stdout } = await render({ output: 'json' }, { tty: true });
    expect(JSON.parse(stdout)).toEqual(cards);
    expect(stdout).not.toMatch(ANSI);
    expect((await render({ json: true })).stdout).toBe(stdout);
  });

  it('json --fields keeps only those properties, nested ones nested', async () => {
    const { stdout } = await render({ output: 'json', fields: 'id,customer.address.city' });
    expect(JSON.parse(stdout)).toEqual([
      { id: 'c1', customer: { address: { city: 'Lagos' } } },
      { id: 'c2', customer: { address: { city: 'Abuja\tFCT' } } },
    ]);
  });

  it('ndjson: one record a line', async () => {
    const lines = (await render({ output: 'ndjson', fields: 'id,status' })).stdout.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([{ id: 'c1', status: 'active' }, { id: 'c2', status: 'suspended' }]);
  });

  it('csv: header row and RFC 4180 quoting', async () => {
    const { stdout } = await render({ output: 'csv', fields: 'id,embossingName,customer.address.city' });
    expect(stdout).toBe('id,embossingName,customer.address.city\nc1,ADA OBI,Lagos\nc2,"BAYO ""B"" ADE, JR",Abuja\tFCT\n');
    expect(csvField('a\nb')).toBe('"a\nb"');
    expect(csvField('plain')).toBe('plain');
  });

  it('csv of an empty list still has its header', async () => {
    const ctx = testContext({ globals: { output: 'csv' } });
    await ctx.output().list([], columns);
    expect(ctx.io.stdoutText()).toBe('id,status,embossingName,createdAt\n');
  });

  it('raw: the body exactly as received', async () => {
    expect((await render({ output: 'raw' })).stdout).toBe('{"statusCode":200,"data":[]}\n');
    expect((await render({ output: 'raw' }, {}, 'record')).stdout).toBe('{"statusCode":200,"data":{}}\n');
  });

  it.each([
    ['ndjson', {}, `${cards.map((card) => JSON.stringify(card)).join('\n')}\n`],
    ['ndjson', { fields: 'id' }, '{"id":"c1"}\n{"id":"c2"}\n'],
    ['csv', { fields: 'id' }, 'id\nc1\nc2\n'],
    ['json', { fields: 'id' }, '[\n  {\n    "id": "c1"\n  },\n  {\n    "id": "c2"\n  }\n]\n'],
  ] as const)('a streamed page may be an iterable that makes each record when reached (%s %o)', async (output, more, expected) => {
    const ctx = testContext({ globals: { output, ...more } });
    const made: string[] = [];
    function* page() {
      for (const card of cards) {
        made.push(card.id);
        yield card;
      }
    }
    const stream = ctx.output().stream(columns);
    await stream.write(page());
    await stream.write([]);
    await stream.end();
    expect(ctx.io.stdoutText()).toBe(expected);
    expect(made).toEqual(['c1', 'c2']);
  });

  it.each(['ndjson', 'csv', 'json'] as const)('rows of any size and script are written whole and in order, across batches (%s)', async (output) => {
    const ctx = testContext({ globals: { output, fields: 'id,embossingName' } });
    // Multi-byte names, and rows far larger than a 64 kB batch among small ones.
    const many = Array.from({ length: 400 }, (_, i) => ({ ...cards[i % 2]!, id: `c${i}`, embossingName: i % 97 === 5 ? 'Ọ̀bí 🃏 '.repeat(9000) : `Adé ${i} 🃏` }));
    const stream = ctx.output().stream(columns);
    await stream.write(many.values());
    await stream.end();
    const picked = many.map((card) => ({ id: card.id, embossingName: card.embossingName }));
    const expected = {
      ndjson: picked.map((row) => `${JSON.stringify(row)}\n`).join(''),
      csv: `id,embossingName\n${picked.map((row) => `${row.id},${csvField(row.embossingName)}\n`).join('')}`,
      json: `${JSON.stringify(picked, null, 2)}\n`,
    }[output];
    expect(ctx.io.stdoutText()).toBe(expected);
  });

  it('--fields is checked against the first records of an iterable page, before any is written', async () => {
    const ctx = testContext({ globals: { output: 'ndjson', fields: 'nope' } });
    function* page() { yield* cards; }
    const error = await ctx.output().stream(columns).write(page()).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/unknown field in --fields: "nope"/);
    expect(ctx.io.stdoutText()).toBe('');
  });

  it('a streamed page settles only once stdout drains, so --all waits for a slow reader', async () => {
    const ctx = testContext({ globals: { output: 'ndjson', fields: 'id' } });
    let written = '';
    let takeNext: (() => void) | undefined;
    // A reader that takes one chunk at a time, only when told to.
    const slow = new Writable({
      highWaterMark: 8,
      write(chunk, _encoding, callback) {
        written += String(chunk);
        takeNext = callback;
      },
    });
    ctx.io.stdout = slow;
    ctx.io.out = (text, written) => void slow.write(text, written);
    ctx.io.drained = () => drained(slow);
    let settled = false;
    const page = ctx.output().stream(columns).write(cards).then(() => { settled = true; });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    for (let turn = 0; turn < 10 && !settled; turn++) {
      const next = takeNext;
      takeNext = undefined;
      next?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await page;
    expect(written).toBe('{"id":"c1"}\n{"id":"c2"}\n');
  });

  it("a batch is filled again only once stdout is done with it: a slow reader's queued rows stay as written", async () => {
    const ctx = testContext({ globals: { output: 'ndjson' } });
    const written: Buffer[] = [];
    const pending: (() => void)[] = [];
    // A reader that takes each chunk later, its bytes read only then (as a pipe's queued writes are).
    const slow = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, callback) {
        pending.push(() => {
          written.push(Buffer.from(chunk));
          callback();
        });
      },
    });
    ctx.io.stdout = slow;
    ctx.io.out = (text, written) => void slow.write(text, written);
    ctx.io.drained = () => drained(slow);
    // Three pages of ~200 kB: several 64 kB batches each.
    const rows = Array.from({ length: 3 }, (_, p) => Array.from({ length: 2000 }, (_, i): Card => ({
      id: `p${p}r${i}`, status: 'active', embossingName: 'x'.repeat(40), customer: { firstName: 'Ada', address: { city: 'Lagos' } }, createdAt: '2026-01-01T00:00:00.000Z',
    })));
    const writing = (async () => {
      const stream = ctx.output().stream(columns);
      for (const page of rows) await stream.write(page);
      await stream.end();
    })();
    let done = false;
    void writing.then(() => { done = true; });
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      pending.shift()?.();
    }
    const expected = rows.flat().map((row) => `${JSON.stringify(row)}\n`).join('');
    // A batch filled again before stdout was done with it would show here.
    expect(Buffer.concat(written).toString()).toBe(expected);
  });

  it('--quiet prints identifiers only, in every format', async () => {
    for (const output of ['table', 'json', 'csv'] as const) {
      expect((await render({ output, quiet: true }, { tty: true })).stdout).toBe('c1\nc2\n');
    }
    expect((await render({ quiet: true }, {}, 'record')).stdout).toBe('c1\n');
  });
});

describe('single record', () => {
  it('TTY: key/value rows with nested keys dotted and local dates', async () => {
    const { stdout } = await render({ color: false }, { tty: true }, 'record');
    expect(stdout).toMatch(/^id\s+c1$/m);
    expect(stdout).toMatch(/^customer\.address\.city\s+Lagos$/m);
    expect(stdout).toContain(formatDateTime('2026-11-22T10:30:00.000Z', true));
  });

  it('piped: key<TAB>value lines; json: the object; --fields applies', async () => {
    expect((await render({}, {}, 'record')).stdout).toContain('customer.firstName\tAda\n');
    expect(JSON.parse((await render({ output: 'json' }, {}, 'record')).stdout)).toEqual(cards[0]);
    expect((await render({ fields: 'id,status' }, {}, 'record')).stdout).toBe('id\tc1\nstatus\tactive\n');
  });

  it('value(): scalars, arrays and objects (the api command)', async () => {
    const ctx = testContext({ globals: { output: 'json' } });
    await ctx.output().value({ a: 1 });
    await ctx.output().value('text');
    expect(ctx.io.stdoutText()).toBe('{\n  "a": 1\n}\n"text"\n');
  });
});

describe('success lines', () => {
  it('go to stderr, and --quiet silences them', () => {
    const ctx = testContext();
    ctx.output().success('Card activated');
    expect(ctx.io.stderrText()).toContain('Card activated');
    expect(ctx.io.stdoutText()).toBe('');
    const quiet = testContext({ globals: { quiet: true } });
    quiet.output().success('Card activated');
    expect(quiet.io.stderrText()).toBe('');
  });
});

describe('terminal size', () => {
  it('a TTY that reports 0 columns is treated as 80 wide, not squeezed', async () => {
    const { stdout } = await render({ color: false }, { tty: true, columns: 0 });
    expect(stdout).toContain('ADA OBI');
    expect(stdout).toContain('suspended');
  });
});

describe('tables at narrow widths', () => {
  // eslint-disable-next-line no-control-regex
  const plain = (text: string) => text.replace(/\x1b\[\d+m/g, '');

  it('never cut an id: the rightmost other columns give way, then are left out; times name their zone', async () => {
    const { transactionColumns } = await import('../../src/output/columns/transactions.js');
    const { localZone } = await import('../../src/output/format.js');
    const tx = {
      id: '6651d00d0c3f1a2b3c4d5e6f', createdAt: '2026-11-22T14:04:05.000Z', mti: '0100', cardData: { pan: '5060990000000123' },
      amounts: { amount: '000000004210', currency: '566' }, responseCode: '00', transactionStatus: 'approved', stan: '000123', rrn: '000000000123',
      merchantId: 'SBXMERCHANT0001', terminalId: 'SBXTERM1',
    };
    for (const columns of [60, 40, 28]) {
      const ctx = testContext({ tty: true, columns });
      await ctx.output().list([tx], transactionColumns as Column[]);
      const lines = plain(ctx.io.stdoutText()).split('\n').filter(Boolean);
      expect(lines[1], `${columns} columns`).toContain(tx.id);
      for (const line of lines) expect(line.length, `${columns} columns: ${line}`).toBeLessThanOrEqual(columns);
    }
    const wide = testContext({ tty: true, columns: 200 });
    await wide.output().list([tx], transactionColumns as Column[]);
    expect(plain(wide.io.stdoutText()).split('\n')[0]).toContain(`Time (${localZone()})`);
    const narrow = testContext({ tty: true, columns: 40 });
    await narrow.output().list([tx], transactionColumns as Column[]);
    // Left out from the right: the merchant and terminal before the time.
    expect(plain(narrow.io.stdoutText()).split('\n')[0]).not.toMatch(/Merchant|Terminal/);
  });

  it('a record names the zone of its times', async () => {
    const { localZone } = await import('../../src/output/format.js');
    const ctx = testContext({ tty: true });
    await ctx.output().record({ id: 'c1', createdAt: '2026-11-22T14:04:05.000Z' });
    expect(plain(ctx.io.stdoutText())).toContain(`createdAt (${localZone()})`);
  });
});
