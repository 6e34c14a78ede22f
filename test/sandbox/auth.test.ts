// Authentication and tenancy: bearer tokens, API keys, OAuth client credentials, and that
// another institution's ids answer 404.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, createCard, createCardBody, encryptPin, OpenApiChecker, startTestSandbox, type OpenApiPaths, type Sandbox, errorOf, fieldErrorsOf, type DataEnvelope, type ListDataEnvelope, type OpenApiAnswer } from './helpers.js';
import { clientAssertion, makeCertificate, type TestCertificate } from './oauth-helpers.js';
import type { Card, OAuthApplication, TokenResponse, SandboxInstitutionCredentials } from '../../src/api/schemas.js';

let sandbox: Sandbox;
let openapi: OpenApiChecker;
let certificate: TestCertificate;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  openapi = await OpenApiChecker.load(sandbox);
  certificate = makeCertificate();
});
afterAll(async () => {
  await sandbox?.close();
});

/** Every documented operation with a concrete path and a plausible body. */
async function operations(security: 'bearerAuth' | 'apiKey'): Promise<Array<{ method: string; path: string }>> {
  const { body } = await call<OpenApiAnswer>(sandbox, 'GET', '/openapi.json');
  const found: Array<{ method: string; path: string }> = [];
  for (const [template, methods] of Object.entries(body.paths as OpenApiPaths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (operation.security?.[0]?.[security]) {
        found.push({ method: method.toUpperCase(), path: template.replace(/\{[^}]+\}/g, 'x') });
      }
    }
  }
  return found;
}

describe('bearer routes', () => {
  test('without a token, with a wrong token, or with the API key as token: 401 in the envelope (before body validation)', async () => {
    const routes = await operations('bearerAuth');
    expect(routes.length).toBeGreaterThanOrEqual(17);
    for (const { method, path } of routes) {
      const body = method === 'GET' ? undefined : { clearly: 'invalid' };
      for (const options of [{}, { token: 'sbx_tok_not-a-real-token' }, { token: sandbox.apiKey }, { apiKey: sandbox.apiKey }, { headers: { authorization: `Basic ${sandbox.token}` } }]) {
        const response = await call(sandbox, method, path, { ...options, body });
        expect(response.status, `${method} ${path} ${JSON.stringify(options)}`).toBe(401);
        expect(response.body).toMatchObject({ statusCode: 401, error: 'UNAUTHORIZED', message: expect.any(String) });
      }
    }
  });

  test('the API key on a bearer route says so', async () => {
    const response = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards', { apiKey: sandbox.apiKey });
    expect(response.body.message).toMatch(/x-api-key/);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    openapi.expectMatches('GET', '/institutions/cards', response);
  });
});

describe('the API-key route', () => {
  test('a bearer token, no key or a wrong key on POST /util/cards/import is a 401', async () => {
    for (const options of [{ token: sandbox.token }, {}, { apiKey: 'sbx_key_wrong' }, { apiKey: sandbox.token }, { apiKey: sandbox.apiKey, token: sandbox.token }]) {
      const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/util/cards/import', { ...options, body: {} });
      expect(response.status, JSON.stringify(options)).toBe(401);
      expect(errorOf(response).error).toBe('UNAUTHORIZED');
    }
  });
});

describe('tenancy', () => {
  test("another institution's cards, programs, users and applications answer 404", async () => {
    const other = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Other Bank' } })).body.data;
    const card = await createCard(sandbox);
    const otherToken = other.token;
    const expiration = `${new Date().getUTCFullYear() + 2}01`;
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/institutions/cards/${card.id}/activate`],
      ['GET', `/institutions/cards/${card.id}/deactivate`],
      ['PUT', `/institutions/cards/${card.id}/renew`, { expiration, renewReason: 'RENEW' }],
      ['PUT', `/institutions/cards/pin/${card.id}/reset`, { newPIN: encryptPin(sandbox, '1111') }],
      ['PUT', `/institutions/cards/pin/${card.id}/change`, { oldPIN: encryptPin(sandbox, '1234'), newPIN: encryptPin(sandbox, '1111') }],
      ['PUT', `/institutions/cards/${card.id}/customer`, {
        firstName: 'A', middleName: '', lastName: 'B', emailAddress: 'a@b.co', phoneNumber: '+15550100', dateOfBirth: '2000-01-01T00:00:00.000Z',
        address: { line1: '', line2: '', city: '', state: '', country: '', postalCode: '' },
      }],
      ['PUT', `/institutions/users/${sandbox.userId}/update`, {
        firstName: 'A', lastName: 'B', emailAddress: 'a@b.co', phoneNumber: '+15550100', status: 'active', isBlocked: false, roles: [],
      }],
      ['PUT', `/sandbox/card-programs/${sandbox.cardProgramId}`, { name: 'taken' }],
    ];
    for (const [method, path, body] of attempts) {
      const response = await call(sandbox, method, path, { token: otherToken, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(errorOf(response).error).toBe('NOT_FOUND');
    }
    // Creating a card on another institution's program is a 404 as well.
    const create = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: otherToken, body: createCardBody(sandbox) });
    expect(create.status).toBe(404);
    // Lists show only the caller's records.
    const list = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${card.id}`, { token: otherToken });
    expect(list.body.data).toEqual([]);
    // And the card is unchanged for its owner.
    const mine = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${card.id}`, { token: sandbox.token });
    expect(mine.body.data[0]).toMatchObject({ status: 'active', pinAttempts: 0, __v: 0 });
  });

  test('the same referenceCode may be used by two institutions', async () => {
    const other = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: {} })).body.data;
    const body = createCardBody(sandbox);
    expect((await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body })).status).toBe(201);
    const theirs = { ...body, cardProgram: other.cardProgramId, defaultPIN: encryptPin(sandbox, '1234') };
    expect((await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: other.token, body: theirs })).status).toBe(201);
  });
});

describe('POST /oauth/token (client credentials)', () => {
  let clientId: string;
  const audience = () => `${sandbox.baseUrl}/oauth/token`;

  beforeAll(async () => {
    const created = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', {
      token: sandbox.token,
      body: { name: 'Ledger sync', publicKey: certificate.certificatePem, scopes: ['read:card', 'create:card'], grantType: 'client_credentials' },
    });
    expect(created.status, created.text).toBe(201);
    clientId = created.body.data.institutionId;
  });

  async function exchange(assertion: string, form = true, overrides: Record<string, string> = {}) {
    const fields = {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
      ...overrides,
    };
    return form
      ? call<TokenResponse>(sandbox, 'POST', '/oauth/token', { rawBody: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded' })
      : call<TokenResponse>(sandbox, 'POST', '/oauth/token', { body: fields });
  }

  test('a valid assertion (form or JSON) gets a bearer token acting for the institution', async () => {
    for (const form of [true, false]) {
      const assertion = await clientAssertion({ clientId, audience: audience(), privateKeyPem: certificate.privateKeyPem });
      const response = await exchange(assertion, form);
      expect(response.status, response.text).toBe(200);
      openapi.expectMatches('POST', '/oauth/token', response);
      expect(response.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'read:card create:card' });
      expect(response.headers['cache-control']).toBe('no-store');
      const card = await createCard(sandbox, {}, response.body.access_token);
      expect(card.institution).toBe(sandbox.institutionId);
    }
  });

  test('a reused jti is refused', async () => {
    const assertion = await clientAssertion({ clientId, audience: audience(), privateKeyPem: certificate.privateKeyPem, jti: 'once-only' });
    expect((await exchange(assertion)).status).toBe(200);
    const replay = await exchange(assertion);
    expect(replay.status).toBe(401);
    expect(errorOf(replay).message).toMatch(/already used/);
  });

  test.each([
    ['a wrong audience', { audience: 'http://elsewhere/oauth/token' }],
    ['a wrong issuer', { issuer: 'someone-else' }],
    ['a wrong subject', { subject: 'someone-else' }],
    ['no exp', { omitExp: true }],
    ['an exp more than 5 minutes ahead', { expiresInSeconds: 3600 }],
    ['an expired assertion', { expiresInSeconds: -120 }],
  ])('%s is refused with 401', async (_name, options) => {
    const assertion = await clientAssertion({ clientId, audience: audience(), privateKeyPem: certificate.privateKeyPem, ...options });
    const response = await exchange(assertion);
    expect(response.status).toBe(401);
    expect(errorOf(response).error).toBe('UNAUTHORIZED');
  });

  test('an assertion signed by another key, an unknown client, a bad grant or assertion type are refused', async () => {
    const stranger = makeCertificate('stranger');
    const forged = await clientAssertion({ clientId, audience: audience(), privateKeyPem: stranger.privateKeyPem });
    expect((await exchange(forged)).status).toBe(401);
    const valid = await clientAssertion({ clientId, audience: audience(), privateKeyPem: certificate.privateKeyPem });
    expect((await exchange(valid, true, { client_id: 'cli_unknown' })).status).toBe(401);
    expect((await exchange(valid, true, { grant_type: 'password' })).status).toBe(400);
    expect((await exchange(valid, true, { client_assertion_type: 'secret' })).status).toBe(400);
    const missing = await call<TokenResponse>(sandbox, 'POST', '/oauth/token', { rawBody: 'grant_type=client_credentials', contentType: 'application/x-www-form-urlencoded' });
    expect(missing.status).toBe(400);
    expect(fieldErrorsOf(missing).map((e: { field: string }) => e.field).sort()).toEqual(['client_assertion', 'client_assertion_type', 'client_id']);
  });

  test('an authorization_code application cannot use client credentials', async () => {
    const created = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', {
      token: sandbox.token,
      body: { name: 'Web app', publicKey: certificate.certificatePem, scopes: ['read:card'], grantType: 'authorization_code', redirectUri: ['https://app.example/cb'] },
    });
    const id = created.body.data.institutionId;
    const assertion = await clientAssertion({ clientId: id, audience: audience(), privateKeyPem: certificate.privateKeyPem });
    const response = await call<TokenResponse>(sandbox, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: id, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion },
    });
    expect(response.status).toBe(401);
  });

  test('tokens expire after --token-ttl', async () => {
    const short = await startTestSandbox({ tokenTtlSeconds: 1 });
    try {
      const created = await call<DataEnvelope<OAuthApplication>>(short, 'POST', '/institutions/oauth/create', {
        token: short.token,
        body: { name: 'Short', publicKey: certificate.certificatePem, scopes: ['*'], grantType: 'client_credentials' },
      });
      const id = created.body.data.institutionId;
      const assertion = await clientAssertion({ clientId: id, audience: `${short.baseUrl}/oauth/token`, privateKeyPem: certificate.privateKeyPem });
      const token = await call<TokenResponse>(short, 'POST', '/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: id, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion },
      });
      expect(token.body.expires_in).toBe(1);
      expect((await call<ListDataEnvelope<Card>>(short, 'GET', '/institutions/cards', { token: token.body.access_token })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const expired = await call<ListDataEnvelope<Card>>(short, 'GET', '/institutions/cards', { token: token.body.access_token });
      expect(expired.status).toBe(401);
      expect(expired.body.message).toMatch(/expired/);
      // The seeded token does not expire.
      expect((await call<ListDataEnvelope<Card>>(short, 'GET', '/institutions/cards', { token: short.token })).status).toBe(200);
    } finally {
      await short.close();
    }
  });
});
