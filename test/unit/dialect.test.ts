import { describe, expect, test } from 'vitest';
import {
  DEFAULT_DIALECT, DIALECT_KEYS, dialectEntries, dialectOverrides, listQuery, parseDialectFile, readPath, resolveDialect, withDialectValue,
} from '../../src/api/dialect.js';
import { UsageError } from '../../src/core/errors.js';

describe('parseDialectFile', () => {
  test('reads YAML and JSON, keeping only what differs from the default', async () => {
    const yaml = 'params:\n  cards: { limit: pageSize, search: search }\npaging:\n  style: short-page\nmaxPageSize: 50\n';
    expect(await parseDialectFile(yaml, 'd.yaml')).toEqual({ params: { cards: { limit: 'pageSize' } }, paging: { style: 'short-page' }, maxPageSize: 50 });
    expect(await parseDialectFile('{"errors":{"message":"detail"}}', 'd.json')).toEqual({ errors: { message: 'detail' } });
    expect(await parseDialectFile('', 'empty.yaml')).toEqual({});
  });

  test.each([
    ['colour: red', /d\.yaml: unknown setting "colour"/],
    ['params: { cards: { size: x } }', /unknown setting "params\.cards\.size"/],
    ['params: { loans: {} }', /unknown setting "params\.loans"/],
    ['params: { cards: pageSize }', /params\.cards must be a mapping/],
    ['params: { cards: { limit: "page size" } }', /invalid d\.yaml: params\.cards\.limit "page size"/],
    [`params: { cards: { limit: ${'x'.repeat(65)} } }`, /params\.cards\.limit/],
    ['params: { cards: { limit: 5 } }', /params\.cards\.limit 5: expected text/],
    ['params: { cards: { limit: page } }', /params\.cards\.page and params\.cards\.limit are both "page"|params\.cards\.limit and params\.cards\.page are both "page"/],
    ['paging: { style: cursor }', /paging\.style "cursor": expected one of metadata, short-page/],
    ['paging: { pages: "a..b" }', /paging\.pages/],
    ['paging: { pages: "__proto__.x" }', /paging\.pages/],
    ['paging: { pages: data.pages }', /inside the envelope's data/],
    ['errors: { message: error, code: error.kind }', /errors\.message "error" and errors\.code "error\.kind" overlap/],
    ['maxPageSize: 0', /maxPageSize 0: expected a whole number from 1 to 10000/],
    ['maxPageSize: 2.5', /maxPageSize/],
    ['- a\n- b', /expected a mapping/],
    ['{ a: [', /not valid JSON or YAML/],
  ])('refuses %j with one line naming the setting', async (text, message) => {
    const error = await parseDialectFile(text, 'd.yaml').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });
});

test('the keys are the flattened default dialect, each described', () => {
  expect(Object.keys(DIALECT_KEYS)).toEqual(dialectEntries(resolveDialect({})).map(([key]) => key));
  expect(Object.keys(DIALECT_KEYS)).toContain('params.cards.limit');
  expect(Object.keys(DIALECT_KEYS)).toContain('errors.fields');
  for (const description of Object.values(DIALECT_KEYS)) expect(description).toMatch(/^\S.{10,}$/);
});

test('withDialectValue sets, and a default or an empty value removes', () => {
  const one = withDialectValue(undefined, 'params.cards.limit', 'pageSize');
  expect(one).toEqual({ params: { cards: { limit: 'pageSize' } } });
  expect(withDialectValue(one, 'params.cards.limit', 'limit')).toEqual({});
  expect(withDialectValue(one, 'params.cards.limit', undefined)).toEqual({});
  expect(withDialectValue(one, 'maxPageSize', '40')).toEqual({ params: { cards: { limit: 'pageSize' } }, maxPageSize: 40 });
  expect(() => withDialectValue(one, 'params.cards.search', 'pageSize')).toThrow(/both "pageSize"/);
  expect(dialectOverrides(resolveDialect({}))).toEqual({});
});

test('listQuery renames, readPath reads dotted paths', () => {
  const dialect = resolveDialect({ params: { cards: { limit: 'pageSize' } } });
  expect(listQuery(dialect, 'cards', { search: 'x', limit: 5, page: undefined })).toEqual({ search: 'x', pageSize: 5, page: undefined });
  expect(listQuery(DEFAULT_DIALECT, 'transactions', { merchantId: 'm' })).toEqual({ merchantId: 'm' });
  expect(readPath({ error: { detail: 'd' } }, 'error.detail')).toBe('d');
  expect(readPath({ error: 'x' }, 'error.detail')).toBeUndefined();
  expect(readPath({}, 'constructor')).toBeUndefined();
});
