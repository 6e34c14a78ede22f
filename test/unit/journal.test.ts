import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, affectedIds, type JournalEntry } from '../../src/audit/journal.js';
import { isMutation } from '../../src/api/mutation.js';
import { holdJournal, journalRecorder } from '../../src/audit/record.js';
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

  it('writes into the current file again once another process has rotated or removed it', async () => {
    const dir = tempDir(); dirs.push(dir);
    const journal = new Journal({}, { dir: dir.path });
    journal.append(entry({ ids: ['c1'] }));
    renameSync(journal.file, join(dir.path, 'journal.1.ndjson'));
    // The file is kept open between entries and looked at again within 200 ms.
    await new Promise((resolve) => setTimeout(resolve, 500));
    journal.append(entry({ ids: ['c2'] }));
    expect(readFileSync(journal.file, 'utf8').trim().split('\n').map((line) => JSON.parse(line).ids)).toEqual([['c2']]);
    rmSync(journal.file);
    await new Promise((resolve) => setTimeout(resolve, 500));
    journal.append(entry({ ids: ['c3'] }));
    expect(readFileSync(journal.file, 'utf8').trim().split('\n').map((line) => JSON.parse(line).ids)).toEqual([['c3']]);
    expect(statSync(journal.file).mode & 0o777).toBe(0o600);
    expect([...journal.read()].map((e) => e.ids)).toEqual([['c1'], ['c3']]);
  });

  it('while a bulk run holds it, writes the entries of one turn of the event loop together at its end, in order', async () => {
    const dir = tempDir(); dirs.push(dir);
    const journal = new Journal({}, { dir: dir.path });
    const facts = { profile: 'default', env: 'sandbox', baseUrl: 'http://127.0.0.1:4010', argv: [], flags: [], now: () => new Date(), secrets: () => ['tok_profile_secret_0123456789'] };
    const record = journalRecorder(() => journal, facts, () => {});
    const deactivated = (id: string) => ({ method: 'GET' as const, path: `/institutions/cards/${id}/deactivate`, status: 200, message: 'tok_profile_secret_0123456789 ok', data: { id }, durationMs: 1 });
    const written = () => (existsSync(journal.file) ? readFileSync(journal.file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)) : []);
    const release = holdJournal();
    try {
      record(deactivated('c1'));
      record(deactivated('c2'));
      expect(written()).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(written().map((e) => e.ids)).toEqual([['c1'], ['c2']]);
      expect(written().map((e) => e.message)).toEqual(['[REDACTED] ok', '[REDACTED] ok']);
      record(deactivated('c3'));
    } finally {
      release();
    }
    // Released: what was waiting is written, and the next entry at once.
    expect(written().map((e) => e.ids)).toEqual([['c1'], ['c2'], ['c3']]);
    record(deactivated('c4'));
    expect(written().map((e) => e.ids)).toEqual([['c1'], ['c2'], ['c3'], ['c4']]);
    expect(statSync(journal.file).mode & 0o777).toBe(0o600);
  });

  it('rotates lines written together where it rotates lines written one by one, and read() writes what is waiting first', () => {
    const files = (journal: Journal) => Object.fromEntries(readdirSync(journal.dir).sort().map((name) => [name, readFileSync(join(journal.dir, name), 'utf8')]));
    const one = tempDir(); dirs.push(one);
    const together = tempDir(); dirs.push(together);
    const atOnce = new Journal({}, { dir: one.path, maxBytes: 700, keep: 3 });
    const later = new Journal({}, { dir: together.path, maxBytes: 700, keep: 3 });
    for (let i = 0; i < 20; i++) {
      atOnce.append(entry({ ids: [`c${i}`] }));
      later.append(entry({ ids: [`c${i}`] }), [], { later: true });
      if (i % 5 === 4) later.flush();
    }
    expect([...later.read()].map((e) => e.ids[0])).toEqual([...atOnce.read()].map((e) => e.ids[0]));
    expect(Object.keys(files(later))).toHaveLength(4);
    expect(files(later)).toEqual(files(atOnce));
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
    expect(() => parseSince('yesterday', now)).toThrow(/invalid --since "yesterday": expected/);
  });
});

describe('audit journal: secrets and card numbers in free text', () => {
  const TOKEN = 'tok_profile_secret_0123456789';
  const API_KEY = 'key_profile_secret_0123456789';
  const PANS = ['4111 1111 1111 1111', '4111-1111-1111-1111', '4111111111111111', '3782 822463 10005', '5060 9900 0000 0000 001'];
  const KEEP = ['+234 801 234 5678', '0801 234 5678', '0123456789', '1500.00', '-5.00', '2026-11-22', '12345678901234567890123', '4111 1111 1111 1112'];

  it.each(PANS)('masks the card number %j in every field, alone or inside text', (pan) => {
    const dir = tempDir(); dirs.push(dir);
    const journal = new Journal({}, { dir: dir.path });
    journal.append(entry({ command: `cardctl cards customer update c1 --address-line1 "${pan} Marina"`, reason: `card ${pan}`, message: `ok ${pan}.`, ids: [pan], path: `/institutions/cards/${pan}` }));
    const text = readFileSync(journal.file, 'utf8');
    const digits = pan.replace(/\D/g, '');
    expect(text).not.toContain(pan);
    expect(text).not.toContain(digits);
    expect(text.match(new RegExp(`${digits.slice(0, 6)}\\*+${digits.slice(-4)}`, 'g'))).toHaveLength(5);
  });

  it('leaves numbers that are not card numbers alone', () => {
    const dir = tempDir(); dirs.push(dir);
    const journal = new Journal({}, { dir: dir.path });
    const reason = `called ${KEEP.join(', ')}`;
    journal.append(entry({ reason, message: reason }));
    const [stored] = [...journal.read()];
    expect(stored!.reason).toBe(reason);
    expect(stored!.message).toBe(reason);
  });

  it('replaces the known secrets (given, and CARDCTL_TOKEN / CARDCTL_API_KEY / CARDCTL_WEBHOOK_SECRET) wherever they appear', () => {
    const dir = tempDir(); dirs.push(dir);
    const journal = new Journal({ CARDCTL_TOKEN: 'tok_env_secret_0123456789', CARDCTL_API_KEY: API_KEY, CARDCTL_WEBHOOK_SECRET: 'whsec_env_hook_0123456789' }, { dir: dir.path });
    journal.append(entry({
      command: `cardctl cards deactivate c1 --reason "pasted ${TOKEN} by mistake"`,
      reason: `pasted ${TOKEN}, tok_env_secret_0123456789, whsec_env_hook_0123456789 and ${API_KEY}`,
      message: `x${TOKEN}x`,
      ids: [TOKEN],
    }), [TOKEN, undefined, 't']);
    const text = readFileSync(journal.file, 'utf8');
    for (const secret of [TOKEN, 'tok_env_secret_0123456789', 'whsec_env_hook_0123456789', API_KEY]) expect(text).not.toContain(secret);
    expect([...journal.read()][0]!.reason).toBe('pasted [REDACTED], [REDACTED], [REDACTED] and [REDACTED]');
    // A one-letter "secret" (a test token) does not blank every t of the entry.
    expect(text).toContain('cardctl cards deactivate');
  });

  it('through a command: the profile token in --reason and a spaced card number in --address-line1', async () => {
    const { startTestServer, envelope } = await import('../helpers/http-server.js');
    const { main } = await import('../../src/app/cli.js');
    const { testIO } = await import('../helpers/context.js');
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const server = await startTestServer((_req, res) => envelope(res, { id: 'c1', status: 'suspended' }));
    const dir = tempDir(); dirs.push(dir);
    try {
      writeFileSync(join(dir.path, 'config.json'), JSON.stringify({ currentProfile: 'p', profiles: { p: { baseUrl: server.url, token: TOKEN, apiKey: API_KEY } } }));
      const env = { CARDCTL_CONFIG_DIR: dir.path, CARDCTL_DATA_DIR: dir.path, CI: '1' };
      const deactivate = await main(['cards', 'deactivate', 'c1', '--yes', '--reason', `lost; token ${TOKEN}`], { io: testIO(), env, signal: new AbortController().signal });
      expect(deactivate).toBe(0);
      const update = await main(['api', 'PUT', '/institutions/cards/c1/customer', '--data', '{"addressLine1":"4111 1111 1111 1111, Marina"}'], { io: testIO(), env, signal: new AbortController().signal });
      expect(update).toBe(0);
      const journal = new Journal(env);
      const text = readFileSync(journal.file, 'utf8');
      // Two calls: the intent of each, then its outcome.
      expect([...journal.read()].map((entry) => entry.phase ?? 'outcome')).toEqual(['intent', 'outcome', 'intent', 'outcome']);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('4111 1111 1111 1111');
      expect(text).toContain('411111******1111');
      expect(text).toContain('[REDACTED]');
    } finally {
      await server.close();
    }
  });
});
