// Ctrl-C during a scenario step: the sandbox is shared, so `simulate run` takes the step's
// webhook faults off and puts back the stand-in policy a step changed before it exits 130.
import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, cleanEnv, isolatedDirs, startSandboxProcess, startWebhookListener, tempDir, type RunningSandbox, type WebhookListener } from '../helpers/cli.js';
import { call, createCardOverHttp } from '../sandbox/helpers.js';

let config: { path: string; remove(): void };
let listener: WebhookListener;
let sandbox: RunningSandbox;

beforeAll(async () => {
  config = tempDir();
  listener = await startWebhookListener({ configDir: config.path });
  sandbox = await startSandboxProcess(['--webhook-url', listener.url], { configDir: config.path });
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  await listener?.stop();
  config?.remove();
});

it('SIGINT mid-step: no faults left, the stand-in policy back as it was, exit 130', async () => {
  const { info } = sandbox;
  const card = await createCardOverHttp(info);
  const program = info.cardProgramId;
  const before = { mode: 'approve', maxAmount: 3, dailyAmount: 7 };
  expect((await call(info, 'PUT', `/sandbox/card-programs/${program}`, { token: info.token, body: { standIn: before } })).status).toBe(200);

  const faultsBefore = (await call(info, 'GET', '/sandbox/webhook-faults', { skipOpenApiCheck: true })).body;

  const file = join(config.path, 'slow.yaml');
  writeFileSync(file, `
steps:
  - { intent: stand-in, program: "${program}", standIn: { mode: decline } }
  - { intent: authorization, card: "${card}", amount: 1, forward: true, webhookFaults: "delay=20000ms,deadline=30s" }
`);
  const run = execa('node', [BIN, 'simulate', 'run', file], {
    env: cleanEnv({ ...isolatedDirs(config.path), CARDCTL_BASE_URL: info.baseUrl, CARDCTL_TOKEN: info.token }),
    extendEnv: false, reject: false, timeout: 60_000,
  });
  // The slow step is in flight once its faults are installed.
  for (let tries = 0; ; tries++) {
    const faults = await call(info, 'GET', '/sandbox/webhook-faults', { skipOpenApiCheck: true });
    if (String(faults.body?.spec ?? '').includes('delay')) break;
    if (tries > 200) throw new Error('the slow step never started');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  run.kill('SIGINT');
  const result = await run;
  expect(result.exitCode, result.stderr).toBe(130);

  const faults = await call(info, 'GET', '/sandbox/webhook-faults', { skipOpenApiCheck: true });
  expect(faults.body).toEqual(faultsBefore);
  const programs = await call(info, 'GET', '/sandbox/card-programs', { token: info.token });
  const listed = (programs.body.data ?? programs.body) as Array<{ id: string; standIn?: unknown }>;
  expect(listed.find((p) => p.id === program)?.standIn).toEqual(before);
}, 90_000);
