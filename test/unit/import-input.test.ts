// Hostile import input, generated on the fly: endless lines, endless quoted fields, one endless
// JSON element, and files in the wrong encoding. Every reader stops with a file error naming the
// line and the bound, after reading a bounded amount of the input.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { decodeChunks, readBoundedText, TextDecodeError, TextTooLargeError } from '../../src/core/text.js';
import { ImportFileError, MAX_RECORD_CHARS, readCsvRows, readImportRows, readJsonArrayRows, readNdjsonRows, type SourceRow } from '../../src/bulk/readers.js';

const CHUNK = 16 * 1024;

/** An endless stream: `head`, then `fill` repeated forever. Counts the bytes it has handed out. */
function endless(head: string, fill: string | number) {
  const pulled = { bytes: 0 };
  const block = typeof fill === 'number' ? Buffer.alloc(CHUNK, fill) : Buffer.from(fill.repeat(Math.ceil(CHUNK / fill.length)));
  const stream = Readable.from((function* () {
    const first = Buffer.from(head);
    pulled.bytes += first.length;
    yield first;
    for (;;) {
      pulled.bytes += block.length;
      yield block;
    }
  })());
  return { stream, pulled };
}

async function collect(rows: AsyncGenerator<SourceRow>): Promise<SourceRow[]> {
  const out: SourceRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

async function fileError(rows: AsyncGenerator<SourceRow>): Promise<ImportFileError> {
  const error = await collect(rows).then(() => undefined, (e) => e);
  expect(error).toBeInstanceOf(ImportFileError);
  return error as ImportFileError;
}

/** Stopped long before reading everything: at most the bound plus a few chunks of slack. */
const READ_LIMIT = MAX_RECORD_CHARS * 4 + 8 * CHUNK;

describe('one record is bounded, whatever the input', () => {
  it('NDJSON from /dev/zero (no newline ever): an error naming line 1 and the bound', async () => {
    const { stream, pulled } = endless('', 0);
    const error = await fileError(readNdjsonRows(stream));
    expect(error.message).toBe('the NDJSON line is longer than 65,536 characters, the longest a record may be');
    expect(error.line).toBe(1);
    expect(pulled.bytes).toBeLessThan(READ_LIMIT);
  });

  it('NDJSON: an endless line after good ones names its own line', async () => {
    const { stream } = endless('{"a":1}\n\n{"b":2}\n{"c":"', 'x');
    const rows: SourceRow[] = [];
    const error = await (async () => { for await (const row of readNdjsonRows(stream)) rows.push(row); })().then(() => undefined, (e) => e);
    expect(rows.map((r) => r.line)).toEqual([1, 3]);
    expect(error).toBeInstanceOf(ImportFileError);
    expect((error as ImportFileError).line).toBe(4);
  });

  it('CSV from /dev/zero and CSV with a gigantic quoted field: an error, not memory growing', async () => {
    for (const [head, fill] of [['', 0], ['realId,firstName\n', 0], ['realId,firstName\nA,"', 'x'], ['realId,firstName\nA,"', 'a\nb,c""\r\n']] as const) {
      const { stream, pulled } = endless(head, fill);
      const error = await fileError(readCsvRows(stream));
      expect(error.message).toBe('the CSV record is longer than 65,536 characters, the longest a record may be');
      expect(error.line).toBeGreaterThanOrEqual(1);
      expect(pulled.bytes).toBeLessThan(READ_LIMIT);
    }
  });

  it('a JSON array with one endless element, and with an endless string', async () => {
    for (const [head, fill] of [['[{"a":1},\n{"b":[', '1,'], ['[\n"', 'x'], ['[{"a":"', '\\"']] as const) {
      const { stream, pulled } = endless(head, fill);
      const error = await fileError(readJsonArrayRows(stream));
      expect(error.message).toBe('the JSON array element is longer than 65,536 characters, the longest a record may be');
      expect(error.line).toBe(head.startsWith('[{"a":1}') ? 2 : head.includes('\n') ? 2 : 1);
      expect(pulled.bytes).toBeLessThan(READ_LIMIT);
    }
  });

  it('records up to the bound are read; one character more is refused', async () => {
    const fits = `{"a":"${'x'.repeat(MAX_RECORD_CHARS - 8)}"}`;
    expect(fits.length).toBe(MAX_RECORD_CHARS);
    expect(await collect(readNdjsonRows(Readable.from([Buffer.from(`${fits}\n`)])))).toHaveLength(1);
    expect(await collect(readJsonArrayRows(Readable.from([Buffer.from(`[${fits}]`)])))).toHaveLength(1);
    const over = `{"a":"${'x'.repeat(MAX_RECORD_CHARS - 7)}"}`;
    await fileError(readNdjsonRows(Readable.from([Buffer.from(over)])));
    await fileError(readJsonArrayRows(Readable.from([Buffer.from(`[${over}]`)])));
  });

  it.each(['csv', 'ndjson', 'json'] as const)('%s: millions of rows are read lazily (the reader never runs ahead of its consumer)', async (format) => {
    let produced = 0;
    const stream = Readable.from((function* () {
      if (format === 'csv') yield Buffer.from('realId,firstName\n');
      if (format === 'json') yield Buffer.from('[');
      for (let i = 0; i < 5_000_000; i++) {
        produced++;
        const row = format === 'csv' ? `R${i},Ada\n` : `${format === 'json' && i > 0 ? ',' : ''}{"realId":"R${i}"}\n`;
        yield Buffer.from(row);
      }
      if (format === 'json') yield Buffer.from(']');
    })(), { highWaterMark: 16 });
    let consumed = 0;
    for await (const row of readImportRows(stream, format)) {
      expect(row.error).toBeUndefined();
      if (++consumed === 20_000) break;
    }
    // Only the rows asked for, plus what the stream buffers hold, were ever produced.
    expect(produced).toBeLessThan(consumed + 5_000);
    stream.destroy();
  });
});

describe('encodings: invalid UTF-8 is an error naming its line; --encoding converts', () => {
  const latin1Csv = Buffer.concat([Buffer.from('realId,firstName\nA1,Ada\nA2,Ad'), Buffer.from([0xe9]), Buffer.from('\nA3,Bo\n')]);

  it('a Latin-1 CSV is refused at the line of the first bad byte, with a hint', async () => {
    for (const size of [1, 3, 1000]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < latin1Csv.length; i += size) chunks.push(latin1Csv.subarray(i, i + size));
      const error = await fileError(readCsvRows(Readable.from(chunks)));
      expect(error.message).toBe('not valid UTF-8');
      expect(error.line).toBe(3);
      expect(error.hint).toMatch(/--encoding latin1/);
    }
  });

  it('--encoding latin1 converts, utf-16le converts (with its BOM), a UTF-8 BOM is dropped', async () => {
    const latin = await collect(readCsvRows(Readable.from([latin1Csv]), { encoding: 'latin1' }));
    expect(latin.map((r) => (r.value as { firstName: string }).firstName)).toEqual(['Ada', 'Adé', 'Bo']);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('realId,firstName\nA1,Adé 𝒜\n', 'utf16le')]);
    const chunks = [...utf16].map((b) => Buffer.from([b])); // every byte its own chunk
    const rows = await collect(readCsvRows(Readable.from(chunks), { encoding: 'utf-16le' }));
    expect(rows).toEqual([{ line: 2, value: { realId: 'A1', firstName: 'Adé 𝒜' }, text: true }]);
    const bom = await collect(readNdjsonRows(Readable.from([Buffer.from('\uFEFF{"a":"é"}\n')])));
    expect(bom).toEqual([{ line: 1, value: { a: 'é' } }]);
  });

  it('valid multi-byte characters split across chunks decode; invalid and truncated sequences do not', async () => {
    const text = Buffer.from('{"n":"é€𝒜"}\n{"n":"ü"}\n');
    const oneByte = [...text].map((b) => Buffer.from([b]));
    expect((await collect(readNdjsonRows(Readable.from(oneByte)))).map((r) => (r.value as { n: string }).n)).toEqual(['é€𝒜', 'ü']);
    for (const [bytes, line] of [
      [[0x7b, 0x7d, 0x0a, 0xc3], 2], // ends inside a character
      [[0x0a, 0x0a, 0xc3, 0x28], 3], // a lead byte without its continuation
      [[0xed, 0xa0, 0x80], 1], // an encoded surrogate
      [[0xc0, 0xaf], 1], // an overlong encoding
      [[0x61, 0x0a, 0xff], 2],
    ] as const) {
      for (const [reader, head] of [[readNdjsonRows, []], [readJsonArrayRows, [0x5b]]] as const) {
        const error = await fileError(reader(Readable.from([Buffer.from([...head, ...(bytes as readonly number[])])])));
        expect(error.message, JSON.stringify(bytes)).toMatch(/^not valid UTF-8/);
        expect(error.line, JSON.stringify(bytes)).toBe(line);
      }
    }
  });

  it('decodeChunks and readBoundedText: the shared decoder of every text input', async () => {
    const bad = (async function* () { yield Buffer.from('a\nb\n'); yield Buffer.from([0x63, 0xe9, 0x0a]); })();
    const error = await (async () => { for await (const _ of decodeChunks(bad)) { /* drain */ } })().then(() => undefined, (e) => e);
    expect(error).toBeInstanceOf(TextDecodeError);
    expect((error as TextDecodeError).line).toBe(3);
    await expect(readBoundedText(Readable.from([Buffer.from('\uFEFF{"a":1}')]))).resolves.toBe('{"a":1}');
    await expect(readBoundedText(Readable.from([Buffer.from([0x7b, 0x0a, 0xe9])]))).rejects.toThrow('not valid UTF-8 (line 2)');
    const { stream, pulled } = endless('', 0x20);
    await expect(readBoundedText(stream, 1024 * 1024)).rejects.toBeInstanceOf(TextTooLargeError);
    expect(pulled.bytes).toBeLessThan(1024 * 1024 + 2 * CHUNK);
  });
});
