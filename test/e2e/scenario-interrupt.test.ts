// Ctrl-C during a scenario step: the sandbox is shared, so `simulate run` takes the step's
// webhook faults off and puts back the stand-in policy a step changed before it exits 130.
import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BIN, cleanEnv, isolatedDirs } from '../helpers/cli.js';
import { useListenerSandbox } from '../helpers/signing-sandbox.js';
import { call, createCardOverHttp, type DataEnvelope, type WebhookFaultState } from '../sandbox/helpers.js';
import type { CardProgram } from '../../src/api/schemas.js';

const fixture = useListenerSandbox();

it('SIGINT mid-step: no faults left, the stand-in policy back as it was, exit 130', async () => {
  const { sandbox: { info }, config } = fixture;
  const card = await createCardOverHttp(info);
  const program = info.cardProgramId;
  const before = { mode: 'approve', maxAmount: 3, dailyAmount: 7 };
  expect((await call<DataEnvelope<CardProgram>>(info, 'PUT', `/sandbox/card-programs/${program}`, { token: info.token, body: { standIn: before } })).status).toBe(200);

  const faultsBefore = (await call<WebhookFaultState>(info, 'GET', '/sandbox/webhook-faults', { token: info.token, skipOpenApiCheck: true })).body;

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
    const faults = await call<WebhookFaultState>(info, 'GET', '/sandbox/webhook-faults', { token: info.token, skipOpenApiCheck: true });
    if (String(faults.body?.spec ?? '').includes('delay')) break;
    if (tries > 200) throw new Error('the slow step never started');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  run.kill('SIGINT');
  const result = await run;
  expect(result.exitCode, result.stderr).toBe(130);

  const faults = await call<WebhookFaultState>(info, 'GET', '/sandbox/webhook-faults', { token: info.token, skipOpenApiCheck: true });
  expect(faults.body).toEqual(faultsBefore);
  const programs = await call<DataEnvelope<CardProgram[]>>(info, 'GET', '/sandbox/card-programs', { token: info.token });
  const listed = (programs.body.data ?? programs.body) as Array<{ id: string; standIn?: unknown }>;
  expect(listed.find((p) => p.id === program)?.standIn).toEqual(before);
}, 90_000);
