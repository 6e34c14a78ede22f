// Fault injection: the spec parser, each fault against an in-process sandbox, determinism by
// seed, exempt paths, and PUT/GET /sandbox/faults.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultSpecError, formatFaultSpec, mulberry32, parseFaultSpec } from '../../src/sandbox/faults.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, createCardBody, type Sandbox, fieldErrorsOf, type ListDataEnvelope, type FaultsAnswer } from './helpers.js';
import type { Card, SandboxHealth } from '../../src/api/schemas.js';

describe('parseFaultSpec', () => {
  it('reads every key', () => {
    const spec = parseFaultSpec('rate=0.1,codes=500|502|503,latency=0-800ms,reset=0.02,slow-body=0.01,429=0.05,commit-then-timeout=0.05,hold=2');
    expect(spec).toMatchObject({
      rate: 0.1, codes: [500, 502, 503], latency: [0, 800], reset: 0.02, slowBody: 0.01, rateLimit: 0.05, commitThenTimeout: 0.05, holdSeconds: 2,
    });
    expect(parseFaultSpec(formatFaultSpec(spec))).toEqual(spec);
    expect(parseFaultSpec('latency=1-2s').latency).toEqual([1000, 2000]);
    expect(parseFaultSpec('')).toMatchObject({ rate: 0, reset: 0 });
  });

  it.each([
    ['bogus=1', 'bogus'],
    ['rate=1.5', 'rate'],
    ['rate=abc', 'rate'],
    ['reset=-0.1', 'reset'],
    ['codes=200', 'codes'],
    ['codes=', 'codes'],
    ['latency=800-0ms', 'latency'],
    ['latency=fast', 'latency'],
    ['429=2', '429'],
    ['hold=0', 'hold'],
    ['rate', 'rate'],
  ])('%s is refused naming %s', (text, key) => {
    try {
      parseFaultSpec(text);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(FaultSpecError);
      expect((error as FaultSpecError).key).toBe(key);
      expect((error as Error).message).toContain(key);
    }
  });

  it('mulberry32 replays from a seed', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const first = Array.from({ length: 20 }, () => a());
    expect(Array.from({ length: 20 }, () => b())).toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(Array.from({ length: 20 }, mulberry32(43))).not.toEqual(first);
  });
});

describe('fault injection in the sandbox', () => {
  let sandbox: Sandbox;
  beforeAll(async () => { sandbox = await startSandbox({ port: 0, memory: true, faultsHoldSeconds: 0.3 }); });
  afterAll(async () => { await sandbox?.close(); });

  const setFaults = async (body: Record<string, unknown>) => {
    const response = await call<FaultsAnswer>(sandbox, 'PUT', '/sandbox/faults', { body });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const cardCount = async () => (await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?limit=1', { token: sandbox.token })).body.pagination.total as number;

  /** A raw request: the status, or the network error's code. */
  const rawPost = async (path: string, body: unknown, timeoutMs = 5_000): Promise<{ status?: number; error?: string; text?: string; ms: number }> => {
    const started = Date.now();
    try {
      const response = await request(`${sandbox.baseUrl}${path}`, {
        method: 'POST', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body), headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      return { status: response.statusCode, text, ms: Date.now() - started };
    } catch (error) {
      const e = error as { code?: string; cause?: { code?: string } };
      return { error: e.code ?? e.cause?.code ?? String(error), ms: Date.now() - started };
    }
  };

  it('GET/PUT /sandbox/faults read and replace the spec; a bad key is a 400 naming it', async () => {
    expect((await call<FaultsAnswer>(sandbox, 'GET', '/sandbox/faults')).body).toMatchObject({ spec: '', seed: 1 });
    const set = await setFaults({ rate: 0.5, codes: [502], seed: 9 });
    expect(set).toMatchObject({ spec: 'rate=0.5,codes=502', seed: 9 });
    expect((await call<FaultsAnswer>(sandbox, 'GET', '/sandbox/faults')).body).toMatchObject({ spec: 'rate=0.5,codes=502', seed: 9 });
    expect(await setFaults({ spec: 'reset=0.1' })).toMatchObject({ spec: 'reset=0.1' });
    const bad = await call<FaultsAnswer>(sandbox, 'PUT', '/sandbox/faults', { body: { rate: 0.1, flood: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'VALIDATION_ERROR', errors: [{ field: 'flood' }] });
    expect(fieldErrorsOf((await call<FaultsAnswer>(sandbox, 'PUT', '/sandbox/faults', { body: { rate: 3 } })))[0].field).toBe('rate');
    await setFaults({});
    expect((await call<FaultsAnswer>(sandbox, 'GET', '/sandbox/faults')).body.spec).toBe('');
  });

  it('error statuses come in the error envelope before the handler runs (nothing committed)', async () => {
    await setFaults({});
    const count0 = await cardCount();
    await setFaults({ rate: 1, codes: '500|503' });
    for (let i = 0; i < 10; i++) {
      const result = await rawPost('/institutions/cards', createCardBody(sandbox));
      expect([500, 503]).toContain(result.status);
      expect(JSON.parse(result.text!)).toMatchObject({ statusCode: result.status, error: 'INTERNAL' });
    }
    // Exempt paths still answer.
    expect((await call<SandboxHealth>(sandbox, 'GET', '/sandbox/health')).status).toBe(200);
    expect((await call(sandbox, 'GET', '/openapi.json')).status).toBe(200);
    await setFaults({});
    expect(await cardCount()).toBe(count0);
  });

  it('429 carries Retry-After', async () => {
    await setFaults({ 429: 1, 'retry-after': 2 });
    const response = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { token: sandbox.token, skipOpenApiCheck: true });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('2');
    expect(response.body).toMatchObject({ statusCode: 429, error: 'RATE_LIMITED' });
    await setFaults({});
  });

  it('resets: before the handler nothing is committed, mid-response the write is committed', async () => {
    await setFaults({});
    const count0 = await cardCount();
    await setFaults({ reset: 1, seed: 5 });
    const results = [];
    for (let i = 0; i < 16; i++) results.push(await rawPost('/institutions/cards', createCardBody(sandbox)));
    const counts = (await call<FaultsAnswer>(sandbox, 'GET', '/sandbox/faults')).body.counts;
    await setFaults({});
    expect(results.every((r) => r.error !== undefined)).toBe(true);
    expect(counts['reset-request']).toBeGreaterThan(0);
    expect(counts['reset-response']).toBeGreaterThan(0);
    expect(counts['reset-request'] + counts['reset-response']).toBe(16);
    expect(await cardCount()).toBe(count0 + counts['reset-response']);
  });

  it('commit-then-timeout: committed, answer held until the hold ends or the client gives up', async () => {
    const count0 = await cardCount();
    await setFaults({ 'commit-then-timeout': 1 });
    const late = await rawPost('/institutions/cards', createCardBody(sandbox));
    expect(late.status).toBe(201);
    expect(late.ms).toBeGreaterThanOrEqual(250);
    await setFaults({ 'commit-then-timeout': 1, hold: 30 });
    const gaveUp = await rawPost('/institutions/cards', createCardBody(sandbox), 300);
    expect(gaveUp.error).toBe('UND_ERR_HEADERS_TIMEOUT');
    expect(gaveUp.ms).toBeLessThan(10_000);
    await setFaults({});
    expect(await cardCount()).toBe(count0 + 2);
  });

  it('slow-body trickles a complete body; latency delays', async () => {
    await setFaults({ 'slow-body': 1 });
    const slow = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?limit=5', { token: sandbox.token });
    expect(slow.status).toBe(200);
    expect(Array.isArray(slow.body.data)).toBe(true);
    await setFaults({ latency: '150-150ms' });
    const started = Date.now();
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?limit=1', { token: sandbox.token })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await setFaults({});
  });

  it('the same seed injects the same faults in the same order', async () => {
    const run = async () => {
      await setFaults({ rate: 0.3, codes: '500|502|503', 429: 0.1, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?limit=1', { token: sandbox.token, skipOpenApiCheck: true })).status);
      await setFaults({});
      return statuses;
    };
    const first = await run();
    expect(new Set(first).size).toBeGreaterThan(1);
    expect(await run()).toEqual(first);
  });

  it('methods= limits faults to those methods', async () => {
    await setFaults({ rate: 1, codes: [503], methods: 'POST' });
    expect((await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?limit=1', { token: sandbox.token })).status).toBe(200);
    expect((await rawPost('/institutions/cards', createCardBody(sandbox))).status).toBe(503);
    expect(fieldErrorsOf((await call<FaultsAnswer>(sandbox, 'PUT', '/sandbox/faults', { body: { rate: 1, methods: 'FETCH' } })))[0].field).toBe('methods');
    await setFaults({});
  });

  it('startSandbox takes faults and faultsSeed', async () => {
    const other = await startSandbox({ port: 0, memory: true, faults: 'rate=1,codes=502', faultsSeed: 3 });
    try {
      expect((await call<ListDataEnvelope<Card>>(other, 'GET', '/institutions/cards', { token: other.token, skipOpenApiCheck: true })).status).toBe(502);
      expect((await call<FaultsAnswer>(other, 'GET', '/sandbox/faults')).body).toMatchObject({ spec: 'rate=1,codes=502', seed: 3 });
    } finally {
      await other.close();
    }
  });
});
