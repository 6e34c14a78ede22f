// Nothing acknowledged is lost: create cards, SIGKILL the sandbox, restart on the same --db.
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { call, createCardBody, encryptPin } from '../sandbox/helpers.js';

const dir = tempDir('cardctl-durability-');
const running: RunningSandbox[] = [];
afterAll(async () => {
  for (const sandbox of running) await sandbox.stop('SIGKILL');
  dir.remove();
});

test('cards created before kill -9 are all there after a restart on the same --db, with the same credentials', async () => {
  const db = join(dir.path, 'sandbox.db');
  const first = await startSandboxProcess(['--db', db], { configDir: dir.path });
  running.push(first);
  const pinKey = await call(first.info, 'GET', '/sandbox/pin-key');
  const sandbox = { ...first.info, pinPublicKey: pinKey.body.publicKey } as any;

  const created: string[] = [];
  await Promise.all(Array.from({ length: 25 }, async (_, i) => {
    const body = createCardBody(sandbox, { referenceCode: `DURABLE-${i}`, defaultPIN: encryptPin(sandbox, '2468') });
    const response = await call(first.info, 'POST', '/institutions/cards', { token: first.info.token, body });
    expect(response.status, response.text).toBe(201);
    created.push(response.body.data.id);
  }));
  // Acknowledged writes only: kill immediately after the last 201, no graceful shutdown.
  await first.stop('SIGKILL');

  const second = await startSandboxProcess(['--db', db], { configDir: dir.path });
  running.push(second);
  expect(second.info.token).toBe(first.info.token);
  expect(second.info.apiKey).toBe(first.info.apiKey);
  expect(second.info.institutionId).toBe(first.info.institutionId);
  expect(second.info.cardProgramId).toBe(first.info.cardProgramId);
  expect(second.info.pinKeyFingerprint).toBe(first.info.pinKeyFingerprint);

  const list = await call(second.info, 'GET', '/institutions/cards?limit=100', { token: second.info.token });
  expect(list.status).toBe(200);
  expect(list.body.pagination.total).toBe(25);
  expect(list.body.data.map((c: any) => c.id).sort()).toEqual([...created].sort());

  // The program's PAN counter survived too: a new card gets a number not used before.
  const next = await call(second.info, 'POST', '/institutions/cards', {
    token: second.info.token,
    body: createCardBody(sandbox, { referenceCode: 'DURABLE-after', defaultPIN: encryptPin(sandbox, '2468') }),
  });
  expect(next.status, next.text).toBe(201);
  expect(list.body.data.map((c: any) => c.pan)).not.toContain(next.body.data.pan);
  await second.stop('SIGTERM');
});
