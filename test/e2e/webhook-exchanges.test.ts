// End to end: the exchange log through the built binary, with `cardctl webhook listen` (checking
// signatures) as the institution: `webhook exchanges` (table, json, --failed), `tx show
// --exchanges`, `webhook replay` (what the listener received), and a scenario exported with
// --as-scenario from a run that replays green through `simulate run`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskPansInText } from '../../src/core/redact.js';
import { cardctl, startSandboxProcess, startWebhookListener, tempDir, type RunningSandbox, type WebhookListener } from '../helpers/cli.js';
import { cliSession, startSigningSandbox } from '../helpers/signing-sandbox.js';
import { call, createCardOverHttp, type DataEnvelope } from '../sandbox/helpers.js';
import type { SandboxUserCredentials, SimulateResult, WebhookExchange, Lifecycle } from '../../src/api/schemas.js';

const WEBHOOK_SECRET = 'whsec_exchanges_e2e_secret';

let config: { path: string; remove(): void };
let listener: WebhookListener;
let sandbox: RunningSandbox;
let env: Record<string, string>;

const { run, json } = cliSession(() => ({ configDir: config.path, env }));
const newCard = () => createCardOverHttp(sandbox.info);

/** What the listener received (its --json lines of type exchange). */
const received = () => listener.lines.slice(1).map((line) => JSON.parse(line)).filter((x) => x.type === 'exchange');

beforeAll(async () => {
  config = tempDir();
  listener = await startWebhookListener({ configDir: config.path, secret: WEBHOOK_SECRET });
  ({ sandbox, env } = await startSigningSandbox(listener.url, WEBHOOK_SECRET, config.path));
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  await listener?.stop();
  config?.remove();
});

describe('webhook exchanges', () => {
  it('lists each call (table, json, --failed); tx show --exchanges adds them; no secret or full card number anywhere', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '25', '--forward']);
    const listed = await json<WebhookExchange[]>(['webhook', 'exchanges', '--tx', auth.transactionId]);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ transactionId: auth.transactionId, kind: 'authorization', mti: '0100', attempt: 1, verdict: 'accepted', responseCode: '00', response: { status: 200 } });

    const table = await run(['webhook', 'exchanges', '--tx', auth.transactionId]);
    expect(table.exitCode, table.stderr).toBe(0);
    const row = table.stdout.split('\n').find((line) => line.startsWith(listed[0].id))!;
    expect(row.split('\t')).toEqual([listed[0].id, listed[0].at, 'authorization', 'accepted', '00', expect.stringMatching(/^\d+$/), '']);
    const wide = await run(['webhook', 'exchanges', '--tx', auth.transactionId, '--wide']);
    expect(wide.stdout.split('\n').find((line) => line.startsWith(listed[0].id))!.split('\t').slice(7, 10)).toEqual(['0100', '1', '200']);

    // A reply the network cannot take (garbage injected on the webhook path): listed under --failed.
    await call(sandbox.info, 'PUT', '/sandbox/webhook-faults', { token: sandbox.info.token, body: { garbage: 1 } });
    const failedId = (await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '26', '--forward'])).transactionId;
    await call(sandbox.info, 'PUT', '/sandbox/webhook-faults', { token: sandbox.info.token, body: {} });
    const failed = await json<WebhookExchange[]>(['webhook', 'exchanges', '--failed']);
    expect(failed.map((x) => x.transactionId)).toContain(failedId);
    expect(failed.every((x) => x.verdict !== 'accepted')).toBe(true);
    const fields = await run(['webhook', 'exchanges', '--tx', auth.transactionId, '--fields', 'id,verdict', '-o', 'csv']);
    expect(fields.stdout.trim().split('\n')).toEqual(['id,verdict', `${listed[0].id},accepted`]);

    const shown = await json(['tx', 'show', auth.transactionId, '--exchanges']);
    expect(shown).toMatchObject({ id: auth.transactionId, exchanges: [{ id: listed[0].id }] });
    const view = await run(['tx', 'show', auth.transactionId, '--exchanges']);
    expect(view.exitCode, view.stderr).toBe(0);
    expect(view.stdout).toContain('# webhook exchanges');
    expect(view.stdout).toContain(listed[0].id);
    expect(view.stdout).toMatch(/x-webhook-signature: t=\d+,v1=\[REDACTED\]/);
    expect(view.stdout).toContain('HTTP 200');

    const everything = JSON.stringify(await json<WebhookExchange[]>(['webhook', 'exchanges', '--all'])) + view.stdout + table.stdout;
    expect(everything).not.toContain(WEBHOOK_SECRET);
    expect(maskPansInText(everything)).toBe(everything);
  });

  it('webhook replay: the listener receives the message again, its signature valid; recorded and linked', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '31', '--forward']);
    const [first] = await json<WebhookExchange[]>(['webhook', 'exchanges', '--tx', auth.transactionId]);
    const before = received().filter((x) => x.stan === auth.stan);
    expect(before).toHaveLength(1);
    const replay = await json<WebhookExchange>(['webhook', 'replay', first.id]);
    expect(replay).toMatchObject({ replayOf: first.id, transactionId: auth.transactionId, verdict: 'accepted', responseCode: '00' });
    const deadline = Date.now() + 10_000;
    while (received().filter((x) => x.stan === auth.stan).length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const after = received().filter((x) => x.stan === auth.stan);
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({ signature: 'valid', mti: '0100' });
    const listed = await json<WebhookExchange[]>(['webhook', 'exchanges', '--tx', auth.transactionId]);
    expect(listed.map((x) => x.replayOf)).toEqual([first.id, null]);
    // The ledger is as it was: one approved authorization.
    expect((await json<Lifecycle>(['tx', 'show', auth.transactionId, '--lifecycle'])).amounts).toMatchObject({ held: 31 });

    const text = await run(['webhook', 'replay', first.id]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toContain(`replay of ${first.id}`);
    const bad = await run(['webhook', 'replay', first.id, '--to', 'ftp://127.0.0.1/']);
    expect(bad.exitCode).toBe(2);
    const unknown = await run(['webhook', 'replay', 'wx_unknown']);
    expect(unknown.exitCode).toBe(4);
    expect(unknown.stderr).toMatch(/^error: webhook exchange wx_unknown not found\nhint: list them with `cardctl webhook exchanges`/);
  });

  it('webhook replay exits non-zero when nothing was delivered: 6 when not reached, 5 when not accepted; the exchange is printed all the same', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '32', '--forward']);
    const [first] = await json<WebhookExchange[]>(['webhook', 'exchanges', '--tx', auth.transactionId]);
    const failing = createServer((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}'));
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/hook`;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/hook`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    try {
      const unreached = await run(['webhook', 'replay', first.id, '--to', closedUrl, '-o', 'json']);
      expect(unreached.exitCode, unreached.stderr).toBe(6);
      expect(JSON.parse(unreached.stdout)).toMatchObject({ replayOf: first.id, verdict: 'no-answer' });
      expect(unreached.stderr).toMatch(/^error: the replay reached no webhook: the webhook could not be reached: ECONNREFUSED/);
      const refused = await run(['webhook', 'replay', first.id, '--to', failingUrl, '-o', 'json']);
      expect(refused.exitCode, refused.stderr).toBe(5);
      expect(JSON.parse(refused.stdout)).toMatchObject({ replayOf: first.id, verdict: 'refused', response: { status: 500 } });
      expect(refused.stderr).toMatch(/^error: the webhook did not accept the replay: the webhook answered HTTP 500/);
      expect(JSON.parse(refused.stderr.split('\n').find((line) => line.startsWith('{'))!)).toMatchObject({ error: { code: 'NOT_ACCEPTED', exitCode: 5, details: { verdict: 'refused', status: 500 } } });
    } finally {
      await new Promise<void>((resolve) => failing.close(() => resolve()));
    }
  });

  it('webhook replay --to with a token that cannot read the card program: exit 3 naming the scope, nothing sent', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '33', '--forward']);
    const [first] = await json<WebhookExchange[]>(['webhook', 'exchanges', '--tx', auth.transactionId]);
    const user = await call<DataEnvelope<SandboxUserCredentials>>(sandbox.info, 'POST', '/sandbox/users', { token: sandbox.info.token, body: { roles: [{ role: 'replayer', permissions: ['create:transaction', 'read:transaction'] }] } });
    expect(user.status, user.text).toBe(201);
    const narrow = { configDir: config.path, env: { ...env, CARDCTL_TOKEN: user.body.data.token } };
    const before = received().length;
    const refused = await cardctl(['webhook', 'replay', first.id, '--to', `${listener.url}/elsewhere`], narrow);
    expect(refused.exitCode, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/read:card_program/);
    expect(received()).toHaveLength(before);
    const own = await cardctl(['webhook', 'replay', first.id, '-o', 'json'], narrow);
    expect(own.exitCode, own.stderr).toBe(0);
  });

  it('--as-scenario writes a scenario of a run that replays green through simulate run; refuses to overwrite without --force', async () => {
    const card = await newCard();
    const auth = await json<SimulateResult>(['simulate', 'authorization', '--card', card, '--amount', '100', '--forward']);
    await json<SimulateResult>(['simulate', 'increment', '--original-tx', auth.transactionId, '--amount', '20', '--forward']);
    await json<SimulateResult>(['simulate', 'reversal', '--original-tx', auth.transactionId, '--amount', '50', '--forward']);
    await json<SimulateResult>(['simulate', 'clear', '--original-tx', auth.transactionId, '--amount', '60', '--forward']);
    const file = join(config.path, 'replay.yaml');
    const written = await run(['webhook', 'exchanges', '--tx', auth.transactionId, '--as-scenario', file, '--keep-spacing']);
    expect(written.exitCode, written.stderr).toBe(0);
    const yaml = readFileSync(file, 'utf8');
    expect(yaml).toContain('intent: "increment"');
    expect(yaml).toContain('intent: "reversal"');
    expect(yaml).toContain('intent: wait');
    expect(yaml).toContain('lifecycle.amounts.captured: 60');
    expect(yaml).not.toContain(WEBHOOK_SECRET);

    const replayed = await run(['simulate', 'run', file, '-o', 'json']);
    expect(replayed.exitCode, `${replayed.stdout}\n${replayed.stderr}\n${yaml}`).toBe(0);

    const again = await run(['webhook', 'exchanges', '--tx', auth.transactionId, '--as-scenario', file]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect(readFileSync(file, 'utf8')).toBe(yaml);
    writeFileSync(file, 'kept');
    expect((await run(['webhook', 'exchanges', '--tx', auth.transactionId, '--as-scenario', file, '--force'])).exitCode).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('steps:');
    expect(existsSync(file)).toBe(true);
  });

  it('sandbox serve --exchanges-max keeps the newest N', async () => {
    const small = await startSandboxProcess(['--webhook-url', listener.url, '--exchanges-max', '2', '--exchanges-max-bytes', '1MiB'], { configDir: config.path });
    try {
      const smallEnv = { CARDCTL_BASE_URL: small.info.baseUrl, CARDCTL_TOKEN: small.info.token };
      const card = await createCardOverHttp(small.info);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const sent = await cardctl(['simulate', 'authorization', '--card', card, '--amount', String(10 + i), '--forward', '-o', 'json'], { configDir: config.path, env: smallEnv });
        ids.push(JSON.parse(sent.stdout).transactionId);
      }
      const listed = await cardctl(['webhook', 'exchanges', '-o', 'json'], { configDir: config.path, env: smallEnv });
      expect((JSON.parse(listed.stdout) as WebhookExchange[]).map((x) => x.transactionId)).toEqual([ids[2], ids[1]]);
    } finally {
      await small.stop();
    }
  });

  it('bad input: a clear one-line usage error, exit 2', async () => {
    for (const args of [
      ['webhook', 'exchanges', '--keep-spacing'],
      ['webhook', 'exchanges', '--since', 'yesterday'],
      ['webhook', 'replay', 'wx_1', '--to', 'not a url'],
      ['sandbox', 'serve', '--memory', '--port', '0', '--exchanges-max', '0'],
      ['sandbox', 'serve', '--memory', '--port', '0', '--exchanges-max-bytes', '12 parsecs'],
    ]) {
      const result = await run(args);
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr.trim().split('\n')[0]).toMatch(/^error: /);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
