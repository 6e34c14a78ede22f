// The ingress rule (src/sandbox/ingress.ts), swept over every route the server registered (the
// inspector's page, assets, reads and event stream included): a foreign Host, a foreign or null
// Origin and, on /sandbox/*, a caller off this machine are refused before any route runs; a
// state-changing /sandbox/* request without a JSON body or a credential header is a 415. Then the
// attacks as a browser page would make them, over a real socket.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkInterfaces } from 'node:os';
import { parseFaultSpec } from '../../src/sandbox/faults.js';
import { call, startTestSandbox, type Sandbox, type DataEnvelope, type ClockAnswer, type WebhookFaultState } from './helpers.js';
import type { SandboxInstitutionCredentials } from '../../src/api/schemas.js';

let sandbox: Sandbox;
let host: string;
let token: string;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  host = new URL(sandbox.baseUrl).host;
  token = new URL(sandbox.inspectorUrl).searchParams.get('token')!;
});
afterAll(() => sandbox.close());

const FOREIGN = 'rebind.attacker.example';
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Every route, each `:param` filled in; the inspector's with its token (so only ingress can refuse them). */
function everyRoute(): Array<{ method: string; url: string; pattern: string }> {
  return sandbox.routes
    .filter((route) => route.method !== 'HEAD')
    .map((route) => {
      const url = route.url.replace(/:[A-Za-z0-9_]+/g, 'x');
      return { method: route.method, pattern: route.url, url: route.url.startsWith('/sandbox/inspector') ? `${url}?token=${token}` : url };
    });
}

type InjectOptions = { headers?: Record<string, string>; remoteAddress?: string; payload?: string };

function inject(method: string, url: string, options: InjectOptions = {}) {
  const body = options.payload ?? (SAFE.has(method) ? undefined : '{}');
  return sandbox.server.inject({
    method: method as 'GET',
    url,
    remoteAddress: options.remoteAddress ?? '127.0.0.1',
    headers: { host, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
    ...(body !== undefined ? { payload: body } : {}),
  });
}

/** An answer from the ingress rule (not from the route behind it). */
const refusedByIngress = (response: { statusCode: number; body: string }) =>
  response.statusCode === 403 && /Host header|web page at|only loopback callers|only callers on this machine/.test(response.body);

describe('every registered route', () => {
  it('is found: the API, the helpers, and the inspector (page, assets, reads, event stream, replay)', () => {
    const patterns = everyRoute().map((route) => `${route.method} ${route.pattern}`);
    expect(patterns.length).toBeGreaterThan(40);
    expect(patterns).toEqual(expect.arrayContaining([
      'POST /sandbox/institutions', 'POST /sandbox/switch/advices/deliver', 'PUT /sandbox/webhook-faults', 'GET /sandbox/inspector',
      'GET /sandbox/inspector/events', 'POST /sandbox/inspector/webhook-exchanges/:id/replay', 'GET /openapi.json', 'POST /oauth/token',
    ]));
  });

  it('answers its own Host and Origin (the control: nothing below is refused for another reason)', async () => {
    for (const { method, url } of everyRoute()) {
      if (url.startsWith('/sandbox/inspector/events')) continue; // a stream: it would not end
      const own = await inject(method, url, { headers: { origin: `http://${host}` } });
      expect(refusedByIngress(own), `${method} ${url}: ${own.body}`).toBe(false);
      expect(own.statusCode, `${method} ${url}`).not.toBe(415);
      for (const name of ['localhost', '127.0.0.1']) {
        const other = await inject(method, url, { headers: { host: `${name}:${new URL(sandbox.baseUrl).port}` } });
        expect(refusedByIngress(other), `${method} ${url} as ${name}`).toBe(false);
      }
    }
  });

  it('refuses a foreign Host, the right port with another name or the right name with another port', async () => {
    const port = Number(new URL(sandbox.baseUrl).port);
    for (const { method, url } of everyRoute()) {
      for (const foreign of [`${FOREIGN}:${port}`, FOREIGN, `127.0.0.1.${FOREIGN}:${port}`, `127.0.0.1:${port + 1}`, `localhost:${port}@${FOREIGN}`, '']) {
        const response = await inject(method, url, { headers: { host: foreign } });
        expect(response.statusCode, `${method} ${url} Host: ${foreign}`).toBe(403);
        expect(response.json()).toMatchObject({ error: 'FORBIDDEN', message: expect.stringMatching(/Host header/) });
      }
    }
  });

  it('refuses before anything else answers: an injected fault never answers a foreign caller', async () => {
    sandbox.faults.set(parseFaultSpec('rate=1,codes=503'));
    try {
      const foreign = await inject('GET', '/institutions/cards', { headers: { host: `${FOREIGN}:${new URL(sandbox.baseUrl).port}`, authorization: `Bearer ${sandbox.token}` } });
      expect(foreign.statusCode).toBe(403);
      const own = await inject('GET', '/institutions/cards', { headers: { authorization: `Bearer ${sandbox.token}` } });
      expect(own.statusCode).toBe(503);
    } finally {
      sandbox.faults.set(parseFaultSpec(''));
    }
  });

  it('refuses a foreign Origin and the null origin', async () => {
    for (const { method, url } of everyRoute()) {
      for (const origin of [`http://${FOREIGN}:${new URL(sandbox.baseUrl).port}`, `http://${FOREIGN}`, 'null', `https://${host}`]) {
        const response = await inject(method, url, { headers: { origin } });
        expect(response.statusCode, `${method} ${url} Origin: ${origin}`).toBe(403);
        expect(response.json().message, `${method} ${url}`).toMatch(/web page at/);
      }
    }
  });

  it('/sandbox/* refuses callers off this machine; the inspector even when the helpers are published', async () => {
    for (const { method, url, pattern } of everyRoute()) {
      const remote = await inject(method, url, { remoteAddress: '192.0.2.7' });
      if (pattern.startsWith('/sandbox/')) expect(refusedByIngress(remote), `${method} ${url}`).toBe(true);
      else expect(refusedByIngress(remote), `${method} ${url}`).toBe(false);
    }
    sandbox.deps.settings.allowRemoteSandboxHelpers = true;
    try {
      for (const { method, url, pattern } of everyRoute()) {
        if (url.startsWith('/sandbox/inspector/events')) continue;
        const remote = await inject(method, url, { remoteAddress: '192.0.2.7' });
        expect(refusedByIngress(remote), `${method} ${url}`).toBe(pattern.startsWith('/sandbox/inspector'));
      }
    } finally {
      sandbox.deps.settings.allowRemoteSandboxHelpers = false;
    }
  });

  it('a state-changing /sandbox/* request without a JSON body or a credential header is a 415', async () => {
    const changing = everyRoute().filter((route) => !SAFE.has(route.method) && route.pattern.startsWith('/sandbox/'));
    expect(changing.length).toBeGreaterThan(10);
    for (const { method, url } of changing) {
      // What a page may send elsewhere without a preflight: no body, text/plain, a form.
      for (const [type, payload] of [[undefined, ''], ['text/plain', '{}'], ['application/x-www-form-urlencoded', 'a=1'], ['multipart/form-data; boundary=x', '--x--']] as const) {
        const headers: Record<string, string> = { host };
        if (type) headers['content-type'] = type;
        const response = await sandbox.server.inject({ method: method as 'POST', url, remoteAddress: '127.0.0.1', headers, ...(payload ? { payload } : {}) });
        expect(response.statusCode, `${method} ${url} ${type ?? 'no body'}`).toBe(415);
        expect(response.json()).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringMatching(/takes a JSON body/) });
      }
    }
  });
});

describe('published on purpose (sandbox serve --host)', () => {
  it('accepts the bound address, or every address of this machine when bound to a wildcard; never a foreign name', async () => {
    const settings = sandbox.deps.settings;
    const before = { ...settings };
    Object.assign(settings, { allowRemoteSandboxHelpers: true, bindHost: '0.0.0.0' });
    try {
      const addresses = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []).map((entry) => (entry.family === 'IPv6' ? `[${entry.address}]` : entry.address));
      for (const address of addresses.filter((a) => !a.includes('%'))) {
        const response = await inject('GET', '/sandbox/health', { headers: { host: `${address}:8080` }, remoteAddress: '192.0.2.7' });
        expect(response.statusCode, address).toBe(200);
      }
      expect((await inject('GET', '/sandbox/health', { headers: { host: `${FOREIGN}:8080` } })).statusCode).toBe(403);
      Object.assign(settings, { bindHost: '192.0.2.1' });
      expect((await inject('GET', '/sandbox/health', { headers: { host: '192.0.2.1:4010' } })).statusCode).toBe(200);
      expect((await inject('GET', '/sandbox/health', { headers: { host: '192.0.2.2:4010' } })).statusCode).toBe(403);
    } finally {
      Object.assign(settings, before);
    }
  });
});

describe('the attacks, over a real socket', () => {
  const port = () => new URL(sandbox.baseUrl).port;

  it('POST /sandbox/institutions with a rebound Host: 403, no institution made', async () => {
    const institutions = () => (sandbox.deps.store.db.prepare('SELECT count(*) AS n FROM institutions').get() as { n: number }).n;
    const before = institutions();
    const response = await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: {}, headers: { host: `${FOREIGN}:${port()}` }, skipOpenApiCheck: true });
    expect(response.status).toBe(403);
    expect(response.text).not.toMatch(/token/);
    expect(institutions()).toBe(before);
  });

  it('a bodiless cross-origin POST /sandbox/switch/advices/deliver: 403; bodiless from no page at all: 415', async () => {
    const crossOrigin = await call<{ delivered: number; pending: number }>(sandbox, 'POST', '/sandbox/switch/advices/deliver', { headers: { origin: `http://${FOREIGN}` }, skipOpenApiCheck: true });
    expect(crossOrigin.status).toBe(403);
    const bodiless = await call<{ delivered: number; pending: number }>(sandbox, 'POST', '/sandbox/switch/advices/deliver', { skipOpenApiCheck: true });
    expect(bodiless.status).toBe(415);
    expect((await call<{ delivered: number; pending: number }>(sandbox, 'POST', '/sandbox/switch/advices/deliver', { body: {} })).status).toBe(200);
  });

  it('the inspector page and its event stream refuse a rebound Host', async () => {
    for (const path of [`/sandbox/inspector?token=${token}`, `/sandbox/inspector/events?token=${token}`]) {
      const response = await request(`${sandbox.baseUrl}${path}`, { headers: { host: `${FOREIGN}:${port()}` } });
      expect(response.statusCode, path).toBe(403);
      await response.body.dump();
    }
  });

  it('a page cannot put the clock forward or install webhook faults with a simple request', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const faults = (await call<WebhookFaultState>(sandbox, 'GET', '/sandbox/webhook-faults', { token: sandbox.token })).body.spec;
    expect(faults).toBeTypeOf('string');
    const clock = (await call<ClockAnswer>(sandbox, 'GET', '/sandbox/switch/clock')).body.offsetSeconds;
    expect((await call<ClockAnswer>(sandbox, 'POST', '/sandbox/switch/clock', { rawBody: 'advanceSeconds=86400', headers: form, skipOpenApiCheck: true })).status).toBe(415);
    expect((await call<WebhookFaultState>(sandbox, 'PUT', '/sandbox/webhook-faults', { rawBody: '{"reset":1}', headers: { 'content-type': 'text/plain' }, skipOpenApiCheck: true })).status).toBe(415);
    expect((await call<WebhookFaultState>(sandbox, 'GET', '/sandbox/webhook-faults', { token: sandbox.token })).body.spec).toBe(faults);
    expect((await call<ClockAnswer>(sandbox, 'GET', '/sandbox/switch/clock')).body.offsetSeconds).toBe(clock);
  });
});
