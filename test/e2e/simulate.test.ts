// End to end: the built binary against `cardctl sandbox serve`, with `cardctl webhook listen`
// playing the institution. The webhook's rule decides the code, which is stored on the
// transaction and shown by `tx list`; the example scenarios all pass via `simulate run`.
import { execa } from 'execa';
import { readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, isolatedDirs, startSandboxProcess, startWebhookListener, tempDir, type RunningSandbox, type WebhookListener } from '../helpers/cli.js';
import { createCardOverHttp } from '../sandbox/helpers.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/scenarios/', import.meta.url));


function startListener(args: string[], configDir: string): Promise<WebhookListener> {
  return startWebhookListener({ configDir, args });
}

let config: { path: string; remove(): void };
let listener: WebhookListener;
let sandbox: RunningSandbox;
let env: Record<string, string>;

const newCard = () => createCardOverHttp(sandbox.info);

const run = (args: string[], timeout = 60_000) => cardctl(args, { configDir: config.path, env, timeout });

beforeAll(async () => {
  config = tempDir();
  listener = await startListener(['--rules', `${EXAMPLES}webhook-rules.yaml`], config.path);
  sandbox = await startSandboxProcess(['--webhook-url', listener.url], { configDir: config.path });
  env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  await listener?.stop();
  config?.remove();
});

describe('simulate --forward through webhook listen', () => {
  it("stores the rule's code on the transaction, and tx list shows it", async () => {
    const card = await newCard();
    const approved = await run(['simulate', 'authorization', '--card', card, '--amount', '500', '--forward', '-o', 'json']);
    expect(approved.exitCode, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ responseCode: '00', transactionStatus: 'pending' });

    const declined = await run(['simulate', 'authorization', '--card', card, '--amount', '1,500.00', '--forward', '-o', 'json']);
    expect(declined.exitCode, declined.stderr).toBe(0); // the simulation ran
    const result = JSON.parse(declined.stdout);
    expect(result).toMatchObject({ responseCode: '51', responseMessage: 'Insufficient funds', transactionStatus: 'failed' });

    const strict = await run(['simulate', 'authorization', '--card', card, '--amount', '2000', '--forward', '--expect-approved']);
    expect(strict.exitCode).toBe(5);

    const list = await run(['tx', 'list', '--status', 'failed', '-o', 'json']);
    expect(list.exitCode, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout) as Array<{ id: string; responseCode: string; response: Record<string, string> }>;
    const stored = rows.find((tx) => tx.id === result.transactionId)!;
    expect(stored.responseCode).toBe('51');
    expect(stored.response['39']).toBe('51');

    const table = await run(['tx', 'list']);
    const line = table.stdout.split('\n').find((l) => l.startsWith(result.transactionId))!;
    expect(line.split('\t')).toEqual([
      result.transactionId, expect.any(String), '0100', expect.stringMatching(/^\d{6}\*+\d{4}$/), '1500.00', '51', 'failed',
      result.stan, result.rrn, 'SBXMERCHANT0001', 'SBXPOS01',
    ]);

    const show = await run(['tx', 'show', result.transactionId]);
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain('39\tResponse code\t51\tInsufficient funds');
    expect(show.stdout).toMatch(/service → institution\toutbound/);

    // The listener saw both, decoded and redacted.
    const exchanges = listener.lines.slice(1).map((l) => JSON.parse(l)).filter((x) => x.type === 'exchange');
    const seen = exchanges.find((x) => x.stan === result.stan);
    expect(seen).toMatchObject({ responseCode: '51', decidedBy: 'rule 1 (insufficient funds above 1,000)', amount: '₦1,500.00', signature: 'unchecked' });
    expect(seen.pan).toMatch(/^\d{6}\*+\d{4}$/);
  });

  it('tx show -o json is the record; an unknown id is exit 4', async () => {
    const card = await newCard();
    const sim = JSON.parse((await run(['simulate', 'financial', '--card', card, '--amount', '10', '-o', 'json'])).stdout);
    const shown = await run(['tx', 'show', sim.transactionId, '-o', 'json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: sim.transactionId, mti: '0200', transactionStatus: 'completed' });
    const missing = await run(['tx', 'show', 'ffffffffffffffffffffffff']);
    expect(missing.exitCode).toBe(4);
  });
});

describe('example scenarios', () => {
  const files = readdirSync(EXAMPLES).filter((f) => /\.ya?ml$/.test(f) && f !== 'webhook-rules.yaml').sort();

  it('ships the four examples', () => {
    expect(files).toEqual(['auth-then-financial.yaml', 'auth-then-reversal.yaml', 'declined-by-webhook.yaml', 'limit-exhaustion.yaml']);
  });

  it.each(files)('%s passes', async (file) => {
    const card = await newCard();
    const result = await run(['simulate', 'run', `${EXAMPLES}${file}`, '--set', `card=${card}`, '-o', 'json']);
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.failed).toBe(0);
    expect(summary.passed).toBeGreaterThan(1);
  }, 30_000);

  it('a failed expectation exits 5, a bad file exits 2 naming the line', async () => {
    const card = await newCard();
    const dir = tempDir();
    try {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(`${dir.path}/fail.yaml`, `steps:\n  - intent: authorization\n    card: "{{vars.card}}"\n    amount: 1\n    expect: { responseCode: "51" }\n`);
      const failed = await run(['simulate', 'run', `${dir.path}/fail.yaml`, '--set', `card=${card}`]);
      expect(failed.exitCode).toBe(5);
      expect(failed.stdout).toMatch(/^fail\tstep1\t/m);
      expect(failed.stdout).toContain('expected responseCode "51", got "00"');
      writeFileSync(`${dir.path}/bad.yaml`, `steps:\n  - intent: authorization\n    card: c\n    amount: 1\n    amout: 2\n`);
      const bad = await run(['simulate', 'run', `${dir.path}/bad.yaml`]);
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/line 5.*unknown key "amout"/);
    } finally {
      dir.remove();
    }
  });
});

describe('webhook listen', () => {
  it('verifies signatures with --secret-stdin, and Ctrl-C exits 0', async () => {
    const child = execa('node', [BIN, 'webhook', 'listen', '--port', '0', '--json', '--secret-stdin'], {
      env: cleanEnv({ ...isolatedDirs(config.path) }), extendEnv: false, reject: false, input: 'whsec_e2e\n',
    });
    const reader = createInterface({ input: child.stdout! });
    const lines: string[] = [];
    const url = await new Promise<string>((resolve) => reader.on('line', (line) => { lines.push(line); if (lines.length === 1) resolve(JSON.parse(line).url); }));
    const { signatureHeader } = await import('../../src/webhook-protocol/signature.js');
    const { request } = await import('undici');
    const body = JSON.stringify({ '0': '0200', '4': '000000001000', '11': '000009', '49': '566' });
    const good = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signatureHeader('whsec_e2e', body) } });
    expect(good.statusCode).toBe(200);
    expect(await good.body.json()).toMatchObject({ '0': '0210', '39': '00' });
    const bad = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signatureHeader('nope', body) } });
    expect(bad.statusCode).toBe(401);
    await bad.body.text();
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill('SIGINT');
    const done = await child;
    expect(done.exitCode).toBe(0);
    const exchanges = lines.slice(1).map((l) => JSON.parse(l));
    expect(exchanges.map((x) => x.signature)).toEqual(['valid', 'invalid']);
    expect(done.stderr).toMatch(/stopped/);
  });
});
