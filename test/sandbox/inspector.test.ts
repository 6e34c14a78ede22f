// The live inspector's server side, in process: the token on the page, its reads and its event
// stream; loopback only even when the helpers are open to other machines; the event stream's
// bounds (streams at most, slow clients dropped, heartbeats) and a close that never waits on it.
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transaction, WebhookExchange, Lifecycle } from '../../src/api/schemas.js';
import { APPROVED_CODES } from '../../src/iso8583/codes.js';
import { createSandboxEvents } from '../../src/sandbox/events.js';
import { createInspectorAccess, createInspectorFeed, type InspectorLimits } from '../../src/sandbox/services/inspector.js';
import { call, createCard, startTestSandbox, type Sandbox, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { auth, simulate } from './switch-helpers.js';
import { present } from '../helpers/json.js';

let sandbox: Sandbox;
let token: string;
let transaction: Transaction;

const inspect = <T = unknown>(path: string, headers: Record<string, string> = {}) => call<T>(sandbox, 'GET', path, { headers, skipOpenApiCheck: true });

function exchangeOf(tx: Transaction, overrides: Partial<WebhookExchange> = {}): WebhookExchange {
  return {
    id: `wx_${tx.id}`, at: new Date().toISOString(), transactionId: tx.id, originalId: null, cardId: tx.card?.id ?? null,
    kind: 'authorization', mti: '0100', attempt: 1, replayOf: null, signatureScheme: 'cardctl',
    request: { method: 'POST', url: 'http://127.0.0.1:9/hook', headers: { 'x-webhook-signature': '[redacted]' }, body: { 0: '0100', 2: tx.cardData.pan } },
    response: { status: 500, headers: {}, body: '<img src=x onerror=alert(1)>', truncated: false },
    latencyMs: 3, verdict: 'refused', reason: 'the reply is not JSON', responseCode: null, faults: [],
    ...overrides,
  };
}

/** An open event stream: every chunk read so far, and a way to wait for some text. */
async function openStream(url: string): Promise<{ response: IncomingMessage; text(): string; waitFor(part: string): Promise<void>; ended: Promise<void> }> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => get(url, resolve).on('error', reject));
  let text = '';
  const waiters: Array<() => void> = [];
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => { text += chunk; waiters.splice(0).forEach((wake) => wake()); });
  const ended = new Promise<void>((resolve) => { response.on('end', resolve); response.on('close', resolve); });
  const waitFor = async (part: string) => {
    const deadline = Date.now() + 5_000;
    while (!text.includes(part)) {
      if (Date.now() > deadline) throw new Error(`no "${part}" in the stream: ${text}`);
      await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 100); });
    }
  };
  return { response, text: () => text, waitFor, ended };
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  token = new URL(sandbox.inspectorUrl).searchParams.get('token')!;
  const card = await createCard(sandbox);
  const simulated = await simulate(sandbox, auth(card.id, { amount: 12.5 }));
  expect(simulated.status, simulated.text).toBe(200);
  const stored = await call<DataEnvelope<Transaction>>(sandbox, 'GET', `/institutions/transactions/${simulated.body.data.transactionId}`, { token: sandbox.token });
  transaction = stored.body.data;
});
afterAll(async () => sandbox?.close());

describe('the inspector page', () => {
  it('is served with its token, under a strict Content-Security-Policy; without it or with another, 401', async () => {
    expect(sandbox.inspectorUrl).toMatch(new RegExp(`^${sandbox.baseUrl}/sandbox/inspector\\?token=insp_[A-Za-z0-9_-]{43}$`));
    const page = await call(sandbox, 'GET', `/sandbox/inspector?token=${token}`, { skipOpenApiCheck: true });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'self';/);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.text).toContain('<script src="/sandbox/inspector/client.js" defer></script>');
    expect(page.text).not.toMatch(/https?:\/\//);
    for (const path of ['/sandbox/inspector', '/sandbox/inspector?token=', `/sandbox/inspector?token=${token.slice(0, -1)}x`, `/sandbox/inspector?token=${token}x`]) {
      const refused = await call(sandbox, 'GET', path, { skipOpenApiCheck: true });
      expect(refused.status, path).toBe(401);
      expect(refused.text).toContain('open the inspector with the link');
      expect(refused.text).not.toContain(token);
    }
  });

  it('serves its script and style without the token (they hold no data), with the same policy', async () => {
    for (const [name, type] of [['client.js', /^text\/javascript/], ['inspector.css', /^text\/css/]] as const) {
      const asset = await inspect(`/sandbox/inspector/${name}`);
      expect(asset.status).toBe(200);
      expect(asset.headers['content-type']).toMatch(type);
      expect(asset.headers['content-security-policy']).toMatch(/^default-src 'self';/);
    }
    const script = (await inspect('/sandbox/inspector/client.js')).text;
    // Records are untrusted text: the page never parses them as markup.
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  it('marks approvals by the one rule: the page carries isApproved\'s codes, and its script keeps no list of its own', async () => {
    const page = await call(sandbox, 'GET', `/sandbox/inspector?token=${token}`, { skipOpenApiCheck: true });
    const codes = /<body data-approved-codes="([^"]*)">/.exec(page.text)?.[1]?.split(' ');
    expect(codes?.sort()).toEqual([...APPROVED_CODES].sort());
    // 11 (VIP) and 08 are approvals the page once showed as failed.
    expect(codes).toEqual(expect.arrayContaining(['00', '08', '10', '11']));
    const script = (await inspect('/sandbox/inspector/client.js')).text;
    expect(script).toContain('dataset.approvedCodes');
    expect(script.match(new RegExp(`'(?:${[...APPROVED_CODES].join('|')})'`, 'g')) ?? []).toEqual([]);
  });

  it('answers only loopback callers, even when the sandbox helpers are open to other machines', async () => {
    sandbox.deps.settings.allowRemoteSandboxHelpers = true;
    try {
      const remote = { remoteAddress: '192.0.2.7', headers: { host: new URL(sandbox.baseUrl).host } };
      expect((await sandbox.server.inject({ method: 'GET', url: '/sandbox/health', ...remote })).statusCode).toBe(200);
      for (const url of [`/sandbox/inspector?token=${token}`, '/sandbox/inspector/client.js', `/sandbox/inspector/events?token=${token}`]) {
        const refused = await sandbox.server.inject({ method: 'GET', url, ...remote });
        expect(refused.statusCode, url).toBe(403);
      }
      const read = await sandbox.server.inject({ method: 'GET', url: '/sandbox/inspector/transactions', ...remote, headers: { ...remote.headers, 'x-inspector-token': token } });
      expect(read.statusCode).toBe(403);
    } finally {
      sandbox.deps.settings.allowRemoteSandboxHelpers = false;
    }
  });
});

describe("the page's reads", () => {
  it('need the token: the recent transactions of the seeded institution, newest first, and a lifecycle', async () => {
    expect((await inspect('/sandbox/inspector/transactions')).status).toBe(401);
    expect((await inspect('/sandbox/inspector/transactions', { 'x-inspector-token': 'insp_wrong' })).status).toBe(401);
    const listed = await inspect<DataEnvelope<Transaction[]>>('/sandbox/inspector/transactions?limit=5', { 'x-inspector-token': token });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((tx: Transaction) => tx.id)).toContain(transaction.id);
    expect(present(listed.body.data[0], 'the newest transaction').cardData.pan).toMatch(/^\d{6}\*+\d{4}$/);
    const life = await inspect<DataEnvelope<Lifecycle>>(`/sandbox/inspector/transactions/${transaction.id}/lifecycle`, { 'x-inspector-token': token });
    expect(life.status).toBe(200);
    expect(life.body.data).toMatchObject({ originalTransactionId: transaction.id, amounts: { authorized: 12.5, held: 12.5 } });
    expect((await inspect('/sandbox/inspector/transactions/nope/lifecycle', { 'x-inspector-token': token })).status).toBe(404);
  });

  it('ask the exchange log in the seeded institution\'s name, and need the token for it too', async () => {
    expect((await inspect('/sandbox/inspector/webhook-exchanges')).status).toBe(401);
    const replay = await call(sandbox, 'POST', '/sandbox/inspector/webhook-exchanges/wx_unknown/replay', { body: {}, skipOpenApiCheck: true });
    expect(replay.status).toBe(401);
    // The answer is the exchange log's own, whatever it is (404 for an unknown exchange).
    const forwarded = await call(sandbox, 'POST', '/sandbox/inspector/webhook-exchanges/wx_unknown/replay', { body: {}, headers: { 'x-inspector-token': token }, skipOpenApiCheck: true });
    const direct = await call<DataEnvelope<WebhookExchange>>(sandbox, 'POST', '/sandbox/webhook-exchanges/wx_unknown/replay', { body: {}, token: sandbox.token, skipOpenApiCheck: true });
    expect(forwarded.status).toBe(direct.status);
    expect(forwarded.status).toBe(404);
  });

  it('list the exchange log as its own route does: the same page, the link\'s token allowed beside its query, a bad query refused alike', async () => {
    const viaInspector = await inspect(`/sandbox/inspector/webhook-exchanges?limit=5&failed=true&token=${encodeURIComponent(token)}`);
    const direct = await call<ListDataEnvelope<WebhookExchange>>(sandbox, 'GET', '/sandbox/webhook-exchanges?limit=5&failed=true', { token: sandbox.token, skipOpenApiCheck: true });
    expect(viaInspector.status).toBe(200);
    expect(viaInspector.body).toEqual(direct.body);
    const bad = await inspect('/sandbox/inspector/webhook-exchanges?limit=0', { 'x-inspector-token': token });
    expect(bad.status).toBe(400);
    expect(bad.status).toBe((await call<ListDataEnvelope<WebhookExchange>>(sandbox, 'GET', '/sandbox/webhook-exchanges?limit=0', { token: sandbox.token, skipOpenApiCheck: true })).status);
  });
});

describe('the event stream', () => {
  it('needs the token, then sends the seeded institution\'s transactions and exchanges as they happen', async () => {
    expect((await inspect('/sandbox/inspector/events')).status).toBe(401);
    const stream = await openStream(`${sandbox.baseUrl}/sandbox/inspector/events?token=${token}`);
    try {
      expect(stream.response.statusCode).toBe(200);
      expect(stream.response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      await stream.waitFor(': open');
      const other = { ...transaction, id: 'other-institution-tx', institution: { ...transaction.institution, id: 'someone-else' } };
      sandbox.deps.events.emit('transaction', other);
      sandbox.deps.events.emit('exchange', exchangeOf(transaction));
      sandbox.deps.events.emit('exchange', exchangeOf(transaction, { id: 'wx_other', cardId: 'a-card-of-someone-else' }));
      sandbox.deps.events.emit('transaction', transaction);
      await stream.waitFor(`"id":"${transaction.id}"`);
      const events = stream.text().split('\n\n').filter((frame) => frame.startsWith('event: '));
      expect(events.map((frame) => frame.split('\n')[0])).toEqual(['event: exchange', 'event: transaction']);
      expect(JSON.parse(events[0]!.split('\n')[1]!.slice('data: '.length))).toMatchObject({ id: `wx_${transaction.id}`, verdict: 'refused' });
      expect(stream.text()).not.toContain('other-institution-tx');
      expect(stream.text()).not.toContain('wx_other');
    } finally {
      stream.response.destroy();
    }
  });

  it('allows 16 streams at once, then 429; a closed stream frees its place', async () => {
    const url = `${sandbox.baseUrl}/sandbox/inspector/events?token=${token}`;
    const streams = await Promise.all(Array.from({ length: 16 }, () => openStream(url)));
    try {
      expect(streams.every((stream) => stream.response.statusCode === 200)).toBe(true);
      const refused = await inspect(`/sandbox/inspector/events?token=${token}`);
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      streams.pop()!.response.destroy();
      await expect.poll(async () => {
        const again = await openStream(url);
        again.response.destroy();
        return again.response.statusCode;
      }).toBe(200);
    } finally {
      streams.forEach((stream) => stream.response.destroy());
    }
  });

  it('ends open streams when the sandbox closes, and the close does not wait for them', async () => {
    const other = await startTestSandbox();
    const url = other.inspectorUrl.replace('/sandbox/inspector?', '/sandbox/inspector/events?');
    const streams = await Promise.all([openStream(url), openStream(url)]);
    await streams[0]!.waitFor(': open');
    const started = Date.now();
    await other.close();
    await Promise.all(streams.map((stream) => stream.ended));
    // Well under the 5 s after which close() cuts the connections that are still open.
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});

describe('the feed', () => {
  let server: Server;
  const events = createSandboxEvents();
  const limits: InspectorLimits = { maxStreams: 4, heartbeatMs: 50, maxBufferedBytes: 64 * 1024 };
  const feed = createInspectorFeed(events, { transaction: () => true, exchange: () => true }, limits);
  let url = '';

  beforeAll(async () => {
    server = createServer((_request, response) => feed.open(response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    feed.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends a heartbeat comment while nothing happens', async () => {
    const stream = await openStream(url);
    try {
      await stream.waitFor(': heartbeat\n\n');
    } finally {
      stream.response.destroy();
    }
  });

  it('drops a client that does not read rather than buffer for it without bound, and keeps serving the others', async () => {
    const slow = await openStream(url);
    slow.response.pause();
    const reader = await openStream(url);
    const big = exchangeOf(transaction, { response: { status: 200, headers: {}, body: 'x'.repeat(100_000), truncated: false } });
    for (let i = 0; i < 400 && feed.size() === 2; i++) {
      events.emit('exchange', { ...big, id: `wx_${i}` });
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(feed.size()).toBe(1);
    events.emit('exchange', { ...big, id: 'wx_after' });
    await reader.waitFor('"id":"wx_after"');
    reader.response.destroy();
    slow.response.destroy();
    await expect.poll(() => feed.size()).toBe(0);
    expect(events.listenerCount('exchange')).toBe(0);
  });

  it('compares tokens in constant time and admits only the one it made', () => {
    const access = createInspectorAccess();
    expect(access.token).toMatch(/^insp_[A-Za-z0-9_-]{43}$/);
    expect(access.admits(access.token)).toBe(true);
    for (const wrong of [undefined, '', `${access.token} `, access.token.toUpperCase(), ['x'], createInspectorAccess().token]) expect(access.admits(wrong)).toBe(false);
  });
});
