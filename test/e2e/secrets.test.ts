// Secret hygiene end to end: file modes (and their repair), no token, API key, PIN, PIN block
// or full PAN anywhere in the output of --debug runs and error messages, no PIN in argv, no
// plain HTTP to a remote host, TLS verification on. The sandbox runs in this process so the
// test can read the full PANs it issued. Run `npm run build` first.
import { execa } from 'execa';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { BIN, cardctl, cleanEnv, tempDir, isolatedDirs } from '../helpers/cli.js';

let sandbox: RunningSandbox;
const dir = tempDir('cardctl-e2e-secrets-');
/** Everything any command printed, with the command, for the final scan. */
const outputs: Array<{ args: string[]; stdout: string; stderr: string }> = [];
/** 10- and 12-digit PINs: long enough that finding one by accident in ids or times is impossible. */
const PIN = { create: '7391846250', reset: '5820937164', changed: '681357924603', wrong: '9051738246', imported: '4739201865' };
const WRONG_TOKEN = 'sbx_tok_Wr0ngWr0ngWr0ngWr0ngWr0ngWr0ngWr0ngWr0ng';
const SIM_PAN = '4111111111111111';

const JOURNAL = join(dir.path, 'journal');
const env = () => ({ CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token, CARDCTL_API_KEY: sandbox.apiKey, CARDCTL_JOURNAL_DIR: JOURNAL, CARDCTL_DATA_DIR: join(dir.path, 'data') });

async function run(args: string[], options: { input?: string; env?: Record<string, string>; configDir?: string } = {}) {
  const result = await cardctl(args, { configDir: options.configDir ?? dir.path, input: options.input, env: { ...env(), ...options.env } });
  outputs.push({ args, stdout: String(result.stdout), stderr: String(result.stderr) });
  return result;
}

const mode = (path: string) => statSync(path).mode & 0o777;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, memory: true });
}, 30_000);

afterAll(async () => {
  await sandbox?.close();
  dir.remove();
});

describe('files with secrets', () => {
  it('the config file is 0600 in a 0700 directory, and looser modes are tightened', async () => {
    const config = tempDir('cardctl-e2e-modes-');
    try {
      const login = await run(['login', '--base-url', sandbox.baseUrl, '--token-stdin'], { input: sandbox.token, configDir: config.path, env: {} });
      expect(login.exitCode, login.stderr).toBe(0);
      const file = join(config.path, 'config.json');
      expect(mode(file)).toBe(0o600);
      expect(mode(config.path)).toBe(0o700);
      chmodSync(file, 0o644);
      chmodSync(config.path, 0o755);
      const status = await run(['auth', 'status'], { configDir: config.path, env: {} });
      expect(status.exitCode, status.stderr).toBe(0);
      expect(mode(file)).toBe(0o600);
      expect(mode(config.path)).toBe(0o700);
      chmodSync(file, 0o666);
      expect((await run(['profile', 'set', 'output', 'json'], { configDir: config.path, env: {} })).exitCode).toBe(0);
      expect(mode(file)).toBe(0o600);
    } finally {
      config.remove();
    }
  });

  it('oauth keygen writes the private key 0600, and --force over a looser file tightens it', async () => {
    const out = join(dir.path, 'keys');
    expect((await run(['oauth', 'keygen', '--out', out])).exitCode).toBe(0);
    expect(mode(join(out, 'private-key.pem'))).toBe(0o600);
    chmodSync(join(out, 'private-key.pem'), 0o644);
    expect((await run(['oauth', 'keygen', '--out', out, '--force'])).exitCode).toBe(0);
    expect(mode(join(out, 'private-key.pem'))).toBe(0o600);
  });
});

describe('--debug and error output carry no secrets', () => {
  it('a session of commands with --debug, then a scan of every line they printed', async () => {
    const created = await run(['cards', 'create', '--program', sandbox.cardProgramId, '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com',
      '--phone', '+2348012345678', '--account-number', '0123456789', '--account-type', 'savings', '--pin-stdin', '-o', 'json', '--debug'], { input: `${PIN.create}\n` });
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stderr).toContain('> POST'); // --debug did print the request
    const card = JSON.parse(created.stdout) as { id: string };
    const steps: Array<{ args: string[]; input?: string; exit: number; env?: Record<string, string> }> = [
      { args: ['cards', 'list', '--all', '--debug'], exit: 0 },
      { args: ['cards', 'get', card.id, '--debug', '-o', 'json'], exit: 0 },
      { args: ['cards', 'pin', 'reset', card.id, '--pin-stdin', '--yes', '--debug'], input: `${PIN.reset}\n`, exit: 0 },
      { args: ['cards', 'pin', 'change', card.id, '--pin-stdin', '--debug'], input: `${PIN.wrong}\n${PIN.changed}\n`, exit: 5 },
      { args: ['cards', 'pin', 'change', card.id, '--pin-stdin', '--debug', '-o', 'json'], input: `${PIN.reset}\n${PIN.changed}\n`, exit: 0 },
      { args: ['simulate', 'authorization', '--card', card.id, '--amount', '10.00', '--debug', '-o', 'json'], exit: 0 },
      { args: ['simulate', 'authorization', '--pan', SIM_PAN, '--expiry', '2812', '--account', '0123456789', '--amount', '1.00', '--debug'], exit: -1 },
      { args: ['tx', 'list', '--debug', '-o', 'json'], exit: 0 },
      { args: ['auth', 'status', '--debug'], exit: 0 },
      { args: ['api', 'GET', '/institutions/cards', '--debug'], exit: 0 },
      { args: ['cards', 'list', '--debug', '-o', 'json'], env: { CARDCTL_TOKEN: WRONG_TOKEN }, exit: 3 },
      { args: ['api', 'POST', '/util/cards/import', '--api-key', '--data', '{}', '--debug'], env: { CARDCTL_API_KEY: `${WRONG_TOKEN}k` }, exit: 3 },
      { args: ['cards', 'pin', 'reset', card.id, '--pin-stdin', '--yes', '--debug'], input: '12\n', exit: 2 },
    ];
    for (const step of steps) {
      const result = await run(step.args, { input: step.input, env: step.env });
      if (step.exit >= 0) expect(result.exitCode, `${step.args.join(' ')}: ${result.stderr}`).toBe(step.exit);
      else expect(result.exitCode, result.stderr).toBeLessThan(8);
    }
    // An import whose rows carry a clear default PIN.
    const header = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,institutionId,'
      + 'card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';
    const row = ['sec-1', 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', 'ada@example.com', '1 Marina', '', 'Lagos', 'Lagos', '100001', 'NG', '1990-01-31',
      '+2348012345678', sandbox.institutionId, '202812', '101', 'classic', 'ADA OBI', PIN.imported, '506099', 'active', 'false'].join(',');
    const file = join(dir.path, 'import.csv');
    writeFileSync(file, `${header}\n${row}\n${row.replace('sec-1', 'sec-2').replace(PIN.imported, `${PIN.imported}x`)}\n`);
    const imported = await run(['import', '--from-file', file, '--debug', '--report', join(dir.path, 'report.ndjson')]);
    expect(imported.exitCode, imported.stderr).toBe(8); // one invalid row
    outputs.push({ args: ['report'], stdout: readFileSync(join(dir.path, 'report.ndjson'), 'utf8'), stderr: '' });
    // The audit journal of those commands: scanned like the output, and private.
    const journal = existsSync(JOURNAL) ? readdirSync(JOURNAL).map((name) => join(JOURNAL, name)) : [];
    expect(journal.length).toBeGreaterThan(0);
    for (const file of journal) {
      expect(mode(file), file).toBe(0o600);
      outputs.push({ args: ['journal', file], stdout: readFileSync(file, 'utf8'), stderr: '' });
    }

    const pans = (sandbox.deps.store.db.prepare('SELECT pan FROM cards').all() as Array<{ pan: string }>).map((r) => r.pan);
    expect(pans.length).toBeGreaterThanOrEqual(2);
    const secrets = [sandbox.token, sandbox.apiKey, WRONG_TOKEN, ...Object.values(PIN), ...pans, SIM_PAN];
    for (const { args, stdout, stderr } of outputs) {
      const text = `${stdout}\n${stderr}`;
      for (const secret of secrets) expect(text.includes(secret), `${secret.slice(0, 6)}… in the output of ${args.join(' ')}`).toBe(false);
      // An RSA-2048 PIN block is 512 hex digits; nothing that long may appear.
      expect(text, args.join(' ')).not.toMatch(/[0-9a-fA-F]{256}/);
      // No stack trace, except where --debug asks for one (docs/command-contract.md).
      if (!args.includes('--debug')) expect(text, args.join(' ')).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    }
    // The scan is not vacuous: the debug output did carry the bodies (redacted).
    expect(outputs.some((o) => o.stderr.includes('[REDACTED]'))).toBe(true);
  }, 120_000);

  it('no PIN in the command line of a running cardctl (/proc/<pid>/cmdline)', async () => {
    if (process.platform !== 'linux') return;
    const child = execa('node', [BIN, 'cards', 'create', '--program', sandbox.cardProgramId, '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'a@example.com',
      '--phone', '+2348012345678', '--account-number', '1', '--account-type', 'savings', '--pin-stdin', '-q'], {
      env: cleanEnv({ ...isolatedDirs(dir.path), ...env() }), extendEnv: false, reject: false, stdin: 'pipe',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8');
    const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8');
    child.stdin!.end(`${PIN.create}\n`);
    const result = await child;
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(cmdline).toContain('--pin-stdin');
    expect(cmdline).not.toContain(PIN.create);
    expect(environ).not.toContain(PIN.create);
  });
});

describe('the audit journal carries no secrets', () => {
  const journalText = () => readdirSync(JOURNAL).map((name) => readFileSync(join(JOURNAL, name), 'utf8')).join('');

  it('a password in the user info of --base-url, in the command line and the base URL of the entry', async () => {
    const withPassword = sandbox.baseUrl.replace('http://', 'http://ops:secretpw@');
    const programs = await run(['--base-url', withPassword, 'api', 'PUT', `/sandbox/card-programs/${sandbox.cardProgramId}`, '--data', '{"renewable":true}', '-q']);
    expect(programs.exitCode, programs.stderr).toBe(0);
    const refused = await run(['--base-url', withPassword.replace(/:\d+$/, ':1'), 'cards', 'deactivate', 'c1', '--yes']);
    expect(refused.exitCode).toBe(6);
    const text = journalText();
    expect(text).toContain('renewable');
    expect(text).not.toContain('secretpw');
    expect(`${refused.stdout}${refused.stderr}`).not.toContain('secretpw');
    // Nor what auth status, doctor or --debug show of the base URL.
    for (const args of [['auth', 'status'], ['doctor'], ['cards', 'list', '--debug']]) {
      const shown = await run(['--base-url', withPassword, ...args]);
      expect(`${shown.stdout}${shown.stderr}`).toContain('127.0.0.1');
      expect(`${shown.stdout}${shown.stderr}`, args.join(' ')).not.toContain('secretpw');
    }
  });

  it("a webhook secret sent with `api PUT --data` (the README's certify recipe), at any depth", async () => {
    const put = await run(['api', 'PUT', `/sandbox/card-programs/${sandbox.cardProgramId}`, '--data', '{"webHookConfig":{"secret":"whsec_certify_e2e"}}', '-q']);
    expect(put.exitCode, put.stderr).toBe(0);
    const header = await run(['api', 'PUT', `/sandbox/card-programs/${sandbox.cardProgramId}`, '--data={"webHookConfig":{"secret":"whsec_inline_e2e"}}', '-H', 'X-Webhook-Secret: whsec_header_e2e', '-q']);
    expect(header.exitCode, header.stderr).toBe(0);
    const text = journalText();
    expect(text).toContain('webHookConfig');
    for (const secret of ['whsec_certify_e2e', 'whsec_inline_e2e', 'whsec_header_e2e']) expect(text).not.toContain(secret);
  });
});

describe('transport', () => {
  it('plain http:// to a non-loopback host is refused before anything is sent (exit 2)', async () => {
    for (const baseUrl of ['http://api.example.com', 'http://10.1.2.3:8080', 'http://[2001:db8::1]']) {
      const result = await run(['cards', 'list'], { env: { CARDCTL_BASE_URL: baseUrl } });
      expect(result.exitCode, baseUrl).toBe(2);
      expect(result.stderr).toMatch(/refusing plain http/);
    }
    const login = await run(['login', '--base-url', 'http://api.example.com', '--token-stdin'], { input: 'tok', env: {} });
    expect(login.exitCode).toBe(2);
  });

  it('TLS is verified: a self-signed server fails with exit 6 (and gets no token) unless its CA is given', async () => {
    const { default: forge } = await import('node-forge');
    const certificate = (cn: string) => {
      const keys = forge.pki.rsa.generateKeyPair(2048);
      const cert = forge.pki.createCertificate();
      cert.publicKey = keys.publicKey;
      cert.serialNumber = '0' + Math.floor(Math.random() * 1e6).toString(16);
      cert.validity.notBefore = new Date(Date.now() - 60_000);
      cert.validity.notAfter = new Date(Date.now() + 86_400_000);
      cert.setSubject([{ name: 'commonName', value: cn }]);
      cert.setIssuer([{ name: 'commonName', value: cn }]);
      cert.setExtensions([{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }]);
      cert.sign(keys.privateKey, forge.md.sha256.create());
      return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
    };
    const server = certificate('cardctl-test-server');
    const other = certificate('some-other-ca');
    writeFileSync(join(dir.path, 'server-ca.pem'), server.cert);
    writeFileSync(join(dir.path, 'other-ca.pem'), other.cert);
    const seen: Array<string | undefined> = [];
    const tls = createServer({ key: server.key, cert: server.cert }, (req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: 200, message: 'ok', data: [] }));
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const baseUrl = `https://127.0.0.1:${(tls.address() as { port: number }).port}`;
    try {
      const untrusted = await run(['cards', 'list', '--no-retry'], { env: { CARDCTL_BASE_URL: baseUrl } });
      expect(untrusted.exitCode).toBe(6);
      expect(untrusted.stderr).toMatch(/TLS/);
      const wrongCa = await run(['cards', 'list', '--no-retry'], { env: { CARDCTL_BASE_URL: baseUrl, NODE_EXTRA_CA_CERTS: join(dir.path, 'other-ca.pem') } });
      expect(wrongCa.exitCode).toBe(6);
      expect(seen).toEqual([]); // the token never left over an unverified connection
      const trusted = await run(['cards', 'list', '-o', 'json'], { env: { CARDCTL_BASE_URL: baseUrl, NODE_EXTRA_CA_CERTS: join(dir.path, 'server-ca.pem') } });
      expect(trusted.exitCode, trusted.stderr).toBe(0);
      expect(seen).toEqual([`Bearer ${sandbox.token}`]);
    } finally {
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
    }
  }, 60_000);
});
