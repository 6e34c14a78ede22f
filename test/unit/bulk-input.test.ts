import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBulkRows, sniffFormat } from '../../src/bulk/input.js';

async function rowsOf(text: string) {
  const { format, input } = await sniffFormat(Readable.from([Buffer.from(text)]));
  const rows = [];
  for await (const row of readBulkRows(input, format)) rows.push(row.value);
  return { format, rows };
}

describe('bulk input from a pipe', () => {
  it.each([
    ['ids one a line', 'c1\n\nc2\r\n', 'ids', [{ id: 'c1' }, { id: 'c2' }]],
    ['NDJSON (`cards list -o ndjson`)', '{"id":"c1","status":"active"}\n{"id":"c2"}\n', 'ndjson', [{ id: 'c1', status: 'active' }, { id: 'c2' }]],
    ['a JSON array', '\uFEFF [{"id":"c1"},{"id":"c2"}]', 'json', [{ id: 'c1' }, { id: 'c2' }]],
    ['CSV', 'id,expiration\nc1,203001\n', 'csv', [{ id: 'c1', expiration: '203001' }]],
    ['a one-column CSV', 'id\nc1\n', 'csv', [{ id: 'c1' }]],
  ])('recognises %s and still reads every byte', async (_name, text, format, rows) => {
    expect(await rowsOf(text)).toEqual({ format, rows });
  });
});
