// createCardExactlyOnce step by step against a scripted server: every branch of the decision
// (lost answer → lookup → found / absent → resend; 409 after an uncertain attempt; 429; a
// plain rejection; lookup failing; retries running out) with the exact requests it sends.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCardExactlyOnce } from '../../src/api/cards.js';
import { ApiClient } from '../../src/api/client.js';
import { CliError } from '../../src/core/errors.js';
import { envelope, json, startTestServer, type Handler, type TestServer } from '../helpers/http-server.js';
import { createCardBodyOf } from '../helpers/bodies.js';

let server: TestServer;
const waits: number[] = [];
beforeEach(async () => { server = await startTestServer(); waits.length = 0; });
afterEach(async () => { await server.close(); });

const client = (retries = 2) => new ApiClient({ baseUrl: server.url, getToken: async () => 'tok', retries, timeoutMs: 2_000, sleep: async (ms) => void waits.push(ms), random: () => 0.5 });
const body = createCardBodyOf({ referenceCode: 'REF-1' });
const card = { id: 'c1', referenceCode: 'REF-1' };

const reset: Handler = (_req, res) => { res.socket?.destroy(); };
const status = (code: number, error = 'INTERNAL', headers: Record<string, string> = {}): Handler => (_req, res) => json(res, code, { statusCode: code, message: `failed ${code}`, error }, headers);
const created: Handler = (_req, res) => json(res, 201, { statusCode: 201, message: 'created', data: card });
/** A search answer: the given cards, one page. */
const found = (...cards: unknown[]): Handler => (_req, res) => envelope(res, cards, { pagination: { page: 1, limit: 100, total: cards.length, pages: 1 } });
const trace = () => server.requests.map((r) => `${r.method} ${r.url.replace(/\?.*search=([^&]*).*/, '?search=$1')}`);

describe('cards create: exactly once by reference', () => {
  it('answered at once: one POST, nothing else', async () => {
    server.enqueue(created);
    const result = await createCardExactlyOnce(client(), body);
    expect(result).toMatchObject({ appliedEarlier: false, attempts: 1, response: { data: card } });
    expect(trace()).toEqual(['POST /institutions/cards']);
  });

  it('answer lost, the card is there: returned, not sent again', async () => {
    server.enqueue(reset, found({ id: 'c0', referenceCode: 'REF-10' }, card));
    const result = await createCardExactlyOnce(client(), body);
    expect(result).toMatchObject({ appliedEarlier: true, attempts: 1, response: { data: card } });
    expect(trace()).toEqual(['POST /institutions/cards', 'GET /institutions/cards?search=REF-1']);
  });

  it('a substring match is not the card: REF-10 does not stand for REF-1', async () => {
    server.enqueue(status(502), found({ id: 'c0', referenceCode: 'REF-10' }), created);
    const result = await createCardExactlyOnce(client(), body);
    expect(result.appliedEarlier).toBe(false);
    expect(trace()).toEqual(['POST /institutions/cards', 'GET /institutions/cards?search=REF-1', 'POST /institutions/cards']);
    expect(JSON.parse(server.requests[2]!.body).referenceCode).toBe('REF-1');
  });

  it('absent after a 5xx: the same body sent again', async () => {
    server.enqueue(status(500), found(), created);
    const result = await createCardExactlyOnce(client(), body);
    expect(result).toMatchObject({ appliedEarlier: false, attempts: 2 });
    expect(server.requests[0]!.body).toBe(server.requests[2]!.body);
  });

  it('409 on the resend after an uncertain attempt: it applied after all, fetched and returned', async () => {
    server.enqueue(reset, found(), status(409, 'CONFLICT'), found(card));
    const result = await createCardExactlyOnce(client(), body);
    expect(result).toMatchObject({ appliedEarlier: true, response: { data: card } });
    expect(trace()).toEqual(['POST /institutions/cards', 'GET /institutions/cards?search=REF-1', 'POST /institutions/cards', 'GET /institutions/cards?search=REF-1']);
  });

  it('409 on the first attempt is the caller\'s reused reference: thrown (exit 5), no lookup', async () => {
    server.enqueue(status(409, 'CONFLICT'));
    await expect(createCardExactlyOnce(client(), body)).rejects.toMatchObject({ exitCode: 5, code: 'CONFLICT' });
    expect(trace()).toEqual(['POST /institutions/cards']);
  });

  it('a 400 is thrown as it came, never retried', async () => {
    server.enqueue(status(400, 'VALIDATION_ERROR'));
    await expect(createCardExactlyOnce(client(), body)).rejects.toMatchObject({ exitCode: 5, code: 'VALIDATION_ERROR' });
    expect(server.requests).toHaveLength(1);
  });

  it('429: sent again after Retry-After, without a lookup (nothing was handled)', async () => {
    server.enqueue(status(429, 'RATE_LIMITED', { 'retry-after': '3' }), created);
    const result = await createCardExactlyOnce(client(), body);
    expect(result.attempts).toBe(2);
    expect(waits).toEqual([3000]);
    expect(trace()).toEqual(['POST /institutions/cards', 'POST /institutions/cards']);
  });

  it('retries run out: exit 7, the hint says the card was not created; exactly retries+1 POSTs', async () => {
    server.fallback((req, res) => (req.method === 'POST' ? status(503)(req, res) : found()(req, res)));
    const error = await createCardExactlyOnce(client(2), body).catch((e: CliError) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(7);
    expect((error as CliError).hint).toMatch(/no card with reference REF-1 was found.*retry with --reference REF-1/);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(3);
  });

  it('--no-retry: one POST; the lookup still tells whether it applied', async () => {
    server.enqueue(reset, found());
    const error = await createCardExactlyOnce(client(0), body).catch((e: CliError) => e);
    expect((error as CliError).exitCode).toBe(6);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('the lookup fails too: the POST\'s error, with a hint to look before retrying; never a second POST', async () => {
    server.enqueue(reset);
    server.fallback(status(500));
    const error = await createCardExactlyOnce(client(1), body).catch((e: CliError) => e);
    expect((error as CliError).exitCode).toBe(6);
    expect((error as CliError).hint).toMatch(/could not check whether the card was created.*cards list --search REF-1/);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});

describe('import: the realId lookup', () => {
  it('reads every page of the substring search (R-1 also finds R-10…): the match on page 2 is found', async () => {
    const { findImportedCard } = await import('../../src/api/import.js');
    const page1 = Array.from({ length: 100 }, (_, i) => ({ id: `c${i}`, referenceCode: `import:R-1${i}` }));
    server.enqueue(
      (_req, res) => envelope(res, page1, { pagination: { page: 1, limit: 100, total: 101, pages: 2 } }),
      (_req, res) => envelope(res, [{ id: 'target', referenceCode: 'import:R-1' }], { pagination: { page: 2, limit: 100, total: 101, pages: 2 } }),
    );
    expect(await findImportedCard(client(), 'R-1')).toMatchObject({ id: 'target' });
    expect(server.requests.map((r) => new URL(r.url, server.url).searchParams.get('page'))).toEqual(['1', '2']);
  });
});
