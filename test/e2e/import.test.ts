// Bulk import against the sandbox: 5,000 CSV rows with 1% invalid (exactly the valid rows exist,
// once; every invalid row is in the report with its line; exit 8), and --resume after the import
// is killed mid-run (no duplicates).
import { execa } from 'execa';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, startSandboxProcess, tempDir, type RunningSandbox, isolatedDirs } from '../helpers/cli.js';

const HEADER = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,institutionId,'
  + 'card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';

const BREAKERS: Array<(fields: string[]) => void> = [
  (f) => { f[7] = 'not-an-email'; },
  (f) => { f[22] = '12'; }, // card.bin
  (f) => { f[21] = '12ab'; }, // card.defaultPIN
  (f) => { f[14] = '1990-02-30'; }, // birthDate
  (f) => { f[17] = '202813'; }, // card.expiration
];

/** CSV rows (CRLF, one quoted field with a comma); every 100th row from the 50th is invalid. */
function csv(prefix: string, count: number, institutionId: string, invalidEvery = 100): { text: string; invalidLines: number[]; validIds: string[] } {
  const lines = [HEADER];
  const invalidLines: number[] = [];
  const validIds: string[] = [];
  for (let i = 1; i <= count; i++) {
    const realId = `${prefix}-${String(i).padStart(5, '0')}`;
    const fields = [realId, 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', `ada${i}@example.com`, '"1 Marina, Lagos Island"', '', 'Lagos', 'Lagos',
      '100001', 'NG', '1990-01-31', '+2348012345678', institutionId, '202812', '101', 'classic', 'ADA OBI', '4821', '506099', 'active', 'false'];
    if (invalidEvery > 0 && i % invalidEvery === invalidEvery / 2) {
      BREAKERS[invalidLines.length % BREAKERS.length]!(fields);
      invalidLines.push(i + 1); // the header is line 1
    } else {
      validIds.push(realId);
    }
    lines.push(fields.join(','));
  }
  return { text: `${lines.join('\r\n')}\r\n`, invalidLines, validIds };
}

async function allCards(sandbox: RunningSandbox): Promise<Array<{ id: string; referenceCode: string }>> {
  const cards: Array<{ id: string; referenceCode: string }> = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${sandbox.info.baseUrl}/institutions/cards?limit=100&page=${page}`, { headers: { authorization: `Bearer ${sandbox.info.token}` } });
    const body = (await response.json()) as { data: Array<{ id: string; referenceCode: string }>; pagination: { pages: number } };
    cards.push(...body.data);
    if (page >= body.pagination.pages) return cards;
  }
}

/** A report's entries: its first line names the run (import, the SHA-256 of the file), the others are rows. */
function report(path: string): Array<{ line: number; realId?: string; outcome: string; cardId?: string; error?: string }> {
  const [header, ...entries] = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  expect(header).toEqual({ run: { verb: 'import', input: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), source: expect.any(String) } });
  return entries.filter((e) => !e.end);
}

describe('import', () => {
  let sandbox: RunningSandbox;
  const dir = tempDir();
  let env: Record<string, string>;

  beforeAll(async () => {
    sandbox = await startSandboxProcess();
    env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_API_KEY: sandbox.info.apiKey, CARDCTL_TOKEN: sandbox.info.token };
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
    dir.remove();
  });

  it('imports 5,000 CSV rows with 1% invalid: exactly the valid rows, once; every invalid row reported with its line; exit 8', async () => {
    const file = csv('BULK', 5000, sandbox.info.institutionId);
    const input = join(dir.path, 'cards.csv');
    const reportPath = join(dir.path, 'bulk-report.ndjson');
    writeFileSync(input, `\uFEFF${file.text}`);
    const result = await cardctl(['import', '--from-file', input, '--report', reportPath, '--concurrency', '16', '--json'], { configDir: dir.path, env, timeout: 280_000 });
    expect(result.exitCode, result.stderr).toBe(8);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ imported: 4950, exists: 0, invalid: 50, failed: 0, rows: 5000 });
    expect(result.stderr).toMatch(/imported 4950, already there 0, invalid 50, failed 0/);

    const entries = report(reportPath);
    expect(entries).toHaveLength(5000);
    const invalid = entries.filter((e) => e.outcome === 'invalid');
    expect(invalid.map((e) => e.line).sort((a, b) => a - b)).toEqual(file.invalidLines);
    for (const e of invalid) expect(e.error).toMatch(/^(email|card\.bin|card\.defaultPIN|birthDate|card\.expiration):/);
    const imported = entries.filter((e) => e.outcome === 'imported');
    expect(new Set(imported.map((e) => e.realId))).toEqual(new Set(file.validIds));
    expect(imported.every((e) => typeof e.cardId === 'string' && e.cardId)).toBe(true);

    const cards = (await allCards(sandbox)).filter((c) => c.referenceCode.startsWith('import:BULK-'));
    expect(cards).toHaveLength(4950);
    expect(new Set(cards.map((c) => c.referenceCode))).toEqual(new Set(file.validIds.map((id) => `import:${id}`)));
  }, 300_000);

  it('--resume after the import is killed mid-run finishes with no duplicates', async () => {
    const file = csv('KILL', 1500, sandbox.info.institutionId, 0);
    const input = join(dir.path, 'kill.csv');
    const reportPath = join(dir.path, 'kill-report.ndjson');
    writeFileSync(input, file.text);
    const child = execa('node', [BIN, 'import', '--from-file', input, '--report', reportPath, '--concurrency', '16'], {
      env: cleanEnv({ ...isolatedDirs(dir.path), ...env }), extendEnv: false, reject: false,
    });
    const started = Date.now();
    while (Date.now() - started < 60_000) {
      // More than 200 complete entries (newline-terminated) after the header line, as the assertions below count them.
      if (existsSync(reportPath) && (readFileSync(reportPath, 'utf8').match(/\n/g)?.length ?? 0) > 201) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGKILL');
    const killed = await child;
    expect(killed.signal).toBe('SIGKILL');
    const before = report(reportPath).length;
    expect(before).toBeGreaterThan(200);
    expect(before).toBeLessThan(1500);

    const again = await cardctl(['import', '--from-file', input, '--report', reportPath, '--json'], { configDir: dir.path, env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/--resume/);

    const resumed = await cardctl(['import', '--from-file', input, '--report', reportPath, '--resume', '--concurrency', '16', '--json'], { configDir: dir.path, env, timeout: 200_000 });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout);
    expect(summary.failed).toBe(0);
    expect(summary.invalid).toBe(0);
    expect(summary.skipped).toBeGreaterThanOrEqual(200);
    expect(summary.imported + summary.exists + summary.skipped).toBe(1500);

    const cards = (await allCards(sandbox)).filter((c) => c.referenceCode.startsWith('import:KILL-'));
    expect(cards).toHaveLength(1500);
    expect(new Set(cards.map((c) => c.referenceCode)).size).toBe(1500);

    // Every row is settled in the (appended) report as imported, already there, or skipped.
    const done = new Set(report(reportPath).filter((e) => ['imported', 'exists', 'skipped'].includes(e.outcome)).map((e) => e.realId));
    expect(done).toEqual(new Set(file.validIds));
  }, 300_000);

  it('Ctrl-C stops sending, finishes the requests in flight, writes the report and exits 130; --resume completes it', async () => {
    const file = csv('INT', 1000, sandbox.info.institutionId, 0);
    const input = join(dir.path, 'int.csv');
    const reportPath = join(dir.path, 'int-report.ndjson');
    writeFileSync(input, file.text);
    const child = execa('node', [BIN, 'import', '--from-file', input, '--report', reportPath, '--concurrency', '8'], {
      env: cleanEnv({ ...isolatedDirs(dir.path), ...env }), extendEnv: false, reject: false,
    });
    const started = Date.now();
    while (Date.now() - started < 60_000) {
      if (existsSync(reportPath) && readFileSync(reportPath, 'utf8').split('\n').length > 100) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    const interrupted = await child;
    expect(interrupted.exitCode, interrupted.stderr).toBe(130);
    const settled = report(reportPath);
    expect(settled.length).toBeLessThan(1000);
    // One error line: how many rows are left, and the command that finishes (--report made --resume).
    expect(interrupted.stderr).toContain(`error: import interrupted: ${1000 - settled.length} of 1,000 rows left;`);
    expect(interrupted.stderr).toContain(`hint: finish with: cardctl import --from-file ${input} --concurrency 8 --resume ${reportPath}`);
    // Every request that was sent is in the report: the cards in the sandbox are exactly the rows reported imported.
    const imported = settled.filter((e) => e.outcome === 'imported').map((e) => `import:${e.realId}`);
    const cards = (await allCards(sandbox)).filter((c) => c.referenceCode.startsWith('import:INT-'));
    expect(new Set(cards.map((c) => c.referenceCode))).toEqual(new Set(imported));

    const resumed = await cardctl(['import', '--from-file', input, '--report', reportPath, '--resume', '--json'], { configDir: dir.path, env, timeout: 200_000 });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ skipped: settled.length, imported: 1000 - settled.length, exists: 0, failed: 0 });
    const after = (await allCards(sandbox)).filter((c) => c.referenceCode.startsWith('import:INT-'));
    expect(after).toHaveLength(1000);
  }, 300_000);

  it('reads NDJSON from stdin and a JSON array; one card from flags is imported once', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => ({
      realId: `ND-${i}`, active: true, startDate: '2024-01-01', endDate: '2028-12-31', firstName: 'Ada', lastName: 'Obi', middleName: '',
      email: 'ada@example.com', address1: '1 Marina', address2: '', city: 'Lagos', state: 'Lagos', zip: '100001', country: 'NG',
      birthDate: '1990-01-31', phone: '+2348012345678',
      card: { expiration: '202812', serviceCode: '101', cardProduct: 'classic', embossingName: 'ADA OBI', defaultPIN: '4821', bin: '506099', cardState: 'active' },
      returnSecure: false,
    }));
    const ndjson = await cardctl(['import', '--from-file', '-', '--format', 'ndjson', '--institution-id', sandbox.info.institutionId, '--json'],
      { configDir: dir.path, env, input: rows.slice(0, 10).map((r) => JSON.stringify(r)).join('\n') });
    expect(ndjson.exitCode, ndjson.stderr).toBe(0);
    expect(JSON.parse(ndjson.stdout)).toMatchObject({ imported: 10 });

    const jsonFile = join(dir.path, 'cards.json');
    writeFileSync(jsonFile, JSON.stringify(rows.slice(5), null, 2));
    const json = await cardctl(['import', '--from-file', jsonFile, '--institution-id', sandbox.info.institutionId, '--json'], { configDir: dir.path, env });
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ imported: 10, exists: 5 });

    const flags = ['import', '--pin-stdin', '--real-id', 'ONE-1', '--institution-id', sandbox.info.institutionId, '--first-name', 'Ada', '--last-name', 'Obi',
      '--email', 'ada@example.com', '--phone', '+2348012345678', '--birth-date', '1990-01-31', '--address-line1', '1 Marina', '--city', 'Lagos', '--state', 'Lagos',
      '--postal-code', '100001', '--country', 'NG', '--start-date', '2024-01-01', '--end-date', '2028-12-31', '--expiration', '202812', '--service-code', '101',
      '--card-product', 'classic', '--embossing-name', 'ADA OBI', '--bin', '506099', '--status', 'active', '--json'];
    const one = await cardctl(flags, { configDir: dir.path, env, input: '4821\n' });
    expect(one.exitCode, one.stderr).toBe(0);
    const card = JSON.parse(one.stdout);
    expect(card.referenceCode).toBe('import:ONE-1');
    const repeat = await cardctl(flags, { configDir: dir.path, env, input: '4821\n' });
    expect(repeat.exitCode, repeat.stderr).toBe(0);
    expect(JSON.parse(repeat.stdout).id).toBe(card.id);

    const noPin = await cardctl(flags.filter((f) => f !== '--pin-stdin'), { configDir: dir.path, env });
    expect(noPin.exitCode).toBe(2);
    expect(noPin.stderr).toMatch(/--pin-stdin/);
  }, 120_000);
});

describe('import: hostile input ends with one clear line', () => {
  const dir = tempDir();
  // Nothing is sent in these cases: the address is never connected to.
  const env = { CARDCTL_BASE_URL: 'http://127.0.0.1:9', CARDCTL_API_KEY: 'key' };
  afterAll(() => dir.remove());

  const spawn = (args: string[], options: { inputFile?: string; shell?: string } = {}) => execa(options.shell ? 'bash' : 'node', options.shell ? ['-c', options.shell] : [BIN, ...args], {
    env: cleanEnv({ CARDCTL_CONFIG_DIR: dir.path, CARDCTL_DATA_DIR: dir.path, ...env }),
    extendEnv: false,
    reject: false,
    timeout: 60_000,
    ...(options.inputFile ? { inputFile: options.inputFile } : { input: '' }),
  });
  const oneErrorLine = (stderr: string) => {
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toMatch(/RangeError/);
    expect(stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
  };

  it.each([['ndjson', 'NDJSON line'], ['csv', 'CSV record'], ['json', null]])('--format %s < /dev/zero: exit 2 naming the line and the bound', async (format, what) => {
    const result = await spawn(['import', '--from-file', '-', '--format', format], { inputFile: '/dev/zero' });
    expect(result.exitCode, result.stderr).toBe(2);
    oneErrorLine(result.stderr);
    // A JSON file of NUL bytes is not an array at all; the others are one endless record.
    expect(result.stderr).toMatch(what ? new RegExp(`error: -: the ${what} is longer than 65,536 characters, the longest a record may be \\(line 1\\)`) : /must be an array/);
  });

  it('a Latin-1 CSV is refused naming the line; --encoding latin1 reads it', async () => {
    const file = join(dir.path, 'latin1.csv');
    const valid = csv('ENC', 2, 'inst_1', 0).text.replace('Ada,Obi', 'Adé,Obi');
    writeFileSync(file, Buffer.from(valid, 'latin1'));
    const bad = await spawn(['import', '--from-file', file, '--dry-run']);
    expect(bad.exitCode, bad.stderr).toBe(2);
    oneErrorLine(bad.stderr);
    expect(bad.stderr).toContain(`error: ${file}: not valid UTF-8 (line 2)`);
    expect(bad.stderr).toMatch(/hint: .*--encoding latin1/);
    const good = await spawn(['import', '--from-file', file, '--encoding', 'latin1', '--dry-run', '--json']);
    expect(good.exitCode, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ rows: 2, valid: 2, invalid: 0 });
  });

  it('--from-file <(…) is read (a FIFO); a directory is refused with a clear message', async () => {
    const file = join(dir.path, 'piped.csv');
    writeFileSync(file, csv('FIFO', 3, 'inst_1', 0).text);
    const piped = await spawn([], { shell: `exec node ${JSON.stringify(BIN)} import --from-file <(cat ${JSON.stringify(file)}) --format csv --dry-run --json` });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout)).toMatchObject({ rows: 3, valid: 3, invalid: 0 });
    const directory = await spawn(['import', '--from-file', dir.path, '--format', 'csv']);
    expect(directory.exitCode).toBe(2);
    oneErrorLine(directory.stderr);
    expect(directory.stderr).toContain(`${dir.path} is a directory`);
  });

  it('an import row is checked with the cards create validators before anything is sent', async () => {
    const file = join(dir.path, 'bad-rows.csv');
    const rows = csv('BAD', 6, 'inst_1', 0).text.split('\r\n');
    rows[1] = rows[1]!.replace('ADA OBI', 'ADA 😀');
    rows[2] = rows[2]!.replace(',4821,', ',0000,');
    rows[3] = rows[3]!.replace('1990-01-31', '2099-01-31');
    rows[4] = rows[4]!.replace('202812', '202001');
    rows[5] = rows[5]!.replace('BAD-00005', 'R'.repeat(5000));
    rows[6] = rows[6]!.replace('2024-01-01,2028-12-31', '2028-12-31,2024-01-01');
    writeFileSync(file, rows.join('\r\n'));
    const result = await spawn(['import', '--from-file', file, '--dry-run', '--json']);
    expect(result.exitCode, result.stderr).toBe(8);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 6, valid: 0, invalid: 6 });
    for (const expected of [/line 2 .*card\.embossingName: invalid "ADA 😀": use plain ASCII/, /line 3 .*card\.defaultPIN: the PIN is too easy to guess/, /line 4 .*birthDate: invalid "2099-01-31": a date of birth cannot be in the future/,
      /line 5 .*card\.expiration: invalid "202001": the card has expired/, /line 6 .*realId: invalid "R{40}…": at most 64 characters \(this has 5000\)/, /line 7 .*endDate: invalid "2024-01-01": must be after startDate \(2028-12-31\)/]) {
      expect(result.stderr).toMatch(expected);
    }
    expect(result.stderr.length).toBeLessThan(4000);
  });
});
