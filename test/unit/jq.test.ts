import { describe, expect, it } from 'vitest';
import { applyJq } from '../../src/output/jq.js';
import { CliError } from '../../src/core/errors.js';
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

  it('--jq with --template is a usage error', () => {
    expect(() => testContext({ globals: { jq: '.', template: '{{.}}' } }).settings()).toThrow(/cannot be used together/);
  });
});
