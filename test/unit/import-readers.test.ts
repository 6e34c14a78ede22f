import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatFromPath, ImportFileError, readCsvRows, readJsonArrayRows, readNdjsonRows, type SourceRow } from '../../src/bulk/readers.js';

async function collect(gen: AsyncGenerator<SourceRow>): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  for await (const row of gen) rows.push(row);
  return rows;
}

/** A stream that delivers the text in small chunks, to exercise chunk boundaries. */
function chunked(text: string, size = 3): Readable {
  const parts: Buffer[] = [];
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
}

describe('readCsvRows', () => {
  it('maps dotted headers to nested objects and counts lines from the header as line 1', async () => {
    const rows = await collect(readCsvRows(Readable.from(['realId,active,card.expiration,card.bin\nA1,true,202812,506099\nA2,false,202901,506100\n'])));
    expect(rows).toEqual([
      { line: 2, value: { realId: 'A1', active: 'true', card: { expiration: '202812', bin: '506099' } }, text: true },
      { line: 3, value: { realId: 'A2', active: 'false', card: { expiration: '202901', bin: '506100' } }, text: true },
    ]);
  });

  it('handles a BOM, CRLF, quoted commas, quotes and newlines, and empty lines', async () => {
    const text = '\uFEFFrealId,firstName,address1\r\nR1,"Obi, Ada","1 ""Marina"" Rd"\r\n\r\nR2,Ada,"line one\r\nline two"\r\nR3,Bo,x\r\n';
    const rows = await collect(readCsvRows(chunked(text, 5)));
    expect(rows.map((r) => r.line)).toEqual([2, 4, 6]);
    expect(rows[0]!.value).toEqual({ realId: 'R1', firstName: 'Obi, Ada', address1: '1 "Marina" Rd' });
    expect(rows[1]!.value).toEqual({ realId: 'R2', firstName: 'Ada', address1: 'line one\r\nline two' });
    expect((rows[2]!.value as { realId: string }).realId).toBe('R3');
  });

  it('reports rows with the wrong number of fields as errors with their line, and keeps going', async () => {
    const rows = await collect(readCsvRows(Readable.from(['a,b\n1,2\n1,2,3\n4\n5,6'])));
    expect(rows.map((r) => [r.line, r.error === undefined])).toEqual([[2, true], [3, false], [4, false], [5, true]]);
    expect(rows[1]!.error).toMatch(/3 fields, the header has 2/);
  });

  it('rejects unknown columns up front when the allowed ones are given', async () => {
    await expect(collect(readCsvRows(Readable.from(['realId,nmae\n1,2\n']), { columns: ['realId', 'name'] }))).rejects.toThrow(/unknown CSV column "nmae"/);
  });

  it('rejects an empty file and a header with duplicate columns', async () => {
    await expect(collect(readCsvRows(Readable.from(['\n\n'])))).rejects.toBeInstanceOf(ImportFileError);
    await expect(collect(readCsvRows(Readable.from(['a,a\n1,2\n'])))).rejects.toThrow(/twice/);
  });

  it('an unterminated quote makes an invalid row, not a crash', async () => {
    const rows = await collect(readCsvRows(Readable.from(['a,b\n1,2\n3,"4\n'])));
    expect(rows).toEqual([{ line: 2, value: { a: '1', b: '2' }, text: true }, { line: 3, error: expect.stringMatching(/Quote Not Closed/) }]);
  });

  it('counts lines of records after quoted CRLF and LF line breaks physically', async () => {
    const text = 'a,b\r\n"x\r\ny\r\nz",1\r\n"p\nq",2\r\nlast,3\r\n';
    const rows = await collect(readCsvRows(chunked(text, 4)));
    expect(rows.map((r) => r.line)).toEqual([2, 5, 7]);
  });
});

describe('readNdjsonRows', () => {
  it('yields one object a line, skips blank lines, reports bad JSON with its line', async () => {
    const rows = await collect(readNdjsonRows(chunked('\uFEFF{"realId":"A"}\r\n\r\n{bad\n{"realId":"C"}', 4)));
    expect(rows).toEqual([
      { line: 1, value: { realId: 'A' } },
      expect.objectContaining({ line: 3, error: expect.stringMatching(/not valid JSON/) }),
      { line: 4, value: { realId: 'C' } },
    ]);
  });
});

describe('readJsonArrayRows', () => {
  it('streams the elements of an array with the line each starts on, across chunk boundaries', async () => {
    const text = '[\n  {"realId": "A", "card": {"bin": "506099"}},\n  {"realId": "B,]}\\"x",\n   "n": [1, {"a": 2}]\n  }, 7, "s"\n]\n';
    for (const size of [1, 2, 7, 1000]) {
      const rows = await collect(readJsonArrayRows(chunked(text, size)));
      expect(rows).toEqual([
        { line: 2, value: { realId: 'A', card: { bin: '506099' } } },
        { line: 3, value: { realId: 'B,]}"x', n: [1, { a: 2 }] } },
        { line: 5, value: 7 },
        { line: 5, value: 's' },
      ]);
    }
  });

  it('handles an empty array and a BOM', async () => {
    expect(await collect(readJsonArrayRows(Readable.from(['\uFEFF[ ]'])))).toEqual([]);
  });

  it('rejects what is not an array, and a truncated array', async () => {
    await expect(collect(readJsonArrayRows(Readable.from(['{"realId":"A"}'])))).rejects.toThrow(/must be an array/);
    await expect(collect(readJsonArrayRows(Readable.from(['[{"realId":"A"}, {"realId"'])))).rejects.toThrow(/truncated/);
    await expect(collect(readJsonArrayRows(Readable.from(['[{"a":1}'])))).rejects.toThrow(/not closed/);
    await expect(collect(readJsonArrayRows(Readable.from(['[{"a":1} {"b":2}]'])))).rejects.toThrow(/expected ","/);
  });

  it('reports an element that is not valid JSON and continues', async () => {
    const rows = await collect(readJsonArrayRows(Readable.from(['[{"a":1},\n{"b":tru},\n{"c":3}]'])));
    expect(rows.map((r) => [r.line, r.error ? 'error' : 'ok'])).toEqual([[1, 'ok'], [2, 'error'], [3, 'ok']]);
  });
});

describe('formatFromPath', () => {
  it('knows the extensions', () => {
    expect(formatFromPath('a/b.CSV')).toBe('csv');
    expect(formatFromPath('x.ndjson')).toBe('ndjson');
    expect(formatFromPath('x.jsonl')).toBe('ndjson');
    expect(formatFromPath('x.json')).toBe('json');
    expect(formatFromPath('x.txt')).toBeUndefined();
  });
});
