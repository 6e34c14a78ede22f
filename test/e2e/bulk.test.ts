// The bulk forms of the card verbs against the sandbox: the state of every card afterwards, the
// report's rows and the exit code; shards; --resume; --dry-run; and exactly once under faults
// (deactivate and renew of a few hundred cards, then a renewal killed half way and resumed).
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, isolatedDirs, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';

const HEADER = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,institutionId,'
  + 'card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';

interface CardRecord { id: string; referenceCode: string; status: string; expiryMonth: string; expiryYear: number; seqNumber: string; customer: { emailAddress: string; firstName: string } }
interface Entry { row: number; id?: string; outcome: string; code?: string; message?: string; [key: string]: unknown }

/** A report: its first line names the run (verb, the input's SHA-256, K/N when sharded), then the rows, then an end line when the run read its input to the end. */
const shardReport = (path: string, run: { verb: string; shard?: string; input?: string }): Entry[] => {
  const [header, ...rows] = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l): Entry => JSON.parse(l));
  expect(header).toEqual({ run: { input: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), ...run, source: expect.any(String) } });
  return rows.filter((r) => !r.end);
};
const report = (path: string, verb?: string): Entry[] => shardReport(path, verb ? { verb } : { verb: expect.any(String) });
const sha256 = (path: string) => `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;

async function sandboxWithCards(dir: string, prefix: string, count: number) {
  const sandbox = await startSandboxProcess(['--quiet-log'], { configDir: dir });
  const env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_API_KEY: sandbox.info.apiKey, CARDCTL_TOKEN: sandbox.info.token };
  const lines = [HEADER];
  for (let i = 1; i <= count; i++) {
    lines.push([`${prefix}-${String(i).padStart(4, '0')}`, 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', `ada${i}@example.com`, '1 Marina', '', 'Lagos', 'Lagos',
      '100001', 'NG', '1990-01-31', '+2348012345678', sandbox.info.institutionId, '202812', '101', 'classic', 'ADA OBI', '4821', '506099', 'active', 'false'].join(','));
  }
  const file = join(dir, `${prefix}.csv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const imported = await cardctl(['import', '--from-file', file, '--concurrency', '16', '-q'], { configDir: dir, env, timeout: 120_000 });
  expect(imported.exitCode, imported.stderr).toBe(0);
  const allCards = async (): Promise<CardRecord[]> => {
    const cards: CardRecord[] = [];
    for (let page = 1; ; page++) {
      const response = await fetch(`${sandbox.info.baseUrl}/institutions/cards?limit=100&page=${page}`, { headers: { authorization: `Bearer ${sandbox.info.token}` } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: CardRecord[]; pagination: { pages: number } };
      cards.push(...body.data);
      if (page >= body.pagination.pages) break;
    }
    return cards.sort((a, b) => a.referenceCode.localeCompare(b.referenceCode));
  };
  const setFaults = async (body: Record<string, unknown>) => {
    const response = await fetch(`${sandbox.info.baseUrl}/sandbox/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    return (await response.json()) as { counts: Record<string, number> };
  };
  const faultCounts = async () => ((await (await fetch(`${sandbox.info.baseUrl}/sandbox/faults`)).json()) as { counts: Record<string, number> }).counts;
  return { sandbox, env, allCards, setFaults, faultCounts };
}

describe('bulk card verbs', () => {
  const dir = tempDir('cardctl-e2e-bulk-');
  let sandbox: RunningSandbox;
  let env: Record<string, string>;
  let allCards: () => Promise<CardRecord[]>;
  let ids: string[];
  const run = (args: string[], input = '') => cardctl(args, { configDir: dir.path, env, input, timeout: 120_000 });
  const expiry = (c: CardRecord) => `${c.expiryYear}${c.expiryMonth}`;

  beforeAll(async () => {
    ({ sandbox, env, allCards } = await sandboxWithCards(dir.path, 'BLK', 30));
    ids = (await allCards()).map((c) => c.id);
  }, 120_000);
  afterAll(async () => {
    await sandbox?.stop();
    dir.remove();
  });

  it('deactivate --from-file ids: every listed card suspended, the others untouched; bad rows failed in the report; exit 8 with the counts', async () => {
    const chosen = ids.slice(0, 20);
    const file = join(dir.path, 'ids.txt');
    writeFileSync(file, [...chosen.slice(0, 10), 'not an id!', ...chosen.slice(10), 'ffffffffffffffffffffffff', ''].join('\n'));
    const reportPath = join(dir.path, 'deactivate.ndjson');
    const result = await run(['cards', 'deactivate', '--from-file', file, '--yes', '--reason', 'merchant breach', '--report', reportPath, '--concurrency', '4']);
    expect(result.exitCode, result.stderr).toBe(8);
    expect(result.stderr).toMatch(/deactivate: done 20, already 0, skipped 0, failed 2 — 22 rows/);
    // stderr is not a terminal: a progress line per 5% of the 22 rows, with the rate and ETA.
    const progress = result.stderr.split('\n').filter((l) => l.startsWith('deactivating: '));
    expect(progress.map((l) => /^deactivating: (\d+)% \(\d+\/22 rows\), \d+ rows\/s, ETA \d+ (s|min \d+ s), ok \d+ failed \d+$/.exec(l)?.[1])).toEqual(Array.from({ length: 20 }, (_, i) => String((i + 1) * 5)));
    const entries = report(reportPath);
    expect(entries.map((e) => e.row).sort((a, b) => a - b)).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
    expect(entries.filter((e) => e.outcome === 'done').map((e) => e.id).sort()).toEqual([...chosen].sort());
    expect(entries.find((e) => e.row === 11)).toMatchObject({ outcome: 'failed', code: 'INVALID', id: 'not an id!' });
    expect(entries.find((e) => e.row === 22)).toMatchObject({ outcome: 'failed', id: 'ffffffffffffffffffffffff' });
    for (const card of await allCards()) expect(card.status, card.id).toBe(chosen.includes(card.id) ? 'suspended' : 'active');
    // One audit journal entry per card, with the reason.
    const history = await run(['history', '-o', 'ndjson', '--limit', '100']);
    const journalled = history.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { path?: string; reason?: string }).filter((e) => /\/deactivate$/.test(e.path ?? ''));
    expect(journalled.filter((e) => e.reason === 'merchant breach').length).toBeGreaterThanOrEqual(20);
  });

  it('activate --from-file - reads `cards list -o ndjson` from stdin, and --resume skips what the report records as done', async () => {
    const listed = await run(['cards', 'list', '--all', '-o', 'ndjson']);
    expect(listed.exitCode).toBe(0);
    const reportPath = join(dir.path, 'activate.ndjson');
    const first = await run(['cards', 'activate', '--from-file', '-', '--report', reportPath], listed.stdout);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(report(reportPath).filter((e) => e.outcome === 'done')).toHaveLength(30);
    for (const card of await allCards()) expect(card.status).toBe('active');
    const again = await run(['cards', 'activate', '--from-file', '-', '--report', reportPath], listed.stdout);
    expect(again.exitCode).toBe(2);
    const resumed = await run(['cards', 'activate', '--from-file', '-', '--resume', reportPath, '-o', 'json'], listed.stdout);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ done: 0, skipped: 30, failed: 0, rows: 30 });
    // import's spelling, --resume alone with --report, is the same flag.
    const resumedAgain = await run(['cards', 'activate', '--from-file', '-', '--report', reportPath, '--resume', '-o', 'json'], listed.stdout);
    expect(resumedAgain.exitCode, resumedAgain.stderr).toBe(0);
    expect(JSON.parse(resumedAgain.stdout)).toMatchObject({ done: 0, skipped: 30, failed: 0, rows: 30 });
    expect((await run(['cards', 'activate', '--from-file', '-', '--resume'], listed.stdout)).stderr).toMatch(/--resume needs --report FILE, or the report as its value/);
  });

  it('--where resolves the matching cards first; --dry-run lists them and sends nothing', async () => {
    const target = (await allCards()).filter((c) => /^import:BLK-000[1-9]$/.test(c.referenceCode));
    expect(target).toHaveLength(9);
    const dry = await run(['cards', 'deactivate', '--where', 'status=active,search=BLK-000', '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout.trim().split('\n').sort()).toEqual(target.map((c) => `would deactivate ${c.id}`).sort());
    expect(dry.stderr).toMatch(/9 rows, 9 to deactivate, 0 invalid; nothing was sent/);
    for (const card of await allCards()) expect(card.status).toBe('active');
    const whereReport = join(dir.path, 'where.ndjson');
    const real = await run(['cards', 'deactivate', '--where', 'status=active,search=BLK-000', '--yes', '--report', whereReport]);
    expect(real.exitCode, real.stderr).toBe(0);
    // The report's input is the listing: the SHA-256 of the ids listed, one a line, in row order.
    const listed = report(whereReport, 'deactivate').sort((a, b) => a.row - b.row).map((e) => `${e.id}\n`).join('');
    shardReport(whereReport, { verb: 'deactivate', input: `sha256:${createHash('sha256').update(listed).digest('hex')}` });
    for (const card of await allCards()) expect(card.status, card.referenceCode).toBe(target.some((t) => t.id === card.id) ? 'suspended' : 'active');
    expect((await run(['cards', 'deactivate', '--where', 'status=frozen'])).exitCode).toBe(2);
  });

  it('renew --from-file CSV in two shards: each card renewed once to its row\'s month, each shard its own rows; a second run is "already"', async () => {
    const before = await allCards();
    const months = ['203001', '203002', '203003'];
    const rows = before.map((c, i) => ({ id: c.id, expiration: months[i % 3]! }));
    const file = join(dir.path, 'renew.csv');
    writeFileSync(file, `id,expiration\n${rows.map((r) => `${r.id},${r.expiration}`).join('\n')}\n`);
    const shards = await Promise.all([1, 2].map((k) => run(['cards', 'renew', '--from-file', file, '--shard', `${k}/2`, '--report', join(dir.path, `renew-${k}.ndjson`)])));
    for (const shard of shards) expect(shard.exitCode, shard.stderr).toBe(0);
    const entries = [1, 2].map((k) => shardReport(join(dir.path, `renew-${k}.ndjson`), { verb: 'renew', shard: `${k}/2`, input: sha256(file) }));
    expect(entries[0]!.map((e) => e.row).sort((a, b) => a - b)).toEqual(rows.map((_, i) => i + 1).filter((r) => r % 2 === 1));
    expect(entries[1]!.map((e) => e.row).sort((a, b) => a - b)).toEqual(rows.map((_, i) => i + 1).filter((r) => r % 2 === 0));
    for (const e of entries.flat()) expect(e).toMatchObject({ outcome: 'done', id: rows[e.row - 1]!.id, expiration: rows[e.row - 1]!.expiration });
    const after = new Map((await allCards()).map((c) => [c.id, c]));
    for (const card of before) {
      const now = after.get(card.id)!;
      expect(expiry(now)).toBe(rows.find((r) => r.id === card.id)!.expiration);
      expect(Number(now.seqNumber)).toBe(Number(card.seqNumber) + 1);
    }
    // The shards' reports joined into one, by row.
    const merged = await run(['cards', 'report', 'merge', join(dir.path, 'renew-2.ndjson'), join(dir.path, 'renew-1.ndjson')]);
    expect(merged.exitCode, merged.stderr).toBe(0);
    const mergedRows = merged.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Entry);
    expect(mergedRows.map((e) => e.row)).toEqual(rows.map((_, i) => i + 1));
    expect(mergedRows).toEqual([...entries[0]!, ...entries[1]!].sort((a, b) => a.row - b.row));
    expect(merged.stderr).toMatch(/merged 2 reports: done 30, already 0, skipped 0, failed 0 — 30 rows\n/);
    const out = join(dir.path, 'renew-merged.ndjson');
    expect((await run(['cards', 'report', 'merge', join(dir.path, 'renew-1.ndjson'), join(dir.path, 'renew-2.ndjson'), '--out', out, '-q'])).exitCode).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(merged.stdout);
    const twice = await run(['cards', 'report', 'merge', join(dir.path, 'renew-1.ndjson'), join(dir.path, 'renew-1.ndjson')]);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toMatch(/renew-1\.ndjson and .*renew-1\.ndjson are both the report of shard 1\/2/);
    // A shard of another run (another file) shares no row with shard 1, and is refused all the same.
    const otherFile = join(dir.path, 'renew-other.csv');
    writeFileSync(otherFile, `id,expiration\n${rows.map((r) => `${r.id},203012`).join('\n')}\n`);
    const otherReport = join(dir.path, 'renew-other-2.ndjson');
    writeFileSync(otherReport, `${JSON.stringify({ run: { verb: 'renew', shard: '2/2', input: sha256(otherFile), source: otherFile } })}\n${JSON.stringify({ row: 2, id: rows[1]!.id, outcome: 'done' })}\n`);
    const mixed = await run(['cards', 'report', 'merge', join(dir.path, 'renew-1.ndjson'), otherReport]);
    expect(mixed.exitCode).toBe(2);
    expect(mixed.stderr.trim().split('\n')[0]).toMatch(/^error: .*renew-other-2\.ndjson is a report of another run than .*renew-1\.ndjson: renew, shard 2\/2 of .*renew-other\.csv \(sha256:/);
    // --resume of a shard's report by another shard, or with another file, is refused before anything is sent.
    const wrongShard = await run(['cards', 'renew', '--from-file', file, '--shard', '2/2', '--resume', join(dir.path, 'renew-1.ndjson')]);
    expect(wrongShard.exitCode).toBe(2);
    expect(wrongShard.stderr).toMatch(/--resume .*renew-1\.ndjson is the report of another run \(renew, shard 1\/2 of /);
    const wrongFile = await run(['cards', 'renew', '--from-file', otherFile, '--shard', '1/2', '--resume', join(dir.path, 'renew-1.ndjson')]);
    expect(wrongFile.exitCode).toBe(2);
    for (const card of await allCards()) expect(card.seqNumber).toBe(after.get(card.id)!.seqNumber);
    // The same shard resumed: nothing left to do, and no second header.
    const resumed = await run(['cards', 'renew', '--from-file', file, '--shard', '1/2', '--resume', join(dir.path, 'renew-1.ndjson'), '-o', 'json']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ done: 0, skipped: 15, failed: 0 });
    expect(shardReport(join(dir.path, 'renew-1.ndjson'), { verb: 'renew', shard: '1/2', input: sha256(file) }).every((e) => typeof e.row === 'number')).toBe(true);
    // A report without its first line (its run) is not resumed: nothing says which rows it is of.
    const older = join(dir.path, 'renew-older-2.ndjson');
    writeFileSync(older, entries[1]!.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const olderText = readFileSync(older, 'utf8');
    const olderResumed = await run(['cards', 'renew', '--from-file', file, '--shard', '2/2', '--resume', older, '-o', 'json']);
    expect(olderResumed.exitCode).toBe(2);
    expect(olderResumed.stderr).toMatch(/its first line does not name one/);
    expect(readFileSync(older, 'utf8')).toBe(olderText);
    const again = await run(['cards', 'renew', '--from-file', file, '-o', 'json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ done: 0, already: 30, failed: 0 });
    for (const card of await allCards()) expect(card.seqNumber).toBe(after.get(card.id)!.seqNumber);
  });

  it('renew: rows without a month need --expiration; a month in the past is a failed row, never sent', async () => {
    const file = join(dir.path, 'renew-ids.txt');
    writeFileSync(file, `${ids[0]}\n`);
    const missing = await run(['cards', 'renew', '--from-file', file]);
    expect(missing.exitCode).toBe(8);
    expect(missing.stderr).toMatch(/expiration: is required/);
    const past = join(dir.path, 'renew-past.ndjson');
    writeFileSync(past, `${JSON.stringify({ id: ids[0], expiration: '202001' })}\n`);
    const dry = await run(['cards', 'renew', '--from-file', past, '--dry-run']);
    expect(dry.exitCode).toBe(8);
    expect(dry.stderr).toMatch(/invalid: row 1: .*expiration/);
  });

  it('customer update --from-file: each card gets its row\'s changed fields only, for the version read; an unchanged row is "already"', async () => {
    const before = await allCards();
    const file = join(dir.path, 'customers.csv');
    const rows = before.slice(0, 6);
    writeFileSync(file, `id,email,first-name\n${rows.map((c, i) => `${c.id},fixed${i}@example.com,${i % 2 ? 'Bola' : ''}`).join('\n')}\n${rows[0]!.id},,\n`);
    const reportPath = join(dir.path, 'customers.ndjson');
    const result = await run(['cards', 'customer', 'update', '--from-file', file, '--report', reportPath, '--reason', 'data fix']);
    expect(result.exitCode, result.stderr).toBe(8);
    const entries = report(reportPath).sort((a, b) => a.row - b.row);
    expect(entries.slice(0, 6).map((e) => [e.id, e.outcome])).toEqual(rows.map((c) => [c.id, 'done']));
    expect(entries[6]).toMatchObject({ row: 7, outcome: 'failed', code: 'INVALID' });
    const after = new Map((await allCards()).map((c) => [c.id, c]));
    for (const card of before) {
      const i = rows.indexOf(card);
      const now = after.get(card.id)!.customer;
      expect(now.emailAddress).toBe(i >= 0 ? `fixed${i}@example.com` : card.customer.emailAddress);
      expect(now.firstName).toBe(i >= 0 && i % 2 ? 'Bola' : card.customer.firstName);
    }
    const again = await run(['cards', 'customer', 'update', '--from-file', file, '-o', 'json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ done: 0, already: 6, failed: 1 });
    const unknown = join(dir.path, 'customers-bad.csv');
    writeFileSync(unknown, `id,shoe-size\n${rows[0]!.id},44\n`);
    const refused = await run(['cards', 'customer', 'update', '--from-file', unknown]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/shoe-size/);
  });

  it('create --rows-from-file: a card per row, exactly once by its reference (derived from the row when absent); a rerun is "already"', async () => {
    const file = join(dir.path, 'staff.csv');
    writeFileSync(file, 'first-name,last-name,email,phone,account-number,reference\n'
      + 'Ada,Obi,ada@example.com,+2348012345678,0123456789,\n'
      + 'Bola,Ade,bola@example.com,+2348012345679,0123456780,EMP-7\n'
      + 'Cy,,cy@example.com,+2348012345670,0123456781,\n');
    const reportPath = join(dir.path, 'issued.ndjson');
    const args = ['cards', 'create', '--rows-from-file', file, '--program', sandbox.info.cardProgramId, '--account-type', 'savings'];
    const result = await run([...args, '--report', reportPath]);
    expect(result.exitCode, result.stderr).toBe(8);
    const entries = report(reportPath).sort((a, b) => a.row - b.row);
    const derived = entries[0]!.referenceCode as string;
    expect(derived).toMatch(/^row-[0-9a-f]{32}$/);
    expect(entries.map((e) => [e.row, e.outcome, e.referenceCode ?? e.code])).toEqual([[1, 'done', derived], [2, 'done', 'EMP-7'], [3, 'failed', 'INVALID']]);
    const created = (await allCards()).filter((c) => [derived, 'EMP-7'].includes(c.referenceCode));
    expect(created.map((c) => [c.referenceCode, c.customer.firstName, c.status]).sort()).toEqual([['EMP-7', 'Bola', 'active'], [derived, 'Ada', 'active']]);
    expect(entries.slice(0, 2).map((e) => e.id).sort()).toEqual(created.map((c) => c.id).sort());
    // No PIN anywhere in what was written.
    expect(readFileSync(reportPath, 'utf8')).not.toMatch(/pin/i);
    const again = await run([...args, '-o', 'json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ done: 0, already: 2, failed: 1 });
    expect((await allCards()).filter((c) => [derived, 'EMP-7'].includes(c.referenceCode))).toHaveLength(2);
  });

  it('create --pins-from-column: refused for a file others can read; otherwise each card gets its row\'s PIN', async () => {
    const file = join(dir.path, 'pins.csv');
    writeFileSync(file, 'first-name,last-name,email,phone,account-number,pin-code\nDee,Eze,dee@example.com,+2348012345671,0123456782,4826\n', { mode: 0o644 });
    const args = ['cards', 'create', '--rows-from-file', file, '--program', sandbox.info.cardProgramId, '--account-type', 'savings', '--pins-from-column', 'pin-code'];
    const refused = await run(args);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/can be read by others/);
    chmodSync(file, 0o600);
    const created = await run([...args, '-o', 'json']);
    expect(created.exitCode, created.stderr).toBe(0);
    const card = (await allCards()).find((c) => c.customer.emailAddress === 'dee@example.com')!;
    // The PIN of the row is the card's: changing it with that PIN as the old one succeeds.
    const changed = await run(['cards', 'pin', 'change', card.id, '--pin-stdin'], '4826\n7305\n');
    expect(changed.exitCode, changed.stderr).toBe(0);
  });

  it('a merged report with a failed row exits 8, as its run did, with the counts on stderr', async () => {
    const merged = await run(['cards', 'report', 'merge', join(dir.path, 'deactivate.ndjson')]);
    expect(merged.exitCode).toBe(8);
    expect(merged.stderr).toMatch(/merged 1 report: done 20, already 0, skipped 0, failed 2 — 22 rows/);
    expect(merged.stdout.split('\n').filter(Boolean)).toHaveLength(22);
    expect((await run(['cards', 'report', 'merge', join(dir.path, 'nothing.ndjson')])).exitCode).toBe(2);
  });

  it('progress when stderr is not a terminal: import and the bulk verbs print a line per 5%; 0 and 1 rows print nothing and a line at 100%', async () => {
    const csv = (n: number, from: number) => [HEADER, ...Array.from({ length: n }, (_, i) => [`PRG-${from + i}`, 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', `p${from + i}@example.com`,
      '1 Marina', '', 'Lagos', 'Lagos', '100001', 'NG', '1990-01-31', '+2348012345678', sandbox.info.institutionId, '202812', '101', 'classic', 'ADA OBI', '4821', '506099', 'active', 'false'].join(','))].join('\n') + '\n';
    const progressOf = (stderr: string, label: string) => stderr.split('\n').filter((l) => l.startsWith(`${label}: `))
      .map((l) => /^\w+: (\d+)% \(\d+\/\d+ rows\), \d+ rows\/s, ETA \d+ (s|min \d+ s), ok \d+ (invalid \d+ )?failed \d+$/.exec(l)?.[1] ?? l);
    for (const [n, expected] of [[40, Array.from({ length: 20 }, (_, i) => String((i + 1) * 5))], [1, ['100']], [0, []]] as const) {
      const file = join(dir.path, `progress-${n}.csv`);
      writeFileSync(file, csv(n, 1000 + n));
      const imported = await run(['import', '--from-file', file]);
      expect(imported.exitCode, imported.stderr).toBe(0);
      expect(progressOf(imported.stderr, 'importing'), `import of ${n} rows`).toEqual(expected);
      const ids = join(dir.path, `progress-${n}.txt`);
      writeFileSync(ids, n ? `${(await allCards()).slice(0, n).map((c) => c.id).join('\n')}\n` : '');
      const activated = await run(['cards', 'activate', '--from-file', ids]);
      expect(activated.exitCode, activated.stderr).toBe(0);
      expect(progressOf(activated.stderr, 'activating'), `activate of ${n} rows`).toEqual(expected);
      expect(activated.stderr).not.toMatch(/NaN|Infinity/);
    }
  });

  it('one card and --from-file together, or bulk flags without rows, are usage errors', async () => {
    expect((await run(['cards', 'deactivate', ids[0]!, '--from-file', 'x.txt', '--yes'])).exitCode).toBe(2);
    expect((await run(['cards', 'activate', ids[0]!, '--shard', '1/2'])).exitCode).toBe(2);
    expect((await run(['cards', 'renew', '--from-file', join(dir.path, 'ids.txt'), '--shard', '3/2'])).exitCode).toBe(2);
    // K/N in one spelling only: the report's header and the merge compare it.
    for (const shard of ['01/2', '1/02', '+1/2', '1/2.0', '1/1001']) {
      const refused = await run(['cards', 'renew', '--from-file', join(dir.path, 'ids.txt'), '--shard', shard]);
      expect(refused.exitCode, shard).toBe(2);
      expect(refused.stderr.split('\n')[0]).toMatch(/invalid --shard .*expected K\/N, whole numbers with 1 ≤ K ≤ N ≤ 1000/);
    }
    const whereShard = await run(['cards', 'deactivate', '--where', 'status=active', '--shard', '1/2', '--yes']);
    expect(whereShard.exitCode).toBe(2);
    expect(whereShard.stderr).toMatch(/--where lists the cards afresh/);
  });

  it('create --rows-from-file: a reference comes from the row, not the file\'s name: rows.csv in two folders issues each its own cards; the same row elsewhere is "already"', async () => {
    const { mkdirSync } = await import('node:fs');
    const header = 'first-name,last-name,email,phone,account-number\n';
    for (const folder of ['north', 'south', 'renamed']) mkdirSync(join(dir.path, folder), { recursive: true });
    writeFileSync(join(dir.path, 'north', 'rows.csv'), `${header}Nkem,Obi,nkem@example.com,+2348012340001,1100000001\n`);
    writeFileSync(join(dir.path, 'south', 'rows.csv'), `${header}Seun,Ade,seun@example.com,+2348012340002,1100000002\n`);
    const create = (file: string) => run(['cards', 'create', '--rows-from-file', file, '--program', sandbox.info.cardProgramId, '--account-type', 'savings', '-o', 'json']);
    const north = await create(join(dir.path, 'north', 'rows.csv'));
    expect(north.exitCode, north.stderr).toBe(0);
    expect(JSON.parse(north.stdout)).toMatchObject({ done: 1, already: 0 });
    const south = await create(join(dir.path, 'south', 'rows.csv'));
    expect(south.exitCode, south.stderr).toBe(0);
    expect(JSON.parse(south.stdout)).toMatchObject({ done: 1, already: 0 });
    const cards = await allCards();
    const nkem = cards.find((c) => c.customer.emailAddress === 'nkem@example.com')!;
    const seun = cards.find((c) => c.customer.emailAddress === 'seun@example.com')!;
    expect(nkem.referenceCode).toMatch(/^row-[0-9a-f]{32}$/);
    expect(seun.referenceCode).toMatch(/^row-[0-9a-f]{32}$/);
    expect(seun.referenceCode).not.toBe(nkem.referenceCode);
    // The same row under another name is the same card: "already", with that card's id.
    writeFileSync(join(dir.path, 'renamed', 'staff-list.csv'), readFileSync(join(dir.path, 'north', 'rows.csv')));
    const reportPath = join(dir.path, 'renamed', 'report.ndjson');
    const renamed = await run(['cards', 'create', '--rows-from-file', join(dir.path, 'renamed', 'staff-list.csv'), '--program', sandbox.info.cardProgramId, '--account-type', 'savings', '--report', reportPath, '-o', 'json']);
    expect(renamed.exitCode, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout)).toMatchObject({ done: 0, already: 1 });
    expect(report(reportPath, 'create')).toEqual([{ row: 1, id: nkem.id, outcome: 'already', referenceCode: nkem.referenceCode }]);
    // Resumed (twice): the row is skipped, its reference compared with the report's line for it.
    for (let i = 0; i < 2; i++) {
      const resumed = await run(['cards', 'create', '--rows-from-file', join(dir.path, 'renamed', 'staff-list.csv'), '--program', sandbox.info.cardProgramId, '--account-type', 'savings', '--resume', reportPath, '-o', 'json']);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ done: 0, already: 0, skipped: 1, failed: 0 });
    }
    expect(report(reportPath, 'create').at(-1)).toEqual({ row: 1, id: nkem.id, outcome: 'skipped', referenceCode: nkem.referenceCode });
    // Resumed with another --account-type, the row is another card: not skipped, not sent, failed with RESUME_MISMATCH.
    const otherFlags = await run(['cards', 'create', '--rows-from-file', join(dir.path, 'renamed', 'staff-list.csv'), '--program', sandbox.info.cardProgramId, '--account-type', 'current', '--resume', reportPath, '-o', 'json']);
    expect(otherFlags.exitCode).toBe(8);
    expect(otherFlags.stderr).toMatch(/RESUME_MISMATCH: the report records row 1 as row-[0-9a-f]{32}, but this row is row-[0-9a-f]{32}/);
    expect((await allCards()).filter((c) => ['nkem@example.com', 'seun@example.com'].includes(c.customer.emailAddress))).toHaveLength(2);
  });

  it('create --rows-from-file: a card found under a row\'s reference that is not the row\'s card fails the row (exit 8), never "already"', async () => {
    const header = 'first-name,last-name,email,phone,account-number,reference\n';
    const first = join(dir.path, 'taken-1.csv');
    writeFileSync(first, `${header}Tayo,Bello,tayo@example.com,+2348012340003,1100000003,TAKEN-1\n`);
    const args = (file: string) => ['cards', 'create', '--rows-from-file', file, '--program', sandbox.info.cardProgramId, '--account-type', 'savings', '-o', 'json'];
    expect((await run(args(first))).exitCode).toBe(0);
    const second = join(dir.path, 'taken-2.csv');
    writeFileSync(second, `${header}Uche,Eze,uche@example.com,+2348012340004,1100000004,TAKEN-1\n`);
    const reportPath = join(dir.path, 'taken.ndjson');
    const clash = await run([...args(second), '--report', reportPath]);
    expect(clash.exitCode, clash.stderr).toBe(8);
    expect(JSON.parse(clash.stdout)).toMatchObject({ done: 0, already: 0, failed: 1 });
    const [entry] = report(reportPath, 'create');
    expect(entry).toMatchObject({ row: 1, id: 'TAKEN-1', outcome: 'failed', code: 'REFERENCE_TAKEN' });
    expect(entry!.message).toMatch(/reference TAKEN-1 is another card's \(its customer\.firstName, customer\.lastName, customer\.emailAddress, customer\.phoneNumber, account\.number differ/);
    // No other cardholder's card id in the report.
    const tayo = (await allCards()).find((c) => c.referenceCode === 'TAKEN-1')!;
    expect(readFileSync(reportPath, 'utf8')).not.toContain(tayo.id);
    expect((await allCards()).some((c) => c.customer.emailAddress === 'uche@example.com')).toBe(false);
  });

  it('--resume refuses the report of another file, of an edited file, of another verb, one with lines that are not a report\'s, and the input itself: exit 2, one line, nothing sent, the report untouched', async () => {
    const cards = await allCards();
    const chosen = cards.slice(0, 6).map((c) => c.id);
    const first = join(dir.path, 'bound-1.txt');
    const second = join(dir.path, 'bound-2.txt');
    writeFileSync(first, `${chosen.slice(0, 3).join('\n')}\n`);
    writeFileSync(second, `${chosen.slice(3).join('\n')}\n`);
    const reportPath = join(dir.path, 'bound-1.ndjson');
    const activated = await run(['cards', 'activate', '--from-file', first, '--report', reportPath]);
    expect(activated.exitCode, activated.stderr).toBe(0);
    expect(shardReport(reportPath, { verb: 'activate', input: sha256(first) })).toHaveLength(3);
    const before = readFileSync(reportPath, 'utf8');
    const statuses = async () => new Map((await allCards()).map((c) => [c.id, c.status]));
    const statusesBefore = await statuses();
    const refused = async (args: string[], message: RegExp, path = reportPath, text = before, input = '') => {
      const result = await run(args, input);
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(readFileSync(path, 'utf8')).toBe(text);
    };
    await refused(['cards', 'activate', '--from-file', second, '--resume', reportPath], /^error: --resume .*bound-1\.ndjson is the report of another run \(activate of .*bound-1\.txt \(sha256:.*\): its input is another/);
    writeFileSync(first, `${chosen.slice(0, 4).join('\n')}\n`);
    await refused(['cards', 'activate', '--from-file', first, '--resume', reportPath], /its input is another \(.*another file, or this one edited\)/);
    writeFileSync(first, `${chosen.slice(0, 3).join('\n')}\n`);
    await refused(['cards', 'deactivate', '--from-file', first, '--yes', '--resume', reportPath], /its verb is activate, not deactivate/);
    await refused(['cards', 'activate', '--from-file', first, '--shard', '1/2', '--resume', reportPath], /its shard is none, not 1\/2/);
    const mixed = join(dir.path, 'bound-mixed.ndjson');
    const mixedText = `${before}${chosen[0]}\n`;
    writeFileSync(mixed, mixedText);
    await refused(['cards', 'activate', '--from-file', first, '--resume', mixed], /line 6 is not JSON, so not a line of a report/, mixed, mixedText);
    const importReport = join(dir.path, 'bound-import.ndjson');
    const importText = `${JSON.stringify({ run: { verb: 'activate', input: sha256(first), source: first } })}\n{"line":2,"realId":"X","outcome":"imported"}\n`;
    writeFileSync(importReport, importText);
    await refused(['cards', 'activate', '--from-file', first, '--resume', importReport], /line 2 is not a line of a bulk report/, importReport, importText);
    const firstText = readFileSync(first, 'utf8');
    await refused(['cards', 'activate', '--from-file', first, '--resume', first], /^error: --resume .*bound-1\.txt is the input file itself/, first, firstText);
    await refused(['cards', 'activate', '--from-file', first, '--report', first], /^error: --report .*bound-1\.txt is the input file itself/, first, firstText);
    expect(await statuses()).toEqual(statusesBefore);
    // The same run resumed: every row skipped, its identity checked against the report's line.
    const resumed = await run(['cards', 'activate', '--from-file', first, '--resume', reportPath, '-o', 'json']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ skipped: 3, done: 0, failed: 0 });
    // stdin with a report is spooled and hashed like a file: resumed from the same bytes, refused from others.
    const piped = join(dir.path, 'bound-stdin.ndjson');
    expect((await run(['cards', 'activate', '--from-file', '-', '--report', piped], firstText)).exitCode).toBe(0);
    expect(shardReport(piped, { verb: 'activate', input: sha256(first) })).toHaveLength(3);
    const pipedAgain = await run(['cards', 'activate', '--from-file', '-', '--resume', piped, '-o', 'json'], firstText);
    expect(JSON.parse(pipedAgain.stdout)).toMatchObject({ skipped: 3 });
    const pipedText = readFileSync(piped, 'utf8');
    await refused(['cards', 'activate', '--from-file', '-', '--resume', piped], /its input is another/, piped, pipedText, `${chosen[3]}\n`);
  });

  it('cards report merge: a shard not given is refused naming it (exit 2, nothing written); a shard that did not finish fails naming the rows missing (exit 8)', async () => {
    const ids = (await allCards()).slice(0, 7).map((c) => c.id);
    const file = join(dir.path, 'merge-ids.txt');
    writeFileSync(file, `${ids.join('\n')}\n`);
    const shardPath = (k: number) => join(dir.path, `merge-${k}.ndjson`);
    for (const k of [1, 2, 3]) {
      const result = await run(['cards', 'activate', '--from-file', file, '--shard', `${k}/3`, '--report', shardPath(k)]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(readFileSync(shardPath(k), 'utf8').trim().split('\n').at(-1)).toBe('{"end":{"rows":7}}');
    }
    const out = join(dir.path, 'merge-out.ndjson');
    const missingShard = await run(['cards', 'report', 'merge', shardPath(1), shardPath(3), '--out', out]);
    expect(missingShard.exitCode).toBe(2);
    expect(missingShard.stderr.split('\n')[0]).toMatch(/^error: shard 2\/3 of the run \(activate of .*merge-ids\.txt \(sha256:.*\)\) missing: give every shard's report \(given: 1\/3, 3\/3\)$/);
    expect(existsSync(out)).toBe(false);
    const all = await run(['cards', 'report', 'merge', shardPath(1), shardPath(2), shardPath(3)]);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stdout.trim().split('\n').map((l) => (JSON.parse(l) as Entry).row)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Shard 2 as a killed run leaves it: no end line, its last row not settled.
    const lines = readFileSync(shardPath(2), 'utf8').trim().split('\n');
    writeFileSync(shardPath(2), `${lines.filter((l) => !l.startsWith('{"end"') && !l.includes('"row":5')).join('\n')}\n`);
    const unfinished = await run(['cards', 'report', 'merge', shardPath(1), shardPath(2), shardPath(3), '--out', out]);
    expect(unfinished.exitCode).toBe(8);
    expect(unfinished.stderr).toMatch(/^error: 1 row missing \(row 5\): shard 2\/3 did not finish$/m);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(6);
  });

  it('a reference given to cards create may not start with import: (imports are recorded as import:<realId>): the import of that realId is imported, not "already there"', async () => {
    const single = await run(['cards', 'create', '--program', sandbox.info.cardProgramId, '--reference', 'import:COLL-1', '--first-name', 'Ada', '--last-name', 'Obi',
      '--email', 'coll@example.com', '--phone', '+2348012345678', '--account-number', '0123456789', '--account-type', 'savings', '--pin-stdin'], '4821\n');
    expect(single.exitCode).toBe(2);
    expect(single.stderr.split('\n')[0]).toMatch(/invalid --reference "import:COLL-1": references starting with import: are the imported cards'/);
    const rows = join(dir.path, 'coll.csv');
    writeFileSync(rows, 'first-name,last-name,email,phone,account-number,reference\nAda,Obi,coll@example.com,+2348012345678,0123456789,import:COLL-1\n');
    const bulk = await run(['cards', 'create', '--rows-from-file', rows, '--program', sandbox.info.cardProgramId, '--account-type', 'savings', '-o', 'json']);
    expect(bulk.exitCode).toBe(8);
    expect(JSON.parse(bulk.stdout)).toMatchObject({ done: 0, failed: 1 });
    expect(bulk.stderr).toMatch(/INVALID: .*references starting with import:/);
    const csv = join(dir.path, 'coll-import.csv');
    writeFileSync(csv, `${HEADER}\n${['COLL-1', 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', 'coll@example.com', '1 Marina', '', 'Lagos', 'Lagos', '100001', 'NG', '1990-01-31',
      '+2348012345678', sandbox.info.institutionId, '202812', '101', 'classic', 'ADA OBI', '4821', '506099', 'active', 'false'].join(',')}\n`);
    const imported = await run(['import', '--from-file', csv, '-o', 'json']);
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ imported: 1, exists: 0 });
    // The same realId again is "already there" only for the same cardholder.
    expect(JSON.parse((await run(['import', '--from-file', csv, '-o', 'json'])).stdout)).toMatchObject({ imported: 0, exists: 1 });
    const other = join(dir.path, 'coll-other.csv');
    writeFileSync(other, readFileSync(csv, 'utf8').replace(',Ada,Obi,', ',Bisi,Obi,'));
    const clash = await run(['import', '--from-file', other, '-o', 'json']);
    expect(clash.exitCode).toBe(8);
    expect(JSON.parse(clash.stdout)).toMatchObject({ imported: 0, exists: 0, failed: 1 });
    expect(clash.stderr).toMatch(/realId "COLL-1" is already imported for another cardholder \(its firstName differs from this row's\)/);
    // The sandbox refuses such a reference too, whoever sends it (its Create Card schema).
    const response = await fetch(`${sandbox.info.baseUrl}/institutions/cards`, {
      method: 'POST', headers: { authorization: `Bearer ${sandbox.info.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ referenceCode: 'import:COLL-2' }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/referenceCode/);
  });

  it('--from-file - with nothing on stdin is a usage error saying so, with or without a report (none is written)', async () => {
    for (const args of [['cards', 'activate', '--from-file', '-'], ['cards', 'renew', '--from-file', '-', '--expiration', '203001', '--report', join(dir.path, 'empty-stdin.ndjson')],
      ['import', '--from-file', '-', '--format', 'csv'], ['import', '--from-file', '-', '--format', 'csv', '--report', join(dir.path, 'empty-stdin-import.ndjson')]]) {
      const result = await run(args, '');
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.split('\n')[0]).toBe('error: --from-file -: stdin gave no rows (it was empty or closed)');
    }
    expect(existsSync(join(dir.path, 'empty-stdin.ndjson'))).toBe(false);
    expect(existsSync(join(dir.path, 'empty-stdin-import.ndjson'))).toBe(false);
  });
});

describe('bulk card verbs under faults', () => {
  const dir = tempDir('cardctl-e2e-bulk-faults-');
  const CLIENT = ['--timeout', '1', '--retries', '10'];
  const FAULTS = 'rate=0.2,reset=0.1,commit-then-timeout=0.05,hold=1';
  let ctx: Awaited<ReturnType<typeof sandboxWithCards>>;
  const run = (args: string[]) => cardctl(args, { configDir: dir.path, env: ctx.env, timeout: 200_000 });

  beforeAll(async () => {
    ctx = await sandboxWithCards(dir.path, 'FLT', 300);
  }, 180_000);
  afterAll(async () => {
    await ctx?.sandbox.stop();
    dir.remove();
  });

  it('deactivate and renew of 300 cards: every card changed exactly once (0 lost, 0 renewed twice)', async () => {
    const before = await ctx.allCards();
    const file = join(dir.path, 'ids.txt');
    writeFileSync(file, `${before.map((c) => c.id).join('\n')}\n`);
    await ctx.setFaults({ spec: FAULTS, seed: 7 });
    const deactivated = await run(['cards', 'deactivate', '--from-file', file, '--yes', '--concurrency', '16', '-o', 'json', ...CLIENT]);
    const deactivationFaults = await ctx.faultCounts();
    await ctx.setFaults({});
    expect(deactivated.exitCode, deactivated.stderr).toBe(0);
    expect(JSON.parse(deactivated.stdout)).toMatchObject({ done: 300, failed: 0 });
    for (const kind of ['status', 'commit-then-timeout']) expect(deactivationFaults[kind], kind).toBeGreaterThan(5);
    for (const card of await ctx.allCards()) expect(card.status).toBe('suspended');

    await ctx.setFaults({ spec: FAULTS, seed: 8 });
    const renewed = await run(['cards', 'renew', '--from-file', file, '--expiration', '203106', '--concurrency', '16', '-o', 'json', ...CLIENT]);
    const renewalFaults = await ctx.faultCounts();
    await ctx.setFaults({});
    expect(renewed.exitCode, renewed.stderr).toBe(0);
    expect(JSON.parse(renewed.stdout)).toMatchObject({ failed: 0, rows: 300 });
    for (const kind of ['status', 'commit-then-timeout']) expect(renewalFaults[kind], kind).toBeGreaterThan(5);
    const after = new Map((await ctx.allCards()).map((c) => [c.id, c]));
    expect(after.size).toBe(300);
    for (const card of before) {
      const now = after.get(card.id)!;
      expect(`${now.expiryYear}${now.expiryMonth}`).toBe('203106');
      expect(Number(now.seqNumber), card.referenceCode).toBe(Number(card.seqNumber) + 1);
    }
  }, 300_000);

  it('a renewal killed half way and resumed with --resume: every card renewed once', async () => {
    const before = await ctx.allCards();
    const file = join(dir.path, 'renew.txt');
    writeFileSync(file, `${before.map((c) => c.id).join('\n')}\n`);
    const reportPath = join(dir.path, 'renew-kill.ndjson');
    await ctx.setFaults({ spec: FAULTS, seed: 11 });
    const child = execa('node', [BIN, 'cards', 'renew', '--from-file', file, '--expiration', '203104', '--report', reportPath, '--concurrency', '8', ...CLIENT], {
      env: cleanEnv({ ...isolatedDirs(dir.path), ...ctx.env }), extendEnv: false, reject: false,
    });
    const started = Date.now();
    while (Date.now() - started < 120_000) {
      // More than 100 rows after the report's header line.
      if (existsSync(reportPath) && (readFileSync(reportPath, 'utf8').match(/\n/g)?.length ?? 0) > 101) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    const settled = report(reportPath).length;
    expect(settled).toBeGreaterThan(100);
    expect(settled).toBeLessThan(300);
    const resumed = await run(['cards', 'renew', '--from-file', file, '--expiration', '203104', '--resume', reportPath, '--concurrency', '8', '-o', 'json', ...CLIENT]);
    await ctx.setFaults({});
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout);
    expect(summary.failed).toBe(0);
    expect(summary.skipped).toBeGreaterThanOrEqual(100);
    expect(summary.done + summary.already + summary.skipped).toBe(300);
    const after = new Map((await ctx.allCards()).map((c) => [c.id, c]));
    for (const card of before) {
      const now = after.get(card.id)!;
      expect(`${now.expiryYear}${now.expiryMonth}`).toBe('203104');
      expect(Number(now.seqNumber), card.referenceCode).toBe(Number(card.seqNumber) + 1);
    }
  }, 300_000);

  // Last: the cards it creates would count in the tests above.
  it('create --rows-from-file under faults: every card created is in the journal with its id, even when its answer was lost; a rerun adds no "409" lines, only "already" notes with the reference and id', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => `Jo${i},Doe,jo${i}@example.com,+23480155${String(i).padStart(5, '0')},33${String(i).padStart(8, '0')}`);
    const file = join(dir.path, 'journalled.csv');
    writeFileSync(file, `first-name,last-name,email,phone,account-number\n${rows.join('\n')}\n`);
    const args = ['cards', 'create', '--rows-from-file', file, '--program', ctx.sandbox.info.cardProgramId, '--account-type', 'savings', '--concurrency', '8', '-o', 'json', ...CLIENT];
    const journalFile = join(dir.path, 'journal', 'journal.ndjson');
    const journal = () => readFileSync(journalFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { path: string; status: number | null; phase?: string; ids: string[]; reference?: string; message: string });
    await ctx.setFaults({ spec: 'reset=0.15,commit-then-timeout=0.1,hold=1,methods=POST', seed: 11 });
    const created = await run(args);
    await ctx.setFaults({});
    expect(created.exitCode, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ done: 60, failed: 0 });
    const cards = (await ctx.allCards()).filter((card) => /^jo\d+@example\.com$/.test(card.customer.emailAddress));
    expect(cards).toHaveLength(60);
    const journalled = new Set(journal().filter((line) => line.path === '/institutions/cards').flatMap((line) => line.ids));
    expect(cards.filter((card) => !journalled.has(card.id)).map((card) => card.id)).toEqual([]);
    // Some answers were lost (the faults), and a look-up found what they had created.
    expect(journal().filter((line) => line.phase === 'found' && line.ids.length === 1).length).toBeGreaterThan(0);

    const before = journal().length;
    const again = await run(args);
    expect(JSON.parse(again.stdout)).toMatchObject({ already: 60, failed: 0 });
    const rerun = journal().slice(before);
    expect(rerun.filter((line) => line.status === 409)).toEqual([]);
    const already = rerun.filter((line) => line.phase === 'found');
    expect(already).toHaveLength(60);
    for (const line of already) expect(line).toMatchObject({ message: 'already there', reference: expect.stringMatching(/^row-/), ids: [expect.any(String)] });
  }, 120_000);
});
