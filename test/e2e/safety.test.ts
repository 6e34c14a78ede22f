// Operator safety end to end (README, "Operator safety"): the audit journal, --dry-run, production guardrails,
// requireExplicitProfile (doctor: doctor.test.ts) — the built bin/cardctl.js against `cardctl sandbox serve`.
// Run `npm run build` first.
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import type { JournalEntry } from '../../src/audit/journal.js';
import { ScriptedPrompter } from '../../src/core/prompter.js';
import { luhnValid } from '../../src/core/redact.js';
import { testIO } from '../helpers/context.js';
import { useSafetySandbox } from './safety-helpers.js';

const { sandbox: running, scratch, workspace, sandboxEnv, cardFlags, profileAt, createCard, cardCount } = useSafetySandbox();

const mutatingLines = (log: string) => log.split('\n').filter((line) => /^(POST|PUT|PATCH|DELETE) /.test(line) || /\/(activate|deactivate) /.test(line));

describe('audit journal', () => {
  it('every mutating command leaves exactly two lines, its intent before it is sent and its outcome, with no secret in them; history --card reads them back', async () => {
    const ws = workspace();
    const env = sandboxEnv();
    const secrets: string[] = [running().info.token, running().info.apiKey, '5060990000000123'];
    const step = async (label: string, args: string[], input?: string, extraEnv: Record<string, string> = {}) => {
      const before = ws.journal().length;
      const result = await ws.run(args, { input, env: { ...env, ...extraEnv } });
      expect(result.exitCode, `${label}: ${result.stderr}`).toBe(0);
      const lines = ws.journal();
      expect(lines.length, label).toBe(before + 2);
      const [intent, outcome] = lines.slice(-2);
      expect(intent, label).toMatchObject({ phase: 'intent', status: null, method: outcome!.method, path: outcome!.path });
      expect(outcome, label).not.toHaveProperty('phase');
      return { result, line: outcome! };
    };

    const created = await step('create', [...cardFlags(['--pan', '5060990000000123']), '-o', 'json'], '4821\n');
    const card = JSON.parse(created.result.stdout);
    expect(created.line).toMatchObject({ method: 'POST', path: '/institutions/cards', status: 201, env: 'unknown', baseUrl: running().info.baseUrl, ids: [card.id] });
    expect(created.line.command).toContain('--pan 506099******0123');
    expect(created.line.operator).toEqual(expect.any(String));
    expect(created.line.durationMs).toEqual(expect.any(Number));
    expect(created.line.time).toMatch(/^\d{4}-\d\d-\d\dT/);

    const year = new Date().getUTCFullYear() + 2;
    await step('renew', ['cards', 'renew', card.id, '--expiration', `${year}06`, '-q']);
    await step('pin change', ['cards', 'pin', 'change', card.id, '--pin-stdin', '-q'], '4821\n7305\n');
    await step('pin reset', ['cards', 'pin', 'reset', card.id, '--pin-stdin', '-q', '--reason', 'forgotten'], '2961\n');
    const update = await step('customer update', ['cards', 'customer', 'update', card.id, '--email', 'ada.obi@example.com', '-q', '--reason', 'moved']);
    expect(update.line).toMatchObject({ method: 'PUT', reason: 'moved', ids: [card.id] });
    const deactivated = await step('deactivate', ['cards', 'deactivate', card.id, '--yes', '--reason', 'reported stolen', '-q']);
    expect(deactivated.line).toMatchObject({ method: 'GET', reason: 'reported stolen', status: 200 });
    await step('activate', ['cards', 'activate', card.id, '-q']);
    await step('simulate', ['simulate', 'authorization', '--card', card.id, '--amount', '10.00', '-o', 'json']);
    await step('import one', ['import', '--pin-stdin', '--real-id', 'SAFETY-1', '--institution-id', running().info.institutionId,
      '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com', '--phone', '+2348012345678', '--birth-date', '1990-01-31',
      '--address-line1', '1 Marina', '--city', 'Lagos', '--state', 'Lagos', '--postal-code', '100001', '--country', 'NG', '--start-date', '2024-01-01',
      '--end-date', '2028-12-31', '--expiration', '202812', '--service-code', '101', '--card-product', 'classic', '--embossing-name', 'ADA OBI',
      '--bin', '506099', '--status', 'active', '-q', '--reason', 'migration'], '1357\n');

    const keys = scratch('cardctl-e2e-safety-keys-');
    expect((await ws.run(['oauth', 'keygen', '--out', keys.path, '--subject', 'safety', '--json'])).exitCode).toBe(0);
    await step('oauth create', ['oauth', 'create', '--name', 'safety', '--public-key', join(keys.path, 'certificate.pem'),
      '--scope', 'read:card', '--grant-type', 'client_credentials', '--json']);

    const institution = ((await (await fetch(`${running().info.baseUrl}/sandbox/institutions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { data: { userId: string; token: string } }).data;
    secrets.push(institution.token);
    await step('users update', ['users', 'update', institution.userId, '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com',
      '--phone', '+2348012345678', '--status', 'active', '--no-blocked', '--role', 'admin=create:card,read:card', '--json'], undefined, { CARDCTL_TOKEN: institution.token });

    // Reads (list, get, history) add nothing.
    const before = ws.journal().length;
    expect((await ws.run(['cards', 'get', card.id, '-q'], { env })).exitCode).toBe(0);
    expect((await ws.run(['cards', 'list', '-q'], { env })).exitCode).toBe(0);
    expect(ws.journal().length).toBe(before);

    const text = ws.journalText();
    for (const secret of secrets) expect(text).not.toContain(secret);
    // The PINs' four digits may turn up by chance inside the sandbox's random ids (hex) and port:
    // seen once as "f97305" in an id. Everywhere else (commands, messages, reasons) they must not.
    const notRandom = text.replaceAll(running().info.baseUrl, '<base-url>').replace(/\b[0-9a-f]{24}\b/g, '<id>');
    for (const pin of ['4821', '7305', '2961', '1357']) expect(notRandom).not.toContain(pin);
    expect(text).not.toMatch(/encryptedData|Bearer|sbx_tok_|sbx_key_/);
    // No full PAN (a Luhn-valid run of 13-19 digits) anywhere.
    expect((text.match(/(?<!\d)\d{13,19}(?!\d)/g) ?? []).filter(luhnValid)).toEqual([]);
    if (process.platform !== 'win32') expect(statSync(ws.journalFile).mode & 0o777).toBe(0o600);

    const history = await ws.run(['history', '--card', card.id, '-o', 'json']);
    expect(history.exitCode, history.stderr).toBe(0);
    const entries = JSON.parse(history.stdout) as JournalEntry[];
    expect(entries.map((e) => `${e.method} ${e.path.replace(card.id, 'ID')}`)).toEqual([
      'POST /institutions/cards',
      'PUT /institutions/cards/ID/renew',
      'PUT /institutions/cards/pin/ID/change',
      'PUT /institutions/cards/pin/ID/reset',
      'PUT /institutions/cards/ID/customer',
      'GET /institutions/cards/ID/deactivate',
      'GET /institutions/cards/ID/activate',
      // A simulation names its card in the body: the journal keeps the id, so --card finds it.
      'POST /institutions/switch/simulate',
    ]);
    for (const entry of entries) expect(entry.ids).toContain(card.id);
    const table = await ws.run(['history', '--card', card.id]);
    expect(table.exitCode).toBe(0);
    for (const secret of secrets) expect(table.stdout).not.toContain(secret);
  }, 120_000);

  it('a failed call is journalled with its status; a journal that cannot be written only warns', async () => {
    const ws = workspace();
    const missing = await ws.run(['cards', 'activate', 'ffffffffffffffffffffffff'], { env: sandboxEnv() });
    expect(missing.exitCode).toBe(4);
    expect(ws.journal()).toEqual([
      expect.objectContaining({ phase: 'intent', status: null }),
      expect.objectContaining({ status: 404, message: expect.stringContaining('not found') }),
    ]);

    const blocked = join(ws.data, 'not-a-dir');
    writeFileSync(blocked, 'x');
    const card = await createCard(ws);
    const ok = await ws.run(['cards', 'activate', card.id, '-q'], { env: { ...sandboxEnv(), CARDCTL_JOURNAL_DIR: blocked } });
    expect(ok.exitCode).toBe(0);
    expect(ok.stderr.match(/could not write the audit journal/g)).toHaveLength(1);
  }, 60_000);
});

describe('--dry-run', () => {
  it('sends nothing: the sandbox sees no mutation, the card count is unchanged, exit 0', async () => {
    const ws = workspace();
    const card = await createCard(ws);
    const count = await cardCount();
    const logBefore = mutatingLines(running().log()).length;
    const journalBefore = ws.journal().length;
    const env = sandboxEnv();

    const create = await ws.run([...cardFlags(), '--dry-run', '-o', 'json'], { input: '4821\n', env });
    expect(create.exitCode, create.stderr).toBe(0);
    const shown = JSON.parse(create.stdout);
    expect(shown).toMatchObject({ dryRun: true, method: 'POST', url: `${running().info.baseUrl}/institutions/cards` });
    expect(shown.body.defaultPIN).toBe('[REDACTED]');
    expect(create.stdout).not.toContain('4821');

    const reset = await ws.run(['cards', 'pin', 'reset', card.id, '--pin-stdin', '--dry-run', '-o', 'json'], { input: '2961\n', env });
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ method: 'PUT', body: { newPIN: '[REDACTED]' } });

    const text = await ws.run(['cards', 'deactivate', card.id, '--dry-run'], { env });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toContain(`dry run, nothing sent: GET ${running().info.baseUrl}/institutions/cards/${card.id}/deactivate`);
    for (const args of [
      ['cards', 'renew', card.id, '--expiration', `${new Date().getUTCFullYear() + 2}01`, '--dry-run'],
      ['cards', 'customer', 'update', card.id, '--email', 'dry@example.com', '--dry-run'],
      ['cards', 'activate', card.id, '--dry-run'],
      ['simulate', 'authorization', '--card', card.id, '--amount', '5.00', '--dry-run'],
    ]) {
      const result = await ws.run(args, { env });
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('dry run, nothing sent');
    }

    expect(mutatingLines(running().log()).length).toBe(logBefore);
    expect(await cardCount()).toBe(count);
    expect(ws.journal().length).toBe(journalBefore);
    const still = await ws.run(['cards', 'get', card.id, '-o', 'json'], { env });
    expect(JSON.parse(still.stdout).customer.emailAddress).toBe('ada@example.com');
  }, 60_000);

  it('import --dry-run checks the whole file: row errors with line numbers, counts, exit 8 when any row is invalid', async () => {
    const ws = workspace();
    const header = 'realId,active,returnSecure,middleName,address2,institutionId,firstName,lastName,email,phone,birthDate,address1,city,state,zip,country,startDate,endDate,card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.bin,card.cardState,card.defaultPIN';
    const row = (id: string, bin = '506099') => `${id},true,false,,,${running().info.institutionId},Ada,Obi,ada@example.com,+2348012345678,1990-01-31,1 Marina,Lagos,Lagos,100001,NG,2024-01-01,2028-12-31,202812,101,classic,ADA OBI,${bin},active,4821`;
    const good = join(ws.data, 'good.csv');
    writeFileSync(good, [header, row('DRY-1'), row('DRY-2')].join('\n'));
    const bad = join(ws.data, 'bad.csv');
    writeFileSync(bad, [header, row('DRY-3'), row('DRY-4', 'x'), row('DRY-3')].join('\n'));
    const count = await cardCount();
    const logBefore = mutatingLines(running().log()).length;

    const ok = await ws.run(['import', '--from-file', good, '--dry-run', '-o', 'json'], { env: sandboxEnv() });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ dryRun: true, rows: 2, valid: 2, invalid: 0, errors: [] });

    const ko = await ws.run(['import', '--from-file', bad, '--dry-run', '-o', 'json'], { env: sandboxEnv() });
    expect(ko.exitCode).toBe(8);
    const verdict = JSON.parse(ko.stdout);
    expect(verdict).toMatchObject({ rows: 3, valid: 1, invalid: 2 });
    expect(verdict.errors.map((e: { line: number }) => e.line)).toEqual([3, 4]);
    expect(ko.stderr).toMatch(/invalid: line 3 \(DRY-4\): card\.bin/);
    expect(ko.stderr).toMatch(/line 4 \(DRY-3\): realId: "DRY-3" appears earlier/);

    expect(mutatingLines(running().log()).length).toBe(logBefore);
    expect(await cardCount()).toBe(count);
    expect(ws.journal()).toEqual([]);
  }, 60_000);
});

describe('production guardrails', () => {
  it('without a terminal, production needs --yes and --confirm-production; a sandbox profile does not', async () => {
    const ws = workspace();
    await profileAt(ws, 'prod', 'production');
    const card = await createCard(ws);
    const year = new Date().getUTCFullYear() + 2;
    const attempts: Array<{ args: string[]; input?: string }> = [
      { args: ['cards', 'deactivate', card.id, '--reason', 'stolen'] },
      { args: ['cards', 'pin', 'reset', card.id, '--pin-stdin'], input: '2961\n' },
      { args: ['cards', 'renew', card.id, '--expiration', `${year}03`] },
      { args: ['cards', 'customer', 'update', card.id, '--email', 'prod@example.com'] },
    ];
    const logBefore = mutatingLines(running().log()).length;
    const journalBefore = ws.journal().length;
    for (const { args, input } of attempts) {
      const bare = await ws.run(['-p', 'prod', ...args], { input });
      expect(bare.exitCode, args.join(' ')).toBe(2);
      const yesOnly = await ws.run(['-p', 'prod', ...args, '--yes'], { input });
      expect(yesOnly.exitCode, args.join(' ')).toBe(2);
      expect(yesOnly.stderr).toContain('--confirm-production');
    }
    expect(mutatingLines(running().log()).length).toBe(logBefore);
    expect(ws.journal().length).toBe(journalBefore);
    for (const { args, input } of attempts) {
      const both = await ws.run(['-p', 'prod', ...args, '--yes', '--confirm-production'], { input });
      expect(both.exitCode, `${args.join(' ')}: ${both.stderr}`).toBe(0);
    }
    // Each write: its intent, then its outcome.
    const lines = ws.journal().slice(journalBefore);
    expect(lines.map((l) => l.phase ?? 'outcome')).toEqual(['intent', 'outcome', 'intent', 'outcome', 'intent', 'outcome', 'intent', 'outcome']);
    expect(lines.every((l) => l.profile === 'prod')).toBe(true);
    expect(lines.every((l) => l.env === 'production')).toBe(true);

    // A sandbox profile: renew and customer update need no confirmation at all.
    await profileAt(ws, 'sbx', 'sandbox');
    expect((await ws.run(['-p', 'sbx', 'cards', 'renew', card.id, '--expiration', `${year}04`, '-q'])).exitCode).toBe(0);
  }, 90_000);

  it('a production import confirms with --yes --confirm-production only', async () => {
    const ws = workspace();
    await profileAt(ws, 'prod', 'production');
    const file = join(ws.data, 'one.ndjson');
    writeFileSync(file, `${JSON.stringify({
      realId: 'PROD-IMPORT-1', middleName: '', address2: '', institutionId: running().info.institutionId, active: true, firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com',
      phone: '+2348012345678', birthDate: '1990-01-31', address1: '1 Marina', city: 'Lagos', state: 'Lagos', zip: '100001', country: 'NG',
      startDate: '2024-01-01', endDate: '2028-12-31', returnSecure: false,
      card: { expiration: '202812', serviceCode: '101', cardProduct: 'classic', embossingName: 'ADA OBI', bin: '506099', cardState: 'active', defaultPIN: '4821' },
    })}\n`);
    const env = { CARDCTL_API_KEY: running().info.apiKey };
    expect((await ws.run(['-p', 'prod', 'import', '--from-file', file], { env })).exitCode).toBe(2);
    expect((await ws.run(['-p', 'prod', 'import', '--from-file', file, '--yes'], { env })).exitCode).toBe(2);
    const ok = await ws.run(['-p', 'prod', 'import', '--from-file', file, '--yes', '--confirm-production', '--reason', 'migration'], { env });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ws.journal()).toEqual([
      expect.objectContaining({ method: 'POST', path: '/util/cards/import', env: 'production', reason: 'migration', phase: 'intent' }),
      expect.objectContaining({ method: 'POST', path: '/util/cards/import', env: 'production', reason: 'migration', status: expect.any(Number) }),
    ]);
  }, 60_000);

  it('on a terminal the operator types the last four digits (prompt driven in-process)', async () => {
    const ws = workspace();
    await profileAt(ws, 'prod', 'production');
    const card = await createCard(ws);
    const env = { CARDCTL_CONFIG_DIR: ws.config, CARDCTL_DATA_DIR: ws.data, CARDCTL_PROFILE: 'prod' };
    const runTty = async (args: string[], answers: unknown[]) => {
      const io = testIO({ tty: true });
      const prompter = new ScriptedPrompter(answers);
      const code = await main(args, { io, env, prompter, signal: new AbortController().signal });
      return { code, io, prompter };
    };
    const wrong = await runTty(['cards', 'deactivate', card.id, '--reason', 'stolen'], ['0000']);
    expect(wrong.code).toBe(2);
    expect(wrong.prompter.asked[0]).toMatch(/PRODUCTION.*type the card's last four digits/);
    expect(wrong.io.stderrText()).toMatch(/PRODUCTION/);
    expect(wrong.io.stderrText()).toContain('did not match');
    const right = await runTty(['cards', 'deactivate', card.id, '--reason', 'stolen', '-o', 'json'], [card.lastFour]);
    expect(right.code, right.io.stderrText()).toBe(0);
    expect(JSON.parse(right.io.stdoutText()).status).toBe('suspended');

    const renew = await runTty(['cards', 'renew', card.id, '--expiration', `${new Date().getUTCFullYear() + 2}05`, '-q'], [card.lastFour]);
    expect(renew.code, renew.io.stderrText()).toBe(0);
    const reset = await runTty(['cards', 'pin', 'reset', card.id, '-q'], ['2961', '2961', 'nope']);
    expect(reset.code).toBe(2);
    expect(reset.prompter.asked.at(-1)).toMatch(/reset the PIN of card/);
    // The outcomes (each follows its intent): nothing sent for the refusals.
    const lines = ws.journal().filter((l) => l.phase === undefined);
    expect(lines.map((l) => l.path.replace(card.id, 'ID'))).toEqual(['/institutions/cards', '/institutions/cards/ID/deactivate', '/institutions/cards/ID/renew']);
    expect(ws.journal()).toHaveLength(6);
    expect(lines[1]).toMatchObject({ env: 'production', reason: 'stolen', profile: 'prod' });

    // An import: the operator types the number of valid rows, counted before anything is sent.
    const file = join(ws.data, 'two.ndjson');
    const row = (realId: string, bin = '506099') => JSON.stringify({
      realId, middleName: '', address2: '', institutionId: running().info.institutionId, active: true, firstName: 'Ada', lastName: 'Obi',
      email: 'ada@example.com', phone: '+2348012345678', birthDate: '1990-01-31', address1: '1 Marina', city: 'Lagos', state: 'Lagos', zip: '100001',
      country: 'NG', startDate: '2024-01-01', endDate: '2028-12-31', returnSecure: false,
      card: { expiration: '202812', serviceCode: '101', cardProduct: 'classic', embossingName: 'ADA OBI', bin, cardState: 'active', defaultPIN: '4821' },
    });
    writeFileSync(file, [row('TTY-IMPORT-1'), row('TTY-IMPORT-2'), row('TTY-IMPORT-3', 'x')].join('\n'));
    const importTty = (answers: unknown[]) => {
      const io = testIO({ tty: true });
      const prompter = new ScriptedPrompter(answers);
      return main(['import', '--from-file', file], { io, env: { ...env, CARDCTL_API_KEY: running().info.apiKey }, prompter, signal: new AbortController().signal })
        .then((code) => ({ code, io, prompter }));
    };
    const miscounted = await importTty(['3']);
    expect(miscounted.code).toBe(2);
    expect(miscounted.prompter.asked[0]).toMatch(/import 2 cards from .*type the number of cards to import/);
    expect(ws.journal()).toHaveLength(6);
    const counted = await importTty(['2']);
    expect(counted.code, counted.io.stderrText()).toBe(8);
    // Two rows sent: each one's intent and outcome (rows in flight together may interleave).
    expect(ws.journal().slice(6).filter((l) => l.phase === undefined).map((l) => l.path)).toEqual(['/util/cards/import', '/util/cards/import']);
    expect(ws.journal().slice(6).filter((l) => l.phase === 'intent')).toHaveLength(2);
  }, 60_000);

  it('requireExplicitProfile refuses a bare command and accepts --profile or CARDCTL_PROFILE', async () => {
    const ws = workspace();
    await profileAt(ws, 'ci', 'sandbox', [['requireExplicitProfile', 'true']]);
    expect((await ws.run(['profile', 'use', 'ci'])).exitCode).toBe(0);
    const bare = await ws.run(['cards', 'list', '-q']);
    expect(bare.exitCode).toBe(2);
    expect(bare.stderr).toContain('must be named explicitly');
    expect((await ws.run(['cards', 'list', '-q', '--profile', 'ci'])).exitCode).toBe(0);
    expect((await ws.run(['cards', 'list', '-q'], { env: { CARDCTL_PROFILE: 'ci' } })).exitCode).toBe(0);
  }, 60_000);

  it('requireReason makes a production deactivation name its reason', async () => {
    const ws = workspace();
    await profileAt(ws, 'prod', 'production', [['requireReason', 'true']]);
    const card = await createCard(ws);
    const noReason = await ws.run(['-p', 'prod', 'cards', 'deactivate', card.id, '--yes', '--confirm-production']);
    expect(noReason.exitCode).toBe(2);
    expect(noReason.stderr).toContain('needs --reason');
  }, 60_000);
});
