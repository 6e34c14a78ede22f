// End to end: `simulate run` with an institution's own webhook handler — a plain Node server
// that answers switch messages and serves no /exchanges. Expectations on `exchanges.*` are
// graded from the sandbox's own exchange log, so they pass (and fail, with the step's message)
// whatever the handler is; `webhook.*` needs `webhook listen` and says so.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardctl, startWebhookListener, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { pythonMissing, startPythonHandler } from '../helpers/python-handler.js';
import { startSigningSandbox } from '../helpers/signing-sandbox.js';
import { call, createCardOverHttp } from '../sandbox/helpers.js';

const SECRET = 'whsec_scenario_exchanges_e2e';
let config: { path: string; remove(): void };
let handler: TestServer;
/** The handler answers every GET (its /exchanges too) as a health check would. */
let getAnswersHealth = false;
/** The handler is broken: HTTP 500 to every message. */
let answers500 = false;
let sandbox: RunningSandbox;
let env: Record<string, string>;

const run = (args: string[]) => cardctl(args, { configDir: config.path, env, timeout: 60_000 });

/** Writes a scenario for a new card; its path. */
async function scenario(name: string, steps: string): Promise<string> {
  const card = await createCardOverHttp(sandbox.info);
  const file = join(config.path, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\nvars: { card: "${card}" }\nsteps:\n${steps}`);
  return file;
}

beforeAll(async () => {
  config = tempDir();
  // A correct handler of its own: approves each message, answering with its response MTI
  // (0100 and 0101 → 0110, 0420 and 0421 → 0430); a GET, /exchanges included, is a 404 (or a health check's 200).
  handler = await startTestServer((req, res) => {
    if (req.method !== 'POST') return getAnswersHealth ? json(res, 200, { status: 'ok' }) : json(res, 404, { error: 'not found' });
    if (answers500) return json(res, 500, { error: 'broken' });
    const message = JSON.parse(req.body) as Record<string, string>;
    const mti = message['0']!;
    json(res, 200, { ...message, '0': `${mti.slice(0, 2)}${Number(mti[2]) + 1}${Number(mti[3]) & ~1}`, '39': '00' });
  });
  ({ sandbox, env } = await startSigningSandbox(`${handler.url}/card-auth`, SECRET, config.path));
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  await handler?.close();
  config?.remove();
});

it('exchanges.* expectations pass against a handler that serves no /exchanges', async () => {
  const file = await scenario('own handler', `
  - id: auth
    intent: authorization
    card: "{{vars.card}}"
    amount: 120.00
    forward: true
    expect: { responseCode: "00", exchanges.length: 1, exchanges.0.kind: authorization, exchanges.0.attempt: 1, exchanges.0.verdict: accepted, exchanges.0.response.status: 200, exchanges.0.responseCode: "00", exchanges.0.request.body.0: "0100" }
  - id: reversal
    intent: reversal
    originalTx: "{{steps.auth.transactionId}}"
    amount: 120.00
    forward: true
    webhookFaults: reply-lost=1
    within: 8s
    expect:
      exchanges.length: 2
      exchanges.0.mti: "0420"
      exchanges.0.verdict: no-answer
      exchanges.0.response.status: null
      exchanges.1.mti: "0421"
      exchanges.1.kind: reversal-repeat
      exchanges.1.attempt: 2
      exchanges.1.verdict: accepted
`);
  const result = await run(['simulate', 'run', file, '-o', 'json']);
  expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
  const summary = JSON.parse(result.stdout);
  expect(summary).toMatchObject({ passed: 2, failed: 0 });
  // The handler was never asked what it received.
  expect(handler.requests.filter((r) => r.method !== 'POST')).toEqual([]);
}, 30_000);

it('a scenario exported from a broken handler keeps the verdict: it fails against that handler, and passes once it is fixed', async () => {
  const card = await createCardOverHttp(sandbox.info);
  answers500 = true;
  try {
    const sent = await run(['simulate', 'authorization', '--card', card, '--amount', '15', '--forward', '-o', 'json']);
    expect(sent.exitCode, sent.stderr).not.toBe(2);
    const id = (JSON.parse(sent.stdout) as { transactionId: string }).transactionId;
    const file = join(config.path, 'regression.yaml');
    const exported = await run(['webhook', 'exchanges', '--tx', id, '--as-scenario', file]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const broken = await run(['simulate', 'run', file]);
    expect(broken.exitCode, broken.stdout + broken.stderr).toBe(5);
    expect(`${broken.stdout}${broken.stderr}`).toMatch(/exchanges\.0\.verdict/);
    answers500 = false;
    const fixed = await run(['simulate', 'run', file]);
    expect(fixed.exitCode, fixed.stdout + fixed.stderr).toBe(0);
  } finally {
    answers500 = false;
  }
}, 60_000);

it('a wrong exchanges.* expectation fails its step with the path, what was expected and what was recorded', async () => {
  const file = await scenario('wrong expectation', `
  - { id: auth, intent: authorization, card: "{{vars.card}}", amount: 5.00, forward: true, expect: { exchanges.0.verdict: refused, exchanges.length: 1 } }
`);
  const result = await run(['simulate', 'run', file]);
  expect(result.exitCode, result.stderr).toBe(5);
  expect(result.stdout).toMatch(/^fail\tauth\t0100 authorization .*\n {8}expected exchanges\.0\.verdict "refused", got "accepted"\n/m);
  expect(result.stdout).not.toContain('expected exchanges.length');
}, 30_000);

it('webhook.* against a handler that is not webhook listen: a usage error that points to exchanges.*', async () => {
  const file = await scenario('listener only', `
  - { id: auth, intent: authorization, card: "{{vars.card}}", amount: 5.00, forward: true, expect: { webhook.signature: valid } }
`);
  try {
    for (const [health, answered] of [[false, '404'], [true, '200 without what `webhook listen` answers there']] as const) {
      getAnswersHealth = health;
      const result = await run(['simulate', 'run', file]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`GET /card-auth/exchanges answered ${answered}): webhook.* expectations are what \`cardctl webhook listen\` received and need it as the webhook; expect exchanges.* (the sandbox's own record of each call) with any other handler`);
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  } finally {
    getAnswersHealth = false;
  }
}, 30_000);

it('a misspelt exchanges.* path is refused when the file loads: exit 2, nothing sent', async () => {
  const file = await scenario('misspelt', `
  - { id: auth, intent: authorization, card: "{{vars.card}}", amount: 5.00, forward: true, expect: { exchanges.0.verdit: accepted } }
`);
  const before = handler.requests.length;
  const result = await run(['simulate', 'run', file]);
  expect(result.exitCode).toBe(2);
  expect(result.stderr).toMatch(/invalid scenario .*misspelt\.yaml \(line 5\): step 1 \(auth\): expect: "exchanges\.0\.verdit" is not exchanges\.length or exchanges\.N\.<field>/);
  expect(handler.requests.length).toBe(before);
}, 30_000);

it('with webhook listen as the webhook, webhook.* (its own account, its signature verdict) and exchanges.* agree', async () => {
  const listener = await startWebhookListener({ configDir: config.path, secret: SECRET });
  const point = (url: string) => call(sandbox.info, 'PUT', `/sandbox/card-programs/${sandbox.info.cardProgramId}`, { token: sandbox.info.token, body: { webHookConfig: { url } } });
  try {
    expect((await point(listener.url)).status).toBe(200);
    const file = await scenario('listener', `
  - { id: auth, intent: authorization, card: "{{vars.card}}", amount: 5.00, forward: true, webhookFaults: duplicate=1, expect: { webhook.deliveries: 2, webhook.repeats: 1, webhook.signature: valid, exchanges.length: 2 } }
`);
    const result = await run(['simulate', 'run', file, '-o', 'json']);
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ passed: 1, failed: 0 });
  } finally {
    await point(`${handler.url}/card-auth`);
    await listener.stop();
  }
}, 30_000);

describe.skipIf(pythonMissing)('the lifecycle examples, with the Python handler of the protocol page as the institution', () => {
  const examples = fileURLToPath(new URL('../../examples/scenarios/lifecycle/', import.meta.url));
  const files = readdirSync(examples).filter((f) => /\.ya?ml$/.test(f)).sort();

  it.each(files)('%s passes', async (file) => {
    const python = await startPythonHandler({ secret: SECRET });
    const point = (url: string) => call(sandbox.info, 'PUT', `/sandbox/card-programs/${sandbox.info.cardProgramId}`, { token: sandbox.info.token, body: { webHookConfig: { url } } });
    try {
      expect((await point(python.url)).status).toBe(200);
      const card = await createCardOverHttp(sandbox.info);
      const result = await run(['simulate', 'run', `${examples}${file}`, '--set', `card=${card}`, '--set', `program=${sandbox.info.cardProgramId}`, '-o', 'json']);
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ failed: 0 });
    } finally {
      await point(`${handler.url}/card-auth`);
      await python.stop();
    }
  }, 30_000);
});
