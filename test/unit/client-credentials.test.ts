import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importX509, jwtVerify, decodeProtectedHeader } from 'jose';
import { MockAgent } from 'undici';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import {
  CLIENT_ASSERTION_TYPE,
  loadPrivateKey,
  loginWithClientCredentials,
  signClientAssertion,
} from '../../src/api/client-credentials.js';
import { generateKeyAndCertificate } from '../../src/commands/oauth/keygen.js';
import { writeFileSync } from 'node:fs';
import { testContext } from '../helpers/context.js';

const BASE = 'http://127.0.0.1:4010';
let keyDir: string;
let keyPath: string;
let certPem: string;

beforeAll(async () => {
  keyDir = mkdtempSync(join(tmpdir(), 'cardctl-cc-'));
  const generated = await generateKeyAndCertificate({ bits: 2048, days: 10, subject: 'test-app' });
  keyPath = join(keyDir, 'private-key.pem');
  writeFileSync(keyPath, generated.privateKeyPem, { mode: 0o600 });
  certPem = generated.certificatePem;
  return () => rmSync(keyDir, { recursive: true, force: true });
});

const configDirs: string[] = [];
function configDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-cfg-'));
  configDirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of configDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface TokenCall {
  form: URLSearchParams;
  contentType: string;
  authorization?: string;
}

function tokenEndpoint(agent: MockAgent, calls: TokenCall[], options: { expiresIn?: number; times?: number } = {}) {
  agent.get(BASE).intercept({ path: '/oauth/token', method: 'POST' }).reply(200, (request) => {
    const headers = request.headers as Record<string, string>;
    calls.push({ form: new URLSearchParams(String(request.body)), contentType: headers['content-type'], authorization: headers.authorization });
    return { access_token: `token-${calls.length}`, token_type: 'Bearer', expires_in: options.expiresIn ?? 900, scope: 'read:card' };
  }).times(options.times ?? 10);
}

describe('signClientAssertion', () => {
  it('signs RS256 with iss = sub = client id, aud = token URL, a jti, and exp within 5 minutes', async () => {
    const key = await loadPrivateKey(keyPath);
    const jwt = await signClientAssertion({ clientId: 'client-123', tokenUrl: `${BASE}/oauth/token`, key });
    expect(decodeProtectedHeader(jwt).alg).toBe('RS256');
    const { payload } = await jwtVerify(jwt, await importX509(certPem, 'RS256'), {
      issuer: 'client-123', subject: 'client-123', audience: `${BASE}/oauth/token`, algorithms: ['RS256'],
    });
    expect(typeof payload.jti).toBe('string');
    expect(payload.exp! - payload.iat!).toBeGreaterThan(0);
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(5);
    const second = await signClientAssertion({ clientId: 'client-123', tokenUrl: `${BASE}/oauth/token`, key });
    const { payload: p2 } = await jwtVerify(second, await importX509(certPem, 'RS256'));
    expect(p2.jti).not.toBe(payload.jti);
  });

  it('a missing or unusable key file is a usage error', async () => {
    await expect(loadPrivateKey(join(keyDir, 'nope.pem'))).rejects.toThrow(/cannot read private key/);
    const bad = join(keyDir, 'bad.pem');
    writeFileSync(bad, certPem);
    await expect(loadPrivateKey(bad)).rejects.toThrow(/not a usable RSA private key/);
  });
});

describe('loginWithClientCredentials', () => {
  it('posts the assertion form-urlencoded and stores the key path, never the key', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const calls: TokenCall[] = [];
    tokenEndpoint(agent, calls);
    const dir = configDir();
    const ctx = testContext({ configDir: dir });
    const client = new ApiClient({ baseUrl: BASE, dispatcher: agent, retries: 0 });
    const result = await loginWithClientCredentials(ctx, { profileName: 'ci', baseUrl: BASE, clientId: 'client-123', privateKeyPath: keyPath, client });
    expect(result.token).toBe('token-1');
    expect(calls).toHaveLength(1);
    const { form, contentType, authorization } = calls[0]!;
    expect(contentType).toBe('application/x-www-form-urlencoded');
    expect(authorization).toBeUndefined();
    expect(form.get('grant_type')).toBe('client_credentials');
    expect(form.get('client_id')).toBe('client-123');
    expect(form.get('client_assertion_type')).toBe(CLIENT_ASSERTION_TYPE);
    await jwtVerify(form.get('client_assertion')!, await importX509(certPem, 'RS256'), { audience: `${BASE}/oauth/token`, issuer: 'client-123' });

    const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.ci;
    expect(stored).toMatchObject({ baseUrl: BASE, clientId: 'client-123', privateKeyPath: keyPath, tokenUrl: `${BASE}/oauth/token`, token: 'token-1' });
    expect(Date.parse(stored.tokenExpiresAt) - Date.now()).toBeGreaterThan(800_000);
    expect(JSON.stringify(stored)).not.toMatch(/PRIVATE KEY/);
  });

  it('a rejected assertion is an authentication error', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get(BASE).intercept({ path: '/oauth/token', method: 'POST' }).reply(401, { statusCode: 401, message: 'invalid client assertion', error: 'UNAUTHORIZED' });
    const ctx = testContext({ configDir: configDir() });
    const client = new ApiClient({ baseUrl: BASE, dispatcher: agent, retries: 0 });
    await expect(loginWithClientCredentials(ctx, { profileName: 'ci', baseUrl: BASE, clientId: 'x', privateKeyPath: keyPath, client }))
      .rejects.toMatchObject({ exitCode: 3 });
  });
});

describe('the access token (token-source.ts through the context)', () => {
  function profileContext(profile: Record<string, unknown>, env: Record<string, string> = {}) {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const dir = configDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentProfile: 'ci', profiles: { ci: { baseUrl: BASE, ...profile } } }), { mode: 0o600 });
    const ctx = testContext({ configDir: dir, dispatcher: agent, env });
    return { ctx, agent, dir };
  }

  it('CARDCTL_TOKEN wins', async () => {
    const { ctx } = profileContext({ clientId: 'c', privateKeyPath: keyPath, token: 'old', tokenExpiresAt: new Date(0).toISOString() }, { CARDCTL_TOKEN: 'from-env' });
    expect(await ctx.accessToken()).toBe('from-env');
  });

  it('a static token profile just returns its token', async () => {
    const { ctx } = profileContext({ token: 'static' });
    expect(await ctx.accessToken(true)).toBe('static');
  });

  it('keeps a fresh token, renews one that expires within 60 s and saves it to the profile', async () => {
    const calls: TokenCall[] = [];
    const fresh = profileContext({ clientId: 'c', privateKeyPath: keyPath, token: 'fresh', tokenExpiresAt: new Date(Date.now() + 600_000).toISOString() });
    tokenEndpoint(fresh.agent, calls);
    expect(await fresh.ctx.accessToken()).toBe('fresh');
    expect(calls).toHaveLength(0);

    const stale = profileContext({ clientId: 'c', privateKeyPath: keyPath, token: 'stale', tokenExpiresAt: new Date(Date.now() + 30_000).toISOString() });
    tokenEndpoint(stale.agent, calls);
    const getToken = stale.ctx.accessToken;
    const [a, b] = await Promise.all([getToken(), getToken()]);
    expect(a).toBe('token-1');
    expect(b).toBe('token-1');
    expect(calls).toHaveLength(1);
    expect(await getToken()).toBe('token-1');
    const saved = JSON.parse(readFileSync(join(stale.dir, 'config.json'), 'utf8')).profiles.ci;
    expect(saved.token).toBe('token-1');
    expect(Date.parse(saved.tokenExpiresAt)).toBeGreaterThan(Date.now() + 800_000);
  });

  it('the client renews once after a 401 and retries the request', async () => {
    const calls: TokenCall[] = [];
    const { ctx, agent } = profileContext({ clientId: 'c', privateKeyPath: keyPath, token: 'revoked', tokenExpiresAt: new Date(Date.now() + 600_000).toISOString() });
    tokenEndpoint(agent, calls);
    const pool = agent.get(BASE);
    pool.intercept({ path: '/institutions/cards', method: 'GET', headers: { authorization: 'Bearer revoked' } }).reply(401, { statusCode: 401, message: 'token expired', error: 'UNAUTHORIZED' });
    pool.intercept({ path: '/institutions/cards', method: 'GET', headers: { authorization: 'Bearer token-1' } }).reply(200, { statusCode: 200, message: 'ok', data: [] });
    const client = await ctx.client();
    const response = await client.request({ method: 'GET', path: '/institutions/cards' });
    expect(response.data).toEqual([]);
    expect(calls).toHaveLength(1);
  });
});
