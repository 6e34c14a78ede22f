import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { applyJq, JQ_MOST_INPUT, runJq } from '../../src/output/jq.js';
import { CliError, InterruptedError } from '../../src/core/errors.js';
import { testContext } from '../helpers/context.js';

describe('--jq', () => {
  it('prints each result on its own line, strings raw, other values as JSON', async () => {
    expect(await applyJq([{ id: 'a' }, { id: 'b' }], '.[].id')).toBe('a\nb\n');
    expect(await applyJq({ n: 1 }, '.n, {m: .n}')).toBe('1\n{\n  "m": 1\n}\n');
    expect(await applyJq([], '.[]')).toBe('');
  });

  it("errors are usage errors with jq's message", async () => {
    for (const [expression, pattern] of [['.[', /syntax error/], ['error("boom")', /boom/], ['.[] | .x', /Cannot index/]] as const) {
      const error = await applyJq([1], expression).catch((e) => e);
      expect(error, expression).toBeInstanceOf(CliError);
      expect(error.exitCode).toBe(2);
      expect(error.message).toMatch(pattern);
    }
  });

  it('the renderer applies it to the whole list, a record, a streamed list', async () => {
    const ctx = testContext({ globals: { jq: 'map(.id) | join(",")' } });
    expect(ctx.settings().output).toBe('json');
    const out = ctx.output();
    const stream = out.stream([{ header: 'ID', path: 'id' }]);
    stream.write([{ id: 'a' }]);
    stream.write([{ id: 'b' }]);
    await stream.end();
    expect(ctx.io.stdoutText()).toBe('a,b\n');
    const one = testContext({ globals: { jq: '.id', fields: 'id' } });
    await one.output().record({ id: 'x', secret: 1 });
    expect(one.io.stdoutText()).toBe('x\n');
  });

  it('filters yielding many values, large inputs and multi-byte text come out whole and in order', async () => {
    // 200,000 results: many 64 kB chunks from the worker.
    const many = await applyJq(null, '[range(200000)] | .[]');
    expect(many.length).toBe(Array.from({ length: 200000 }, (_, i) => `${i}\n`).join('').length);
    expect(many.startsWith('0\n1\n2\n')).toBe(true);
    expect(many.endsWith('199998\n199999\n')).toBe(true);
    // ~4 MB of input (jq-wasm's own wrapper copied the rest of its input for every byte it read).
    const records = Array.from({ length: 5000 }, (_, i) => ({ id: `card_${i}`, note: 'x'.repeat(800) }));
    const ids = await applyJq(records, '.[].id');
    expect(ids).toBe(records.map((r) => `${r.id}\n`).join(''));
    expect(await applyJq(records, 'length')).toBe('5000\n');
    // Characters of 2, 3 and 4 bytes split across chunk boundaries are not broken.
    const text = 'é€😀'.repeat(50000);
    expect(await applyJq({ text }, '.text')).toBe(`${text}\n`);
    expect(await applyJq({ text }, '.')).toBe(`{\n  "text": "${text}"\n}\n`);
  });

  it('runs over several JSON texts one after the other, and passes debug messages to err', async () => {
    const out: string[] = [];
    const err: string[] = [];
    await runJq('{"id":"a"}\n{"id":"b"}', '.id | debug', { out: (text) => void out.push(text), err: (text) => void err.push(text) });
    expect(out.join('')).toBe('a\nb\n');
    expect(err.join('')).toMatch(/\["DEBUG:","a"\][\s\S]*\["DEBUG:","b"\]/);
  });

  it('an error after some results: those stay printed, then a one-line usage error', async () => {
    const out: string[] = [];
    const error = await runJq('[1,2,"x",4]', '.[] | . + 1', { out: (text) => void out.push(text) }).catch((e) => e);
    expect(out.join('')).toBe('2\n3\n');
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(2);
    expect(error.message).not.toContain('\n');
    expect(error.message).toMatch(/cannot be added/);
  });

  it('an endless filter stops when the signal is aborted (Ctrl-C), with an InterruptedError', async () => {
    const controller = new AbortController();
    let received = '';
    const running = runJq('null', 'repeat(1)', {
      out: (text) => {
        received += text;
        if (received.length > 100_000) controller.abort();
      },
      signal: controller.signal,
    });
    const error = await running.catch((e) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(error.exitCode).toBe(130);
    expect(received.startsWith('1\n1\n1\n')).toBe(true);
  });

  it('a reader that does not take the output holds the filter back (bounded memory), and nothing is lost', async () => {
    // ~35 MB of output if nothing held jq back; the first write does not finish for 3 s.
    const controller = new AbortController();
    const texts: string[] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    // Heap in use after a full collection: what is retained, not garbage waiting to be collected.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const retained = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = retained();
    const running = runJq('null', 'range(1500000) | tostring + "-abcdefghijklmnop"', {
      out: (text) => {
        texts.push(text);
        return texts.length === 1 ? blocked : undefined;
      },
      signal: controller.signal,
    });
    let grown = 0;
    for (let waited = 0; waited < 3000 && grown < 16e6; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      grown = retained() - before;
    }
    // The worker waits once ~1 MB is queued; it would otherwise have sent tens of MB by now.
    expect(grown).toBeLessThan(16e6);
    expect(texts.length).toBe(1);
    release();
    await running;
    const out = texts.join('');
    expect(out.length).toBe(Array.from({ length: 1500000 }, (_, i) => `${i}-abcdefghijklmnop\n`).join('').length);
    expect(out.endsWith('1499999-abcdefghijklmnop\n')).toBe(true);
  });

  it('the renderer runs jq once per page of a live stream (tx tail), over each record', async () => {
    const ctx = testContext({ globals: { jq: '.id' } });
    const stream = ctx.output().stream([{ header: 'ID', path: 'id' }], { live: true });
    await stream.write([{ id: 'a' }, { id: 'b' }]);
    expect(ctx.io.stdoutText()).toBe('a\nb\n');
    await stream.write([]);
    await stream.write([{ id: 'c' }]);
    await stream.end();
    expect(ctx.io.stdoutText()).toBe('a\nb\nc\n');
  });

  // -o ndjson is one compact JSON a line, --jq or not; -o json (and the table) keep jq's pretty print.
  it.each<['ndjson' | 'json', string]>([
    ['ndjson', '{"id":"a","n":{"m":1}}\n{"id":"b","n":{"m":2}}\n'],
    ['json', '{\n  "id": "a",\n  "n": {\n    "m": 1\n  }\n}\n{\n  "id": "b",\n  "n": {\n    "m": 2\n  }\n}\n'],
  ])('-o %s --jq \'.[]\' over a list, a record and a live stream', async (output, expected) => {
    const records = [{ id: 'a', n: { m: 1 } }, { id: 'b', n: { m: 2 } }];
    const list = testContext({ globals: { jq: '.[]', output } });
    await list.output().list(records, [{ header: 'ID', path: 'id' }]);
    expect(list.io.stdoutText()).toBe(expected);
    const record = testContext({ globals: { jq: '.', output } });
    await record.output().record(records[0]!);
    await record.output().record(records[1]!);
    expect(record.io.stdoutText()).toBe(expected);
    const live = testContext({ globals: { jq: '.', output } });
    const stream = live.output().stream([{ header: 'ID', path: 'id' }], { live: true });
    await stream.write(records);
    await stream.end();
    expect(live.io.stdoutText()).toBe(expected);
  });

  it('more JSON than jq can hold is refused before jq runs: one input, or a list as its records come (no more pages read)', async () => {
    const huge = await runJq(`"${'x'.repeat(JQ_MOST_INPUT)}"`, '.', { out: () => {} }).catch((e) => e);
    expect(huge).toBeInstanceOf(CliError);
    expect([huge.exitCode, huge.code]).toEqual([2, 'JQ_INPUT_TOO_LARGE']);
    expect(huge.message).toBe('--jq: the input, 33.6 MB, is more JSON than jq can hold (at most 32 MiB; it has 256 MB of memory)');
    expect(huge.hint).toMatch(/-o ndjson \| jq/);

    const ctx = testContext({ globals: { jq: 'length' } });
    const stream = ctx.output().stream([{ header: 'ID', path: 'id' }]);
    const page = (from: number) => Array.from({ length: 10 }, (_, i) => ({ id: from + i, pad: 'x'.repeat(1024 * 1024) }));
    let pages = 0;
    const refused = await (async () => {
      for (; pages < 10; pages++) await stream.write(page(pages * 10 + 1));
    })().catch((e) => e);
    expect(refused).toBeInstanceOf(CliError);
    expect([refused.exitCode, refused.code]).toEqual([2, 'JQ_INPUT_TOO_LARGE']);
    // 1 MiB and a little a record: the 32nd passes 32 MiB, in the fourth page; no page after it is taken.
    expect(refused.message).toMatch(/^--jq: the list's first 32 records are more JSON than jq can hold/);
    expect(pages).toBe(3);
    expect(ctx.io.stdoutText()).toBe('');
  });

  it('a filter that runs jq out of memory is a usage error that says so, not a crash', async () => {
    for (const expression of ['reduce range(30) as $i ("x"; . + .) | length', 'def f: 1 + f; f']) {
      const error = await applyJq(null, expression).catch((e) => e);
      expect(error, expression).toBeInstanceOf(CliError);
      expect([error.exitCode, error.code, error.message]).toEqual([2, 'JQ_OUT_OF_MEMORY', '--jq: jq ran out of memory (it has 256 MB)']);
    }
  });

  it('--jq with --template is a usage error', () => {
    expect(() => testContext({ globals: { jq: '.', template: '{{.}}' } }).settings()).toThrow(/cannot be used together/);
  });
});
