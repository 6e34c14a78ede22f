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

describe('an input bound to its report', () => {
  it('stdin or a pipe is copied to a file only its owner can read, hashed on the way, and removed after', async () => {
    const { createHash } = await import('node:crypto');
    const { existsSync, readFileSync, statSync } = await import('node:fs');
    const { spoolInput } = await import('../../src/bulk/input.js');
    const chunks = ['c1\n', '', 'c2\n', 'c3'];
    const bound = await spoolInput(Readable.from(chunks.map((c) => Buffer.from(c))));
    expect(readFileSync(bound.path, 'utf8')).toBe('c1\nc2\nc3');
    expect(bound.digest).toBe(`sha256:${createHash('sha256').update('c1\nc2\nc3').digest('hex')}`);
    expect(bound.bytes).toBe(8);
    if (process.platform !== 'win32') expect(statSync(bound.path).mode & 0o777).toBe(0o600);
    bound.remove();
    expect(existsSync(bound.path)).toBe(false);
  });

  it('peek passes over empty chunks: a stream of empty chunks has no head', async () => {
    const { peek } = await import('../../src/bulk/input.js');
    expect((await peek(Readable.from([Buffer.alloc(0), Buffer.alloc(0)]))).head).toBeUndefined();
    const { head, input } = await peek(Readable.from([Buffer.alloc(0), Buffer.from('a'), Buffer.from('b')]));
    expect(String(head)).toBe('a');
    const rest = [];
    for await (const chunk of input) rest.push(String(chunk));
    expect(rest.join('')).toBe('ab');
  });

  it('a temporary folder that cannot be made is a set-up error naming it', async () => {
    const { spoolInput } = await import('../../src/bulk/input.js');
    const { SetupError } = await import('../../src/core/errors.js');
    const before = process.env.TMPDIR;
    process.env.TMPDIR = '/nonexistent-cardctl-tmp/x';
    try {
      const error = await spoolInput(Readable.from([Buffer.from('c1\n')])).catch((e) => e);
      expect(error).toBeInstanceOf(SetupError);
      expect(error.message).toMatch(/cannot make a temporary folder for the rows in \/nonexistent-cardctl-tmp\/x: it does not exist/);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });
});

describe('--from-file - with nothing on stdin', () => {
  // The hint says what this verb takes on stdin: ids for the card verbs, rows for import,
  // create and customer update (a list of ids would not do for those).
  it.each([
    [['cards', 'deactivate', '--from-file', '-', '--yes'], '--from-file', /pipe the card ids in, one a line, e.g\. cardctl cards list -q/],
    [['cards', 'renew', '--from-file', '-', '--expiration', '203001'], '--from-file', /pipe the card ids \(or CSV or NDJSON rows\) in, e\.g\. cardctl cards list -q/],
    [['cards', 'customer', 'update', '--from-file', '-', '--reason', 'fix'], '--from-file', /pipe CSV or NDJSON rows in \(id and the fields to change\)/],
    [['cards', 'create', '--rows-from-file', '-', '--program', 'P'], '--rows-from-file', /pipe CSV or NDJSON rows in, one card a row/],
    [['import', '--from-file', '-', '--format', 'csv'], '--from-file', /pipe CSV or NDJSON rows in, one card a row, e\.g\. cat cards\.ndjson \| cardctl import --from-file -/],
  ])('%j: the error names the flag, the hint what to pipe', async (args, flag, hint) => {
    const { main } = await import('../../src/app/cli.js');
    const { testIO } = await import('../helpers/context.js');
    const { scratchDirs } = await import('../helpers/dirs.js');
    const io = testIO({ stdin: '' });
    const code = await main(args, { io, env: { CARDCTL_BASE_URL: 'http://127.0.0.1:4010', CARDCTL_TOKEN: 't', ...scratchDirs(), CI: '1' }, signal: new AbortController().signal });
    expect(code, io.stderrText()).toBe(2);
    expect(io.stderrText().split('\n')[0]).toBe(`error: ${flag} -: stdin gave no rows (it was empty or closed)`);
    expect(io.stderrText()).toMatch(hint);
  });
});
