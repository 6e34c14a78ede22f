// The CLI against sandboxes speaking other deployment dialects (`sandbox serve --dialect FILE`),
// with a profile set to match: every list parameter renamed and short pages ending a list; then
// paging metadata and error members at other paths. Every command that lists or can fail with
// an API error is run through its list and error paths. A profile that does not match gets the
// wrong answers the defaults would give such a deployment, so this suite can fail.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPath } from '../../src/core/object-path.js';
import { cardctl, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { createCardOverHttp } from '../sandbox/helpers.js';

// Every list parameter renamed, no paging metadata, pages of at most 5, errors under `error`.
const SHORT_PAGE_YAML = `# a deployment that names everything its own way
params:
  cards: { search: q, cardId: card_id, page: pageNumber, limit: pageSize }
  transactions:
    merchantId: merchant
    terminalId: terminal
    cardStatus: card_state
    transactionStatus: state
    page: p
    limit: size
  oauth: { search: filter, page: "page[number]", limit: "page[size]" }
paging:
  style: short-page
maxPageSize: 5
errors:
  message: error.detail
  code: error.kind
  fields: error.fields
`;

interface Card { id: string; referenceCode: string; status: string }
interface Tx { id: string; merchantId?: string; terminalId?: string; transactionStatus: string; cardId?: string; card?: string | { id: string } }

const config = tempDir('cardctl-dialect-');
const plain = tempDir('cardctl-dialect-plain-');
afterAll(() => { config.remove(); plain.remove(); });

const json = <T>(stdout: string): T => JSON.parse(stdout) as T;
const ids = (records: Array<{ id: string }>) => records.map((r) => r.id);

describe('a deployment with its own parameter names and short pages', () => {
  let sandbox: RunningSandbox;
  const cards: Card[] = [];
  const dialectFile = join(config.path, 'dialect.yaml');
  // The matching profile `dep`, stored by `sandbox serve --profile dep`.
  const run = (args: string[], input?: string) => cardctl(['-p', 'dep', ...args], { configDir: config.path, input });

  beforeAll(async () => {
    writeFileSync(dialectFile, SHORT_PAGE_YAML);
    sandbox = await startSandboxProcess(['--dialect', dialectFile, '--profile', 'dep'], { configDir: config.path });
    // 22 cards (more than the default page of 20): REF-00 … REF-19, BULK-0, BULK-1; newest last.
    const references = [...Array.from({ length: 20 }, (_, i) => `REF-${String(i).padStart(2, '0')}`), 'BULK-0', 'BULK-1'];
    for (const referenceCode of references) {
      cards.push({ id: await createCardOverHttp(sandbox.info, { referenceCode }), referenceCode, status: 'active' });
    }
    const setDialect = await run(['profile', 'set-dialect', dialectFile]);
    expect(setDialect.exitCode, setDialect.stderr).toBe(0);
    expect(setDialect.stderr + setDialect.stdout).toMatch(/18 settings differ from the default/);
  }, 120_000);
  afterAll(async () => { await sandbox?.stop(); });

  const newestFirst = () => [...cards].reverse();

  it('profile show lists the dialect, marking what differs', async () => {
    const shown = json<{ dialect: { params: { cards: { limit: string } }; maxPageSize: number }; dialectChanged: string[] }>((await run(['profile', 'show', '-o', 'json'])).stdout);
    expect(shown.dialect.params.cards.limit).toBe('pageSize');
    expect(shown.dialect.maxPageSize).toBe(5);
    expect(shown.dialectChanged).toContain('errors.fields');
    expect(shown.dialectChanged).not.toContain('paging.pages');
  });

  it('cards list: search, --card-id, --page with --limit, --all', async () => {
    const found = await run(['cards', 'list', '--search', 'REF-07', '-o', 'json']);
    expect(found.exitCode, found.stderr).toBe(0);
    expect(ids(json(found.stdout))).toEqual([cards[7]!.id]);

    const byId = await run(['cards', 'list', '--card-id', cards[3]!.id, '-o', 'json']);
    expect(ids(json(byId.stdout))).toEqual([cards[3]!.id]);

    const second = await run(['cards', 'list', '--limit', '3', '--page', '2', '-o', 'json']);
    expect(ids(json(second.stdout))).toEqual(ids(newestFirst().slice(3, 6)));

    // Pages of 5 (maxPageSize) until one is shorter: 22 cards in 5 pages.
    const all = await run(['cards', 'list', '--all', '-o', 'json', '-v']);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(ids(json(all.stdout))).toEqual(ids(newestFirst()));
    expect(all.stderr.match(/GET \S*\/institutions\/cards\?pageNumber=\d+&pageSize=5 → 200/g)).toHaveLength(5);
  });

  it('--limit above maxPageSize is refused before anything is sent (exit 2)', async () => {
    const over = await run(['cards', 'list', '--limit', '6', '-v']);
    expect(over.exitCode).toBe(2);
    expect(over.stderr).toMatch(/--limit "6": expected a whole number from 1 to 5/);
    expect(over.stderr).not.toMatch(/GET /);
    expect((await run(['tx', 'list', '--limit', '6'])).exitCode).toBe(2);
    expect((await run(['oauth', 'list', '--limit', '6'])).exitCode).toBe(2);
  });

  it('cards get: found, and not found', async () => {
    const got = await run(['cards', 'get', cards[0]!.id, '-o', 'json']);
    expect(got.exitCode, got.stderr).toBe(0);
    expect(json<Card>(got.stdout).id).toBe(cards[0]!.id);
    const missing = await run(['cards', 'get', 'no-such-card']);
    expect(missing.exitCode).toBe(4);
    expect(missing.stderr).toMatch(/card no-such-card not found/);
  });

  it('an API error carries the message and the field errors from where the deployment puts them', async () => {
    const taken = await run(['cards', 'create', '--program', sandbox.info.cardProgramId, '--first-name', 'Cy', '--last-name', 'Eze', '--email', 'cy@example.com',
      '--phone', '+2348012345678', '--account-number', '1', '--account-type', 'savings', '--pin-stdin', '--reference', 'REF-01', '-o', 'json'], '4821\n');
    expect(taken.exitCode).toBe(5);
    expect(taken.stderr).toMatch(/^error: rejected \(409\): a card with referenceCode "REF-01" already exists \[referenceCode is already used\]$/m);
    const failed = json<{ error: { code: string } }>(taken.stderr.split('\n').find((line) => line.startsWith('{'))!);
    expect(failed.error.code).toBe('CONFLICT');
  });

  describe('transactions', () => {
    let all: Tx[] = [];
    beforeAll(async () => {
      // Four authorizations on REF-00 at M-A/T-1, three financials on BULK-0 at M-B/T-2.
      for (let i = 0; i < 4; i++) {
        const sim = await run(['simulate', 'authorization', '--card', cards[0]!.id, '--amount', '10', '--merchant', 'M-A', '--terminal', 'T-1', '-o', 'json']);
        expect(sim.exitCode, sim.stderr).toBe(0);
      }
      for (let i = 0; i < 3; i++) {
        const sim = await run(['simulate', 'financial', '--card', cards[20]!.id, '--amount', '10', '--merchant', 'M-B', '--terminal', 'T-2', '-o', 'json']);
        expect(sim.exitCode, sim.stderr).toBe(0);
      }
      const listed = await run(['tx', 'list', '--all', '-o', 'json']);
      expect(listed.exitCode, listed.stderr).toBe(0);
      all = json<Tx[]>(listed.stdout);
    }, 60_000);

    it('--all reads every page; --page with --limit one of them', async () => {
      expect(all).toHaveLength(7);
      expect(new Set(ids(all)).size).toBe(7);
      const page = await run(['tx', 'list', '--limit', '3', '--page', '3', '-o', 'json']);
      expect(ids(json(page.stdout))).toEqual(ids(all.slice(6, 7)));
    });

    it('every filter narrows the list by its dialect name', async () => {
      const filtered = async (args: string[]) => ids(json<Tx[]>((await run(['tx', 'list', ...args, '--all', '-o', 'json'])).stdout)).sort();
      const pick = (keep: (tx: Tx) => boolean) => ids(all.filter(keep)).sort();
      expect(await filtered(['--merchant', 'M-A'])).toEqual(pick((tx) => tx.merchantId === 'M-A'));
      expect(pick((tx) => tx.merchantId === 'M-A')).toHaveLength(4);
      expect(await filtered(['--terminal', 'T-2'])).toEqual(pick((tx) => tx.terminalId === 'T-2'));
      expect(pick((tx) => tx.terminalId === 'T-2')).toHaveLength(3);
      const statuses = [...new Set(all.map((tx) => tx.transactionStatus))];
      expect(statuses.length).toBeGreaterThan(1);
      for (const status of statuses) expect(await filtered(['--status', status])).toEqual(pick((tx) => tx.transactionStatus === status));
      expect(await filtered(['--card-status', 'active'])).toEqual(ids(all).sort());
      expect(await filtered(['--card-status', 'inactive'])).toEqual([]);
    });

    it('tx show: found, and not found', async () => {
      const shown = await run(['tx', 'show', all[0]!.id, '-o', 'json']);
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(json<Tx>(shown.stdout).id).toBe(all[0]!.id);
      const missing = await run(['tx', 'show', 'no-such-tx', '-v']);
      expect(missing.exitCode).toBe(4);
      expect(missing.stderr).toMatch(/transaction no-such-tx not found/);
      // The 404's message was read where the deployment puts it: no scan of the list followed.
      expect(missing.stderr).not.toMatch(/GET \S*\/institutions\/transactions\?/);
    });
  });

  it('oauth create and list: search and --all', async () => {
    const keys = tempDir('cardctl-dialect-keys-');
    try {
      const keygen = await run(['oauth', 'keygen', '--out', keys.path, '--subject', 'dialect', '--json']);
      expect(keygen.exitCode, keygen.stderr).toBe(0);
      const created: string[] = [];
      for (let i = 0; i < 6; i++) {
        // create looks the new application up by name through the list (search, --all).
        const app = await run(['oauth', 'create', '--name', `app-${i}`, '--public-key', join(keys.path, 'certificate.pem'),
          '--scope', 'read:card', '--grant-type', 'client_credentials', '--json']);
        expect(app.exitCode, app.stderr).toBe(0);
        created.push(json<{ institutionId: string }>(app.stdout).institutionId);
      }
      const found = await run(['oauth', 'list', '--search', 'app-3', '-o', 'json']);
      expect(json<Array<{ institutionId: string }>>(found.stdout).map((a) => a.institutionId)).toEqual([created[3]]);
      const all = await run(['oauth', 'list', '--all', '-o', 'json']);
      expect(json<Array<{ institutionId: string }>>(all.stdout).map((a) => a.institutionId).sort()).toEqual([...created].sort());
    } finally {
      keys.remove();
    }
  }, 60_000);

  it('bulk --where lists the matching cards through the dialect', async () => {
    const result = await run(['cards', 'deactivate', '--where', 'status=active,search=BULK-', '--yes', '-o', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const listed = json<Card[]>((await run(['cards', 'list', '--all', '-o', 'json'])).stdout);
    for (const card of listed) expect(card.status, card.referenceCode).toBe(card.referenceCode.startsWith('BULK-') ? 'suspended' : 'active');
    // The transactions of BULK-0 now have a suspended card.
    const suspended = json<Tx[]>((await run(['tx', 'list', '--card-status', 'suspended', '--all', '-o', 'json'])).stdout);
    expect(suspended).toHaveLength(3);
  });

  it('import: a repeated row is found through the list; a refused row has the message from its place', async () => {
    const header = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,institutionId,'
      + 'card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';
    const row = (realId: string, institutionId: string) => [realId, 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', 'ada@example.com', '1 Marina', '', 'Lagos', 'Lagos',
      '100001', 'NG', '1990-01-31', '+2348012345678', institutionId, '202812', '101', 'classic', 'ADA OBI', '4821', '506099', 'active', 'false'].join(',');
    const file = join(config.path, 'cards.csv');
    writeFileSync(file, `${header}\n${row('DI-1', sandbox.info.institutionId)}\n`);
    const report = (name: string) => join(config.path, name);
    // A report's lines after its run header (its first line).
    const rowsOf = async (name: string) => (await import('node:fs')).readFileSync(report(name), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l));
    const first = await run(['import', '--from-file', file, '--report', report('r1.ndjson'), '--json']);
    expect(first.exitCode, first.stderr).toBe(0);
    const again = await run(['import', '--from-file', file, '--report', report('r2.ndjson'), '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    const [imported] = await rowsOf('r1.ndjson');
    const [exists] = await rowsOf('r2.ndjson');
    expect(imported).toMatchObject({ realId: 'DI-1', outcome: 'imported' });
    expect(exists).toMatchObject({ realId: 'DI-1', outcome: 'exists', cardId: imported.cardId });

    writeFileSync(file, `${header}\n${row('DI-2', '6650c0ffee6650c0ffee6650')}\n`);
    const refused = await run(['import', '--from-file', file, '--report', report('r3.ndjson'), '--json']);
    expect(refused.exitCode).toBe(3);
    const [failed] = await rowsOf('r3.ndjson');
    expect(failed).toMatchObject({ realId: 'DI-2', outcome: 'failed' });
    expect(failed.error).toMatch(/institutionId is not the institution of this API key/);
  }, 60_000);

  describe('a profile that does not match', () => {
    // The defaults, as a profile not told about the deployment has them.
    const runPlain = (args: string[]) => cardctl(args, { configDir: plain.path, env: { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token } });

    it('gets the default page for --limit, stops --all early, and misses a card that exists', async () => {
      const limited = await runPlain(['cards', 'list', '--limit', '2', '-o', 'json']);
      expect(limited.exitCode, limited.stderr).toBe(0);
      expect(json<Card[]>(limited.stdout)).toHaveLength(20);
      const all = await runPlain(['cards', 'list', '--all', '-o', 'json']);
      expect(all.exitCode, all.stderr).toBe(0);
      expect(json<Card[]>(all.stdout).length).toBeLessThan(cards.length);
      const oldest = await runPlain(['cards', 'get', cards[0]!.id]);
      expect(oldest.exitCode).toBe(4);
    });

    it('cannot read the error message where the default dialect has it', async () => {
      const missing = await runPlain(['tx', 'show', 'no-such-tx']);
      expect(missing.exitCode).toBe(4);
      const bad = await runPlain(['api', 'GET', '/institutions/cards?pageSize=abc']);
      expect(bad.exitCode).toBe(5);
      expect(bad.stderr).toMatch(/no message at "message" of the error body \(errors\.message\)/);
    });

    it('with only the page parameter wrong, --all stops with an error naming it instead of looping', async () => {
      const setAll = await cardctl(['-p', 'half', 'profile', 'set-dialect', dialectFile], { configDir: plain.path });
      expect(setAll.exitCode, setAll.stderr).toBe(0);
      expect((await cardctl(['-p', 'half', 'profile', 'set', 'params.cards.page', 'page'], { configDir: plain.path })).exitCode).toBe(0);
      const looped = await cardctl(['-p', 'half', 'cards', 'list', '--all', '-o', 'json'], {
        configDir: plain.path, env: { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token },
      });
      expect(looped.exitCode).toBe(7);
      expect(looped.stderr).toMatch(/params\.cards\.page/);
      expect(looped.stderr).toMatch(/cardctl profile set params\.cards\.page NAME/);
    });
  });
});

it('sandbox serve --dialect refuses a bad file with one line naming the setting (exit 2)', async () => {
  const file = join(plain.path, 'bad.yaml');
  writeFileSync(file, 'paging:\n  style: cursor\n');
  const bad = await cardctl(['sandbox', 'serve', '--port', '0', '--memory', '--dialect', file], { configDir: plain.path });
  expect(bad.exitCode).toBe(2);
  expect(bad.stderr).toMatch(/^error: invalid .*bad\.yaml: paging\.style "cursor": expected one of metadata, short-page$/m);
  writeFileSync(file, 'maxPageSize: 500\n');
  const big = await cardctl(['sandbox', 'serve', '--port', '0', '--memory', '--dialect', file], { configDir: plain.path });
  expect(big.exitCode).toBe(2);
  expect(big.stderr).toMatch(/maxPageSize 500 is above the 100 records a sandbox page holds at most/);
});

describe('a deployment with paging metadata and error members at other paths, set key by key', () => {
  let sandbox: RunningSandbox;
  const dir = tempDir('cardctl-dialect-meta-');
  const created: string[] = [];
  const run = (args: string[]) => cardctl(['-p', 'meta', ...args], { configDir: dir.path });
  const settings: Array<[string, string]> = [
    ['params.cards.limit', 'size'],
    ['params.cards.page', 'offsetPage'],
    ['params.transactions.limit', 'size'],
    ['paging.pages', 'meta.totalPages'],
    ['paging.total', 'meta.count'],
    ['errors.message', 'detail'],
    ['errors.code', 'kind'],
    ['errors.fields', 'problems'],
  ];

  beforeAll(async () => {
    const file = join(dir.path, 'dialect.json');
    const dialect = { maxPageSize: 7 };
    for (const [key, value] of settings) setPath(dialect, key, value);
    writeFileSync(file, JSON.stringify(dialect));
    sandbox = await startSandboxProcess(['--dialect', file, '--profile', 'meta'], { configDir: dir.path });
    for (let i = 0; i < 9; i++) created.unshift(await createCardOverHttp(sandbox.info, { referenceCode: `META-${i}` }));
    for (const [key, value] of settings) {
      const set = await run(['profile', 'set', key, value]);
      expect(set.exitCode, set.stderr).toBe(0);
    }
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
    dir.remove();
  });

  it('a page size above the deployment maximum is its 400, read from its error paths, until maxPageSize is set', async () => {
    const over = await run(['cards', 'list', '--limit', '8']);
    expect(over.exitCode).toBe(5);
    expect(over.stderr).toMatch(/^error: rejected \(400\): size must be at most 7$/m);
    expect((await run(['profile', 'set', 'maxPageSize', '7'])).exitCode).toBe(0);
    const refused = await run(['cards', 'list', '--limit', '8']);
    expect(refused.exitCode).toBe(2);
  });

  it('--all stops at the page count where the deployment puts it; --page reads one page', async () => {
    const all = await run(['cards', 'list', '--all', '--limit', '4', '-o', 'json', '-v']);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(ids(json(all.stdout))).toEqual(created);
    expect(all.stderr.match(/GET \S*\/institutions\/cards\?offsetPage=\d+&size=4 → 200/g)).toHaveLength(3);
    const third = await run(['cards', 'list', '--limit', '4', '--page', '3', '-o', 'json']);
    expect(ids(json(third.stdout))).toEqual(created.slice(8));
    expect((await run(['tx', 'list', '--all', '-o', 'json'])).stdout.trim()).toBe('[]');
  });

  it('not found and validation errors carry the deployment message and code', async () => {
    const missing = await run(['tx', 'show', 'no-such-tx', '-o', 'json']);
    expect(missing.exitCode).toBe(4);
    expect(missing.stderr).toMatch(/transaction no-such-tx not found/);
    const bad = await run(['api', 'GET', '/institutions/cards?size=abc', '-o', 'json']);
    expect(bad.exitCode).toBe(5);
    const error = json<{ error: { code: string; message: string; details: unknown } }>(bad.stderr.split('\n').find((line) => line.startsWith('{'))!);
    expect(error.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'size', message: 'must be an integer' }] });
    expect(error.error.message).toMatch(/size must be an integer/);
  });

  it('setting a key back to its default removes it from the profile', async () => {
    expect((await run(['profile', 'set', 'errors.fields', ''])).exitCode).toBe(0);
    const shown = json<{ dialectChanged: string[] }>((await run(['profile', 'show', '-o', 'json'])).stdout);
    expect(shown.dialectChanged).not.toContain('errors.fields');
    expect(shown.dialectChanged).toContain('errors.code');
    const refused = await run(['profile', 'set', 'params.cards.search', 'size']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/params\.cards\.(search|limit) and params\.cards\.(search|limit) are both "size"/);
    expect((await run(['profile', 'set', 'paging.style', 'cursor'])).exitCode).toBe(2);
  });
});
