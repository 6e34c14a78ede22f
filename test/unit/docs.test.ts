// The pages of docs/ restate a few tables of the code for readers who have only the page; these
// tests fail when a table changes and its page does not.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ListCardsQuery, LIST_BOUNDS } from '../../src/api/schemas.js';
import { APPROVED_CODES, MTI, POS_ENTRY_MODES, PROCESSING_CODES } from '../../src/iso8583/codes.js';

const page = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

/** The line of `text` that starts with `start`. */
function lineStarting(text: string, start: string): string {
  const line = text.split('\n').find((l) => l.startsWith(start));
  expect(line, `a line starting ${JSON.stringify(start)}`).toBeDefined();
  return line!;
}

/** The values in `code spans` of a line. */
function codeSpans(line: string): string[] {
  return [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

describe('docs/switch.md', () => {
  const text = page('switch.md');

  it('has the MTIs of each intent', () => {
    for (const [intent, { request, response }] of Object.entries(MTI)) {
      expect(text).toContain(`| ${intent} | \`${request}\` | \`${response}\` |`);
    }
  });

  it('has the approved response codes', () => {
    expect(new Set(codeSpans(lineStarting(text, 'Approved codes are')))).toEqual(APPROVED_CODES);
  });
});

describe('docs/webhook-protocol.md', () => {
  const text = page('webhook-protocol.md');

  it('has the processing codes (field 3) and POS entry modes (field 22)', () => {
    expect(codeSpans(lineStarting(text, '| 3 |'))).toEqual(Object.values(PROCESSING_CODES));
    expect(codeSpans(lineStarting(text, '| 22 |'))).toEqual(Object.values(POS_ENTRY_MODES));
  });

  it('has the approved response codes', () => {
    expect(new Set(codeSpans(lineStarting(text, 'Approved codes are')))).toEqual(APPROVED_CODES);
  });
});

describe('docs/sandbox-api.md', () => {
  it('has the bounds and the default of list parameters', () => {
    const text = page('sandbox-api.md').replace(/\s+/g, ' ');
    const limit = ListCardsQuery.properties.limit;
    expect(text).toContain(`goes up to ${LIST_BOUNDS.maxPage.toLocaleString('en')};`);
    expect(text).toContain(`\`limit\` is 1 to ${LIST_BOUNDS.maxLimit} and defaults to ${limit.default}`);
    expect(text).toContain(`Text filters are at most ${LIST_BOUNDS.maxText} characters`);
  });
});

describe('docs/deployment.md', () => {
  const text = page('deployment.md');

  it('has every dialect setting with its default', async () => {
    const { DEFAULT_DIALECT, DIALECT_KEYS, readPath } = await import('../../src/api/dialect.js');
    const rows = text.split('\n').filter((line) => /^\| `(params|paging|maxPageSize|errors)/.test(line)).map((line) => codeSpans(line).slice(0, 2));
    expect(rows).toEqual(Object.keys(DIALECT_KEYS).map((key) => [key, String(readPath(DEFAULT_DIALECT, key))]));
  });

  it('shows examples/dialect.yaml as it is, and the file is a valid dialect', async () => {
    const example = readFileSync(new URL('../../examples/dialect.yaml', import.meta.url), 'utf8');
    expect(text).toContain(`\`\`\`yaml\n${example}\`\`\``);
    const { parseDialectFile, resolveDialect } = await import('../../src/api/dialect.js');
    const dialect = resolveDialect(await parseDialectFile(example, 'examples/dialect.yaml'));
    expect(dialect.params.cards.limit).toBe('pageSize');
    expect(dialect.maxPageSize).toBe(50);
  });
});
