// The one YAML loader (src/core/yaml.ts): every YAML file a user gives is parsed within its
// bounds, and anything outside them is a usage error naming the file and the line.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDialectFile } from '../../src/api/dialect.js';
import { parseRules } from '../../src/listener/rules.js';
import { UsageError } from '../../src/core/errors.js';
import { parseYamlFile, YAML_LIMITS } from '../../src/core/yaml.js';
import { loadScenario } from '../../src/scenario/scenario.js';

/** A billion laughs: nine levels of nine aliases each. */
const ALIAS_BOMB = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
  .concat(['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((key, i) => {
    const previous = String.fromCharCode(97 + i);
    return `${key}: &${key} [${Array(9).fill(`*${previous}`).join(',')}]`;
  }))
  .join('\n');

describe('parseYamlFile', () => {
  it('gives the value and the line of each node', async () => {
    const file = await parseYamlFile('name: x\nsteps:\n  - id: a\n  - id: b\n', 's.yaml', 'scenario');
    expect(file.value).toEqual({ name: 'x', steps: [{ id: 'a' }, { id: 'b' }] });
    expect(file.lineOf(['steps', 1])).toBe(4);
  });

  it.each([
    ['an alias bomb', ALIAS_BOMB, /^invalid scenario s\.yaml: expands more than 100 aliases$/],
    ['flow collections nested 10,000 deep', `a: ${'['.repeat(10_000)}`, /^invalid scenario s\.yaml \(line 1\): nests more than 100 levels deep$/],
    ['block sequences nested 100,000 deep', `x: 1\n${'- '.repeat(100_000)}x`, /\(line 2\): nests more than 100 levels deep$/],
    ['brackets hidden from a count in quotes', `a: ${'[ "]" '.repeat(200)}`, /nests more than 100 levels deep/],
    ['more than 1 MiB', `a: "${'x'.repeat(YAML_LIMITS.maxBytes)}"`, /bytes, more than the 1048576 a file may hold$/],
    ['a syntax error', 'a: [1, 2\nb: 3\n', /^invalid scenario s\.yaml \(line \d\): not valid JSON or YAML \(/],
    ['a key given twice', 'a: 1\na: 2\n', /^invalid scenario s\.yaml \(line 2\): not valid JSON or YAML \(Map keys must be unique/],
  ])('refuses %s with a one-line usage error, at once', async (_what, text, message) => {
    const started = performance.now();
    const error = await parseYamlFile(text, 's.yaml', 'scenario').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('reads a megabyte map of 100,000 keys in linear time (the parser\'s own unique-key check took 80 s)', async () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `k${i}: v`).join('\n');
    // CPU time, not wall-clock time: a loaded machine slows the clock, not the work.
    const before = process.cpuUsage();
    const file = await parseYamlFile(text, 'big.yaml', 'scenario');
    expect(Object.keys(file.value as object)).toHaveLength(100_000);
    const { user, system } = process.cpuUsage(before);
    expect((user + system) / 1000).toBeLessThan(20_000);
    await expect(parseYamlFile(`${text}\nk5: again`, 'big.yaml', 'scenario')).rejects.toThrow(/\(line 100001\): not valid JSON or YAML \(Map keys must be unique: "k5" is given twice\)/);
  }, 60_000);

  it('takes ordinary aliases and nesting', async () => {
    const file = await parseYamlFile('base: &b { mode: approve }\nx: *b\ny: [[[[1]]]]\n', 'f.yaml', 'scenario');
    expect(file.value).toEqual({ base: { mode: 'approve' }, x: { mode: 'approve' }, y: [[[[1]]]] });
  });
});

describe('every YAML file goes through it', () => {
  it.each([
    ['a scenario', () => loadScenario(ALIAS_BOMB, 'bomb.yaml'), /^invalid scenario bomb\.yaml: expands more than 100 aliases/],
    ['a dialect file', () => parseDialectFile(ALIAS_BOMB, 'bomb.yaml'), /^invalid dialect file bomb\.yaml: expands more than 100 aliases/],
    ['a rules file', () => parseRules(ALIAS_BOMB, 'bomb.yaml'), /^invalid rules file bomb\.yaml: expands more than 100 aliases/],
    ['a deep dialect file', () => parseDialectFile(`params: ${'{a: '.repeat(5000)}`, 'deep.yaml'), /^invalid dialect file deep\.yaml \(line 1\): nests more than 100 levels deep/],
  ])('%s: an alias bomb or deep nesting is a usage error (exit 2), not a crash', async (_what, load, message) => {
    const error = await load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});

it('no other module of src/ loads the yaml package', () => {
  const src = fileURLToPath(new URL('../../src/', import.meta.url));
  const loaders = (readdirSync(src, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .filter((file) => /from 'yaml'|import\('yaml'\)/.test(readFileSync(join(src, file), 'utf8')));
  expect(loaders).toEqual([join('core', 'yaml.ts')]);
});
