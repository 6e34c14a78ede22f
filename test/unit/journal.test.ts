import { readFileSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, affectedIds, isMutation, type JournalEntry } from '../../src/audit/journal.js';
import { parseSince } from '../../src/commands/history.js';
import { tempDir } from '../helpers/cli.js';

const dirs: Array<{ remove(): void }> = [];
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

function entry(overrides: Partial<JournalEntry> = {}): JournalEntry {
  return {
    time: '2026-11-22T10:00:00.000Z', profile: 'default', env: 'sandbox', baseUrl: 'http://127.0.0.1:4010', operator: 'ada',
    command: 'cardctl cards renew c1 --expiration 202912', method: 'PUT', path: '/institutions/cards/c1/renew', status: 200,
    message: 'ok', ids: ['c1'], durationMs: 12, ...overrides,
  };
}

describe('audit journal', () => {
  it('appends one line per entry with mode 0600 in a 0700 directory', () => {
    const dir = tempDir(); dirs.push(dir);
    const journal = new Journal({}, { dir: `${dir.path}/journal` });
    journal.append(entry());
    journal.append(entry({ ids: ['c2'] }));
    expect(readFileSync(journal.file, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(statSync(journal.file).mode & 0o777).toBe(0o600);
    expect(statSync(journal.dir).mode & 0o777).toBe(0o700);
    expect([...journal.read()].map((e) => e.ids)).toEqual([['c1'], ['c2']]);
  });

  it('never stores a full PAN, token or PIN block', () => {
    const dir = tempDir(); dirs.push(dir);
    const journal = new Journal({}, { dir: dir.path });
    journal.append(entry({
      command: 'cardctl simulate authorization --pan 4111111111111111 --expiry 2912',
      message: 'card 4111111111111111 renewed',
      ...({ token: 'tok_secret_value', encryptedData: 'abcdef' } as object),
    }));
    const text = readFileSync(journal.file, 'utf8');
    expect(text).not.toContain('4111111111111111');
    expect(text).toContain('411111******1111');
    expect(text).not.toContain('tok_secret_value');
    expect(text).not.toContain('abcdef');
  });

  it('rotates at the size limit and keeps the last N files, reading oldest first', () => {
    const dir = tempDir(); dirs.push(dir);
    const journal = new Journal({}, { dir: dir.path, maxBytes: 400, keep: 2 });
    for (let i = 0; i < 20; i++) journal.append(entry({ ids: [`c${i}`] }));
    expect(journal.files().length).toBe(3);
    const ids = [...journal.read()].map((e) => Number(e.ids[0]!.slice(1)));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids.at(-1)).toBe(19);
    expect(ids.length).toBeLessThan(20);
  });

  it('knows which calls mutate and which ids they affect', () => {
    expect(isMutation('GET', '/institutions/cards')).toBe(false);
    expect(isMutation('GET', '/institutions/cards/c1/deactivate')).toBe(true);
    expect(isMutation('POST', '/institutions/cards')).toBe(true);
    expect(isMutation('POST', '/oauth/token')).toBe(false);
    expect(affectedIds('/institutions/cards/pin/c9/reset', { id: 'c9' })).toEqual(['c9']);
    expect(affectedIds('/institutions/cards', { id: 'new1' })).toEqual(['new1']);
  });

  it('parses --since durations and dates', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    expect(parseSince('24h', now).toISOString()).toBe('2026-11-21T12:00:00.000Z');
    expect(parseSince('2026-11-20', now).toISOString()).toBe('2026-11-20T00:00:00.000Z');
    expect(() => parseSince('yesterday', now)).toThrow(/invalid time/);
  });
});
