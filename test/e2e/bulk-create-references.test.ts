// cards create --rows-from-file and the references that make it exactly once: a row's own
// reference, never the file's name, never another cardholder's card, never an import's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardctl, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { HEADER, type CardRecord, report, sandboxWithCards } from './bulk-helpers.js';

describe('bulk card creation by reference', () => {
  const dir = tempDir('cardctl-e2e-bulk-references-');
  let sandbox: RunningSandbox;
  let env: Record<string, string>;
  let allCards: () => Promise<CardRecord[]>;
  const expiry = (c: CardRecord) => `${c.expiryYear}${c.expiryMonth}`;
  const run = (args: string[], input = '') => cardctl(args, { configDir: dir.path, env, input, timeout: 120_000 });

  beforeAll(async () => {
    ({ sandbox, env, allCards } = await sandboxWithCards(dir.path, 'REF', 1));
  }, 120_000);
  afterAll(async () => {
    await sandbox?.stop();
    dir.remove();
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

  it('a replacement row for a cardholder whose card is suspended is never "already": create rows and import rows fail naming the card, a renewal at its month renews it', async () => {
    const rows = join(dir.path, 'replace.csv');
    writeFileSync(rows, 'first-name,last-name,email,phone,account-number\nRemi,Ola,remi@example.com,+2348012345671,0123456782\n');
    const create = () => run(['cards', 'create', '--rows-from-file', rows, '--program', sandbox.info.cardProgramId, '--account-type', 'savings', '-o', 'json']);
    const first = await create();
    expect(first.exitCode, first.stderr).toBe(0);
    const card = (await allCards()).find((c) => c.customer.emailAddress === 'remi@example.com')!;
    expect((await run(['cards', 'deactivate', card.id, '--yes'])).exitCode).toBe(0);
    const replacing = await create();
    expect(replacing.exitCode).toBe(8);
    expect(JSON.parse(replacing.stdout)).toMatchObject({ done: 0, already: 0, failed: 1 });
    expect(replacing.stderr).toMatch(new RegExp(`CARD_NOT_USABLE: reference row-[0-9a-f]{32} is card ${card.id}, and it is suspended: not created again`));
    // Restored, it is the row's card again.
    expect((await run(['cards', 'activate', card.id, '--yes'])).exitCode).toBe(0);
    expect(JSON.parse((await create()).stdout)).toMatchObject({ done: 0, already: 1, failed: 0 });

    // An import row (active) whose card was suspended since.
    const csv = join(dir.path, 'repl-import.csv');
    writeFileSync(csv, `${HEADER}\n${['REPL-1', 'true', '2024-01-01', '2028-12-31', 'Remi', 'Ola', '', 'remi.i@example.com', '1 Marina', '', 'Lagos', 'Lagos', '100001', 'NG', '1990-01-31',
      '+2348012345671', sandbox.info.institutionId, '202812', '101', 'classic', 'REMI OLA', '4821', '506099', 'active', 'false'].join(',')}\n`);
    expect(JSON.parse((await run(['import', '--from-file', csv, '-o', 'json'])).stdout)).toMatchObject({ imported: 1 });
    const imported = (await allCards()).find((c) => c.customer.emailAddress === 'remi.i@example.com')!;
    expect((await run(['cards', 'deactivate', imported.id, '--yes'])).exitCode).toBe(0);
    const again = await run(['import', '--from-file', csv, '-o', 'json']);
    expect(again.exitCode).toBe(8);
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 0, exists: 0, failed: 1 });
    expect(again.stderr).toMatch(new RegExp(`realId "REPL-1" is card ${imported.id}, and it is suspended: not imported again`));

    // A bulk renewal to the month the suspended card already has: renewed (a replacement, active), not "already".
    const renewals = join(dir.path, 'repl-renew.csv');
    writeFileSync(renewals, `id,expiration\n${imported.id},${expiry(imported)}\n`);
    const renewed = await run(['cards', 'renew', '--from-file', renewals, '-o', 'json']);
    expect(renewed.exitCode, renewed.stderr).toBe(0);
    expect(JSON.parse(renewed.stdout)).toMatchObject({ done: 1, already: 0 });
    expect((await allCards()).find((c) => c.id === imported.id)).toMatchObject({ status: 'active' });
    expect(JSON.parse((await run(['cards', 'renew', '--from-file', renewals, '-o', 'json'])).stdout)).toMatchObject({ done: 0, already: 1 });
  }, 90_000);
});
