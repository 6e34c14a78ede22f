// Nothing acknowledged is lost: create cards (or simulate in forward mode), SIGKILL the sandbox,
// restart on the same --db.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { call, createCardBody, encryptPin, type CardMaker, type DataEnvelope, type ListDataEnvelope } from '../sandbox/helpers.js';
import type { Card, Transaction, CardProgram, SimulateEnvelope, PinKeyInfo } from '../../src/api/schemas.js';

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
  const pinKey = await call<PinKeyInfo>(first.info, 'GET', '/sandbox/pin-key');
  const sandbox: CardMaker = { ...first.info, pinPublicKey: pinKey.body.publicKey };

  const created: string[] = [];
  await Promise.all(Array.from({ length: 25 }, async (_, i) => {
    const body = createCardBody(sandbox, { referenceCode: `DURABLE-${i}`, defaultPIN: encryptPin(sandbox, '2468') });
    const response = await call<DataEnvelope<Card>>(first.info, 'POST', '/institutions/cards', { token: first.info.token, body });
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

  const list = await call<ListDataEnvelope<Card>>(second.info, 'GET', '/institutions/cards?limit=100', { token: second.info.token });
  expect(list.status).toBe(200);
  expect(list.body.pagination.total).toBe(25);
  expect(list.body.data.map((c: Card) => c.id).sort()).toEqual([...created].sort());

  // The program's PAN counter survived too: a new card gets a number not used before.
  const next = await call<DataEnvelope<Card>>(second.info, 'POST', '/institutions/cards', {
    token: second.info.token,
    body: createCardBody(sandbox, { referenceCode: 'DURABLE-after', defaultPIN: encryptPin(sandbox, '2468') }),
  });
  expect(next.status, next.text).toBe(201);
  expect(list.body.data.map((c: Card) => c.pan)).not.toContain(next.body.data.pan);
  await second.stop('SIGTERM');
});

test('forward-mode simulations answered before kill -9 are all there after a restart, settled as answered', async () => {
  // The institution: echoes every message with 00.
  const webhook = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const message = JSON.parse(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...message, '0': `${message['0'].slice(0, 2)}1${message['0'][3]}`, '39': '00' }));
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  try {
    const db = join(dir.path, 'forward.db');
    const first = await startSandboxProcess(['--db', db, '--webhook-url', `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/`], { configDir: dir.path });
    running.push(first);
    const { token, cardProgramId } = first.info;
    const open = { enabled: true, dailyLimit: { count: 0, amount: 0 } };
    expect((await call<DataEnvelope<CardProgram>>(first.info, 'PUT', `/sandbox/card-programs/${cardProgramId}`, { token, body: { channels: { pos: open, atm: open, web: open } } })).status).toBe(200);
    const pinKey = await call<PinKeyInfo>(first.info, 'GET', '/sandbox/pin-key');
    const sandbox: CardMaker = { ...first.info, pinPublicKey: pinKey.body.publicKey };
    const card = await call<DataEnvelope<Card>>(first.info, 'POST', '/institutions/cards', { token, body: createCardBody(sandbox, { referenceCode: 'DURABLE-FORWARD', defaultPIN: encryptPin(sandbox, '2468') }) });
    expect(card.status, card.text).toBe(201);

    const simulate = (cardId: string) => call<SimulateEnvelope>(first.info, 'POST', '/institutions/switch/simulate', {
      token, body: { intent: 'authorization', processingFlow: 'purchase', amount: 10, cardId, responseMode: 'forward' },
    });
    const answered = await Promise.all([
      ...Array.from({ length: 12 }, () => simulate(card.body.data.id)),
      simulate('000000000000000000000000'), // declined by the checks, never sent to the webhook
    ]);
    for (const response of answered) expect(response.status, response.text).toBe(200);
    expect(answered.map((r) => r.body.data.responseCode).sort()).toEqual([...Array(12).fill('00'), '14']);
    // Acknowledged only: kill immediately after the last answer.
    await first.stop('SIGKILL');

    const second = await startSandboxProcess(['--db', db], { configDir: dir.path });
    running.push(second);
    for (const response of answered) {
      const stored = await call<DataEnvelope<Transaction>>(second.info, 'GET', `/institutions/transactions/${response.body.data.transactionId}`, { token });
      expect(stored.status, stored.text).toBe(200);
      expect(stored.body.data).toMatchObject({ responseCode: response.body.data.responseCode, transactionStatus: response.body.data.transactionStatus });
    }
    await second.stop('SIGTERM');
  } finally {
    await new Promise((resolve) => webhook.close(resolve));
  }
});
