// `cardctl doctor --deployment` end to end: a sandbox speaking a non-default dialect
// (`sandbox serve --dialect FILE`) against a profile that matches it, and one with several wrong
// settings; the default sandbox against a default profile; and, from the sandbox's request log,
// that the probes made no write. Run `npm run build` first.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createCardOverHttp } from '../sandbox/helpers.js';
import { makeCertificate } from '../sandbox/oauth-helpers.js';
import { cardctl, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';

const DIALECT = `# every list parameter renamed, metadata elsewhere, a smaller page size limit, errors elsewhere
params:
  cards: { search: q, cardId: card_id, page: pageNumber, limit: pageSize }
  transactions: { merchantId: merchant, terminalId: terminal, cardStatus: card_status, transactionStatus: status, page: p, limit: size }
  oauth: { search: filter, page: pg, limit: per_page }
paging: { style: metadata, pages: meta.totalPages, total: meta.count }
maxPageSize: 50
errors: { message: error.detail, code: error.kind, fields: error.fields }
`;

const dirs: Array<{ path: string; remove(): void }> = [];
let dialected: RunningSandbox;
let plain: RunningSandbox;
let dialectFile: string;

/** Three cards, four transactions (two merchants, two statuses) and two OAuth applications. */
async function seed(sandbox: RunningSandbox): Promise<void> {
  const info = sandbox.info;
  const cards: string[] = [];
  for (let n = 1; n <= 3; n++) cards.push(await createCardOverHttp(info));
  for (const [n, intent] of [[1, 'authorization'], [2, 'financial'], [3, 'authorization'], [4, 'financial']] as const) {
    const simulated = await call(info, 'POST', '/institutions/switch/simulate', {
      token: info.token,
      body: { intent, processingFlow: 'purchase', amount: 100 * n, cardId: cards[n % 3], merchantId: `MERCHANT${n % 2}`, terminalId: `TERM000${n}` },
      skipOpenApiCheck: true,
    });
    expect(simulated.status, simulated.text).toBeLessThan(300);
  }
  const { certificatePem } = certificate;
  for (const name of ['Ledger sync', 'Reconciler']) {
    const created = await call(info, 'POST', '/institutions/oauth/create', {
      token: info.token,
      body: { name, publicKey: certificatePem, scopes: ['read:card'], grantType: 'client_credentials' },
      skipOpenApiCheck: true,
    });
    expect(created.status, created.text).toBeLessThan(300);
  }
}

let certificate: ReturnType<typeof makeCertificate>;

beforeAll(async () => {
  const dir = tempDir('cardctl-e2e-doctor-deployment-');
  dirs.push(dir);
  dialectFile = join(dir.path, 'dialect.yaml');
  writeFileSync(dialectFile, DIALECT);
  certificate = makeCertificate();
  [dialected, plain] = await Promise.all([startSandboxProcess(['--dialect', dialectFile]), startSandboxProcess()]);
  await Promise.all([seed(dialected), seed(plain)]);
}, 60_000);

afterAll(async () => {
  await Promise.all([dialected?.stop(), plain?.stop()]);
  dirs.splice(0).forEach((d) => d.remove());
});

/** A config directory with profile `name` logged in to `sandbox`, and `setup` cardctl lines run in it. */
async function workspace(sandbox: RunningSandbox, setup: string[][] = []) {
  const config = tempDir('cardctl-e2e-doctor-deployment-cfg-');
  dirs.push(config);
  const run = (args: string[]) => cardctl(args, { configDir: config.path });
  const login = await cardctl(['login', '--base-url', sandbox.info.baseUrl, '--token-stdin', '--env', 'sandbox'], { configDir: config.path, input: sandbox.info.token });
  expect(login.exitCode, login.stderr).toBe(0);
  for (const args of setup) {
    const result = await run(args);
    expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  }
  return { run };
}

interface Report {
  ok: boolean;
  checks: Array<{ name: string; ok: boolean; skipped?: boolean; detail: string; fix?: string; setting?: string; suggestion?: string | number }>;
}

/** Lines of the sandbox's request log that change something: writes, and the GETs that activate or deactivate a card that exists (not a 404). */
const writesIn = (log: string) => log.split('\n').filter((line) => /^(POST|PUT|PATCH|DELETE) /.test(line) || /\/(activate|deactivate) (?!404\b)/.test(line));

describe('doctor --deployment', () => {
  it('passes against a sandbox speaking another dialect, with a profile set to match; and writes nothing', async () => {
    const ws = await workspace(dialected, [['profile', 'set-dialect', dialectFile]]);
    const before = dialected.log().length;
    const result = await ws.run(['doctor', '--deployment']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    for (const name of ['cards page size', 'cards page', 'cards paging', 'cards max page size', 'cards search', 'cards cardId',
      'transactions page size', 'transactions merchantId', 'transactions terminalId', 'transactions transactionStatus',
      'oauth page', 'oauth search', 'error message', 'error code', 'error fields']) {
      expect(result.stdout).toMatch(new RegExp(`^✓ ${name}: `, 'm'));
    }
    expect(result.stdout).not.toMatch(/^[✗-] /m);
    expect(result.stdout).toMatch(/^✓ dialect: 19 settings changed: params\.cards\.search, params\.cards\.cardId, /m);
    const probes = dialected.log().slice(before);
    expect(probes).toMatch(/^GET \/institutions\/cards 200/m);
    expect(writesIn(probes)).toEqual([]);
  }, 60_000);

  it('names each wrong setting of a mismatched profile, with the value that works, exit 5 (a failed check); and writes nothing', async () => {
    const ws = await workspace(dialected, [
      ['profile', 'set-dialect', dialectFile],
      // Four settings back at the sandbox's defaults: wrong for this deployment.
      ['profile', 'set', 'params.cards.limit', 'limit'],
      ['profile', 'set', 'params.transactions.page', 'page'],
      ['profile', 'set', 'params.oauth.search', 'search'],
      ['profile', 'set', 'errors.message', 'message'],
    ]);
    const before = dialected.log().length;
    const result = await ws.run(['doctor', '--deployment', '-o', 'json']);
    expect(result.exitCode, result.stderr).toBe(5);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.ok).toBe(false);
    const failed = report.checks.filter((c) => !c.ok && !c.skipped);
    expect(Object.fromEntries(failed.map((c) => [c.setting, c.suggestion]))).toEqual({
      'params.cards.limit': 'pageSize',
      'params.transactions.page': 'p',
      'params.oauth.search': 'filter',
      'errors.message': 'error.detail',
    });
    for (const check of failed) expect(check.fix).toBe(`cardctl profile set ${check.setting} ${check.suggestion} (that works)`);
    expect(writesIn(dialected.log().slice(before))).toEqual([]);

    // The table says the same, a ✗ and a fix line for each.
    const table = await ws.run(['doctor', '--deployment']);
    expect(table.exitCode).toBe(5);
    expect(table.stdout).toMatch(/^✗ cards page size: "limit" is not understood/m);
    expect(table.stdout).toContain('fix: cardctl profile set params.cards.limit pageSize (that works)');
    expect(table.stdout).toContain('fix: cardctl profile set errors.message error.detail (that works)');
  }, 60_000);

  it('passes against the default sandbox with a default profile', async () => {
    const ws = await workspace(plain);
    const before = plain.log().length;
    const result = await ws.run(['doctor', '--deployment', '-o', 'json']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['cards paging', 'transactions max page size', 'oauth search', 'error fields']));
    expect(report.checks.find((c) => c.name === 'dialect')).toMatchObject({ ok: true, detail: 'the default (the sandbox\'s)' });
    // The error shape is the sandbox's 404 for a missing card on a real endpoint, not its "no such endpoint".
    expect(report.checks.find((c) => c.name === 'error message')?.detail).toContain('"card 000000000000000000000000 not found"');
    expect(plain.log().slice(before)).toMatch(/^GET \/institutions\/cards\/000000000000000000000000\/activate 404/m);
    expect(writesIn(plain.log().slice(before))).toEqual([]);
  }, 60_000);

  it('plain doctor does not probe the deployment', async () => {
    const ws = await workspace(plain);
    const before = plain.log().length;
    const result = await ws.run(['doctor', '-o', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as Report).checks.map((c) => c.name)).not.toContain('cards paging');
    expect(plain.log().slice(before)).not.toContain('/institutions/transactions');
  }, 60_000);
});
