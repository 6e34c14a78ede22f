import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import importCommand from '../../src/commands/import.js';
import { UsageError } from '../../src/core/errors.js';
import { testContext } from '../helpers/context.js';
import { runCommand } from '../helpers/parse.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-import-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const BASE = 'http://127.0.0.1:4010';

function run(argv: string[], options: { stdin?: string; dispatcher?: MockAgent; env?: Record<string, string> } = {}) {
  const ctx = testContext({
    configDir: dir, stdin: options.stdin, dispatcher: options.dispatcher,
    env: { CARDCTL_BASE_URL: BASE, CARDCTL_API_KEY: 'key', ...options.env }, globals: { json: true },
  });
  return { ctx, done: runCommand(importCommand, ctx, argv) };
}

const HEADER = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,institutionId,'
  + 'card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';
const ROW = (id: string, inst = 'inst_1') => `${id},true,2024-01-01,2028-12-31,Ada,Obi,,ada@example.com,1 Marina,,Lagos,Lagos,100001,NG,1990-01-31,+2348012345678,${inst},202812,101,classic,ADA OBI,4821,506099,active,false`;

describe('import command: usage errors before anything is sent', () => {
  it.each([
    [['--from-file', join(dir, 'cards.txt')], /cannot tell the format/],
    [['--from-file', '-'], /--format/],
    [['--from-file', join(dir, 'missing.csv')], /no such file/],
    [['--from-file', join(dir, 'a.csv'), '--resume'], /--resume needs --report/],
    [['--from-file', join(dir, 'a.csv'), '--real-id', 'x', '--bin', '506099'], /--real-id, --bin .*cannot be combined with --from-file/],
    [['--report', 'r.ndjson'], /need --from-file/],
    [['--from-file', join(dir, 'a.csv'), '--concurrency', '0'], /--concurrency/],
  ])('%j', async (argv, message) => {
    writeFileSync(join(dir, 'cards.txt'), '');
    writeFileSync(join(dir, 'a.csv'), `${HEADER}\n${ROW('A')}\n`);
    const error = await run(argv).done.catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(message);
  });

  it('refuses to overwrite an existing report without --resume', async () => {
    writeFileSync(join(dir, 'a.csv'), `${HEADER}\n${ROW('A')}\n`);
    writeFileSync(join(dir, 'old.ndjson'), '{"line":2,"realId":"A","outcome":"imported"}\n');
    const error = await run(['--from-file', join(dir, 'a.csv'), '--report', join(dir, 'old.ndjson')]).done.catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.hint).toMatch(/--resume/);
  });

  it('an unknown CSV column is a usage error and nothing is sent', async () => {
    writeFileSync(join(dir, 'typo.csv'), `${HEADER.replace('firstName', 'fistName')}\n${ROW('A')}\n`);
    const agent = new MockAgent();
    agent.disableNetConnect();
    const error = await run(['--from-file', join(dir, 'typo.csv')], { dispatcher: agent }).done.catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/unknown CSV column "fistName"/);
  });

  it('one card without a PIN source is a usage error naming --pin-stdin', async () => {
    const error = await run(['--real-id', 'X', '--institution-id', 'i', '--first-name', 'a', '--last-name', 'b', '--email', 'a@b.co', '--phone', '+2348012345678', '--birth-date', '1990-01-01', '--address-line1', 'x', '--city', 'x', '--state', 'x', '--postal-code', 'x', '--country', 'NG', '--start-date', '2024-01-01', '--end-date', '2028-01-01', '--expiration', '202812', '--service-code', '101', '--card-product', 'c', '--embossing-name', 'A B', '--bin', '506099', '--status', 'active']).done.catch((e) => e);
    expect(error.message).toMatch(/--pin-stdin/);
  });

  it('one card: a missing field names its flag', async () => {
    const error = await run(['--real-id', 'X']).done.catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    // Named by the parse step, which cannot know the institution id a profile may hold.
    expect(error.message).toMatch(/^missing --first-name, --last-name, --email/);
  });
});

describe('import command against a mocked API', () => {
  it('sends each valid row with the API key, reports the rest, exits 8', async () => {
    writeFileSync(join(dir, 'mixed.csv'), `${HEADER}\r\n${ROW('A')}\r\n${ROW('B').replace('ada@example.com', 'bad')}\r\n${ROW('C')}\r\n`);
    const agent = new MockAgent();
    agent.disableNetConnect();
    const seen: string[] = [];
    agent.get(BASE).intercept({ path: '/util/cards/import', method: 'POST', headers: { 'x-api-key': 'key' } }).reply(201, (req) => {
      const body = JSON.parse(String(req.body));
      seen.push(body.realId);
      return { statusCode: 200, message: 'Card imported successfully', data: { id: `card_${body.realId}` } };
    }).times(2);
    const reportPath = join(dir, 'mixed-report.ndjson');
    const { ctx, done } = run(['--from-file', join(dir, 'mixed.csv'), '--report', reportPath], { dispatcher: agent });
    const error = await done.catch((e) => e);
    expect(error.exitCode).toBe(8);
    expect(seen.sort()).toEqual(['A', 'C']);
    expect(JSON.parse(ctx.io.stdoutText())).toMatchObject({ imported: 2, invalid: 1, failed: 0 });
    expect(ctx.io.stderrText()).toMatch(/invalid: line 3 \(B\): email:/);
    const lines = readFileSync(reportPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toContainEqual({ line: 2, realId: 'A', outcome: 'imported', cardId: 'card_A' });
    expect(lines).toContainEqual(expect.objectContaining({ line: 3, realId: 'B', outcome: 'invalid' }));
  });
});

describe('import --resume: one flag (the bulk verbs\'), two spellings', () => {
  const resumeRun = async (flags: (report: string) => string[], name: string) => {
    writeFileSync(join(dir, `${name}.csv`), `${HEADER}\n${ROW('A')}\n${ROW('B')}\n`);
    const reportPath = join(dir, `${name}.ndjson`);
    // A report starts with its run: the verb and the SHA-256 of the input.
    const input = `sha256:${createHash('sha256').update(readFileSync(join(dir, `${name}.csv`))).digest('hex')}`;
    writeFileSync(reportPath, `${JSON.stringify({ run: { verb: 'import', input, source: 'cards.csv' } })}\n{"line":2,"realId":"A","outcome":"imported","cardId":"card_A"}\n`);
    const agent = new MockAgent();
    agent.disableNetConnect();
    const seen: string[] = [];
    agent.get(BASE).intercept({ path: '/util/cards/import', method: 'POST' }).reply(200, (req) => {
      seen.push(JSON.parse(String(req.body)).realId);
      return { statusCode: 200, message: 'Card imported successfully', data: { id: 'card_B' } };
    }).persist();
    const { ctx, done } = run(['--from-file', join(dir, `${name}.csv`), ...flags(reportPath)], { dispatcher: agent });
    await done;
    return { seen, summary: JSON.parse(ctx.io.stdoutText()), report: readFileSync(reportPath, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l)) };
  };

  it.each([
    ['--resume REPORT', (r: string) => ['--resume', r]],
    ['--report REPORT --resume (the earlier spelling)', (r: string) => ['--report', r, '--resume']],
    ['--resume --report REPORT', (r: string) => ['--resume', '--report', r]],
    ['--resume REPORT --report REPORT', (r: string) => ['--resume', r, '--report', r]],
  ])('%s skips the rows the report records as imported and appends the others', async (name, flags) => {
    const { seen, summary, report } = await resumeRun(flags, `resume-${name.replace(/\W+/g, '-')}`);
    expect(seen).toEqual(['B']);
    expect(summary).toMatchObject({ imported: 1, skipped: 1, rows: 2 });
    expect(report.map((e) => [e.realId, e.outcome])).toEqual([['A', 'imported'], ['A', 'skipped'], ['B', 'imported']]);
  });

  it('a report not there yet is started; --resume and --report naming two files is a usage error', async () => {
    const fresh = join(dir, 'fresh.ndjson');
    writeFileSync(join(dir, 'fresh.csv'), `${HEADER}\n${ROW('F')}\n`);
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get(BASE).intercept({ path: '/util/cards/import', method: 'POST' }).reply(200, { statusCode: 200, message: 'ok', data: { id: 'card_F' } });
    await run(['--from-file', join(dir, 'fresh.csv'), '--resume', fresh], { dispatcher: agent }).done;
    const [header, entry] = readFileSync(fresh, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(header).toEqual({ run: { verb: 'import', input: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), source: join(dir, 'fresh.csv') } });
    expect(entry).toMatchObject({ realId: 'F', outcome: 'imported' });
    const error = await run(['--from-file', join(dir, 'fresh.csv'), '--resume', fresh, '--report', join(dir, 'other.ndjson')]).done.catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/--resume REPORT continues that report/);
  });
});

describe('import --resume: a report belongs to one verb and one input', () => {
  const digest = (path: string) => `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
  const header = (run: Record<string, unknown>) => `${JSON.stringify({ run })}\n`;
  const cases: Array<[string, (csv: string) => string, RegExp]> = [
    ['the report of another verb', (csv) => `${header({ verb: 'renew', input: digest(csv), source: csv })}{"row":1,"id":"c1","outcome":"done"}\n`, /another run \(renew of .*its verb is renew, not import/],
    ['the report of another input (another file, or this one edited)', (csv) => `${header({ verb: 'import', input: `sha256:${'0'.repeat(64)}`, source: csv })}{"line":2,"realId":"A","outcome":"imported"}\n`, /its input is another/],
    ['a report with no header', () => '{"line":2,"realId":"A","outcome":"imported"}\n', /first line does not name one/],
    ['a report with a line that is not a report line', (csv) => `${header({ verb: 'import', input: digest(csv), source: csv })}{"line":2,"realId":"A","outcome":"imported"}\nid,expiration\n{"line":3,"realId":"B","outcome":"imported"}\n`, /line 3 is not JSON/],
    ['a report with JSON that is not an entry', (csv) => `${header({ verb: 'import', input: digest(csv), source: csv })}{"row":1,"outcome":"done"}\n`, /line 2 is not a line of an import report/],
  ];
  it.each(cases)('%s is refused before anything is sent, the report untouched', async (_name, report, message) => {
    const csv = join(dir, 'bound.csv');
    writeFileSync(csv, `${HEADER}\n${ROW('A')}\n${ROW('B')}\n`);
    const path = join(dir, 'bound.ndjson');
    writeFileSync(path, report(csv));
    const before = readFileSync(path, 'utf8');
    const agent = new MockAgent();
    agent.disableNetConnect();
    const error = await run(['--from-file', csv, '--resume', path], { dispatcher: agent }).done.catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/\n/);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('the input file itself, as --resume or --report, is refused and left as it was', async () => {
    const csv = join(dir, 'self.csv');
    writeFileSync(csv, `${HEADER}\n${ROW('A')}\n`);
    for (const flags of [['--resume', csv], ['--report', csv]]) {
      const error = await run(['--from-file', csv, ...flags]).done.catch((e) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toMatch(/is the input file itself/);
      expect(readFileSync(csv, 'utf8')).toBe(`${HEADER}\n${ROW('A')}\n`);
    }
  });

  it('--from-file - with nothing on stdin is a usage error, with or without a report', async () => {
    for (const flags of [[], ['--report', join(dir, 'stdin-empty.ndjson')]]) {
      const error = await run(['--from-file', '-', '--format', 'csv', ...flags], { stdin: '' }).done.catch((e) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toMatch(/stdin gave no rows/);
    }
  });
});
