// A database that cannot be written: every write is answered 503 with the reason (not a bare
// 500), and /sandbox/health says degraded until a write succeeds again. The disk is "filled"
// with SQLite's max_page_count, which holds even for root (who ignores file modes).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, startTestSandbox, type Sandbox, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import type { Card, CardProgram, SandboxHealth } from '../../src/api/schemas.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});

afterAll(async () => {
  await sandbox?.close();
});

/** Lets the database grow by at most `pages` more pages (undefined: back to SQLite's default bound). */
function limitPages(pages: number | undefined): void {
  const { db } = sandbox.deps.store;
  const count = Number((db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count);
  db.exec(`PRAGMA max_page_count = ${pages === undefined ? 4294967294 : count + pages}`);
}

const newProgram = (name: string) => call<DataEnvelope<CardProgram>>(sandbox, 'POST', '/sandbox/card-programs', { token: sandbox.token, body: { name }, skipOpenApiCheck: true });

describe('a database that cannot be written', () => {
  test('writes answer 503 with the reason, health is degraded, and both recover once it can be written', async () => {
    expect((await call<SandboxHealth>(sandbox, 'GET', '/sandbox/health')).body.status).toBe('ok');
    limitPages(0);
    let refused;
    // The first rows may still fit in a page that has room.
    for (let i = 0; i < 50 && (refused = await newProgram(`program ${i} ${'x'.repeat(2000)}`)).status !== 503; i++) expect(refused.status).toBe(201);
    expect(refused!.status).toBe(503);
    expect(refused!.body).toMatchObject({ statusCode: 503, error: 'STORAGE_UNAVAILABLE' });
    expect(refused!.body.message).toMatch(/^the sandbox cannot write its database: .*\(SQLITE_FULL\)/);

    const degraded = await call<SandboxHealth>(sandbox, 'GET', '/sandbox/health');
    expect(degraded.status).toBe(503);
    expect(degraded.body).toMatchObject({ status: 'degraded', reason: expect.stringMatching(/SQLITE_FULL/), storage: 'memory' });
    // Reads go on.
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: sandbox.token })).status).toBe(200);

    limitPages(undefined);
    const healthy = await call<SandboxHealth>(sandbox, 'GET', '/sandbox/health');
    expect(healthy.status).toBe(200);
    expect(healthy.body.status).toBe('ok');
    expect(healthy.body.reason).toBeUndefined();
    expect((await newProgram('after')).status).toBe(201);
  });
});
