// The HTTP surface: error envelope for unknown routes, malformed, oversized and mistyped
// bodies; /openapi.json is valid OpenAPI and covers every endpoint; sandbox helpers.
import { createHash, createPublicKey } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, createCardBody, OpenApiChecker, startTestSandbox, type OpenApiPaths, type Sandbox, errorOf, fieldErrorsOf, type DataEnvelope, type OpenApiAnswer } from './helpers.js';
import { present } from '../helpers/json.js';
import type { SandboxHealth, SandboxInstitutionCredentials, Card, CardProgram, PinKeyInfo } from '../../src/api/schemas.js';

let sandbox: Sandbox;
let openapi: OpenApiChecker;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  openapi = await OpenApiChecker.load(sandbox);
});
afterAll(async () => {
  await sandbox?.close();
});

const ERROR_KEYS = ['error', 'message', 'statusCode'];

describe('errors in the envelope', () => {
  test('unknown routes are a 404 envelope', async () => {
    const response = await call(sandbox, 'GET', '/institutions/nothing-here?token=abc', { token: sandbox.token });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ statusCode: 404, message: 'no such endpoint: GET /institutions/nothing-here', error: 'NOT_FOUND' });
    const wrongMethod = await call(sandbox, 'DELETE', '/institutions/cards', { token: sandbox.token });
    expect(wrongMethod.status).toBe(404);
    expect(errorOf(wrongMethod).error).toBe('NOT_FOUND');
  });

  test('malformed JSON is a 400', async () => {
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, rawBody: '{"cardProgram": ' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR', errors: [{ field: 'body', message: 'is not valid JSON' }] });
    openapi.expectMatches('POST', '/institutions/cards', response);
  });

  test('an empty JSON body is a 400, a JSON array body is a 400', async () => {
    const empty = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, rawBody: '' });
    expect(empty.status).toBe(400);
    expect(errorOf(empty).error).toBe('VALIDATION_ERROR');
    const array = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, rawBody: '[]' });
    expect(array.status).toBe(400);
    expect(fieldErrorsOf(array)).toContainEqual({ field: 'body', message: 'must be an object' });
  });

  test('a wrong content type is a 415', async () => {
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', {
      token: sandbox.token, rawBody: JSON.stringify(createCardBody(sandbox)), contentType: 'text/plain',
    });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ statusCode: 415, error: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(Object.keys(response.body).sort()).toEqual(ERROR_KEYS);
    const form = await call<DataEnvelope<Card>>(sandbox, 'PUT', '/institutions/cards/x/renew', {
      token: sandbox.token, rawBody: 'expiration=203001&renewReason=RENEW', contentType: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
  });

  test('a body over 1 MiB is a 413 in the envelope', async () => {
    const body = createCardBody(sandbox, { embossingName: 'x'.repeat(1024 * 1024) });
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ statusCode: 413, error: 'PAYLOAD_TOO_LARGE' });
    openapi.expectMatches('POST', '/institutions/cards', response);
  });

  test('a body just under the limit is parsed (and then validated)', async () => {
    const body = createCardBody(sandbox, { embossingName: 'x'.repeat(1000 * 1000) });
    const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body });
    expect(response.status).toBe(400);
    expect(fieldErrorsOf(response)[0].field).toBe('embossingName');
  });
});

describe('/openapi.json', () => {
  test('is a valid OpenAPI 3 document', async () => {
    const response = await call<OpenApiAnswer>(sandbox, 'GET', '/openapi.json');
    expect(response.status).toBe(200);
    const validator = new Validator();
    const result = await validator.validate(response.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(response.body.servers[0].url).toBe(sandbox.baseUrl);
  });

  test('documents every endpoint of the reference and the sandbox helpers, with their auth', async () => {
    const { body } = await call<OpenApiAnswer>(sandbox, 'GET', '/openapi.json');
    const operations = Object.entries(body.paths as OpenApiPaths)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    // The switch module may add its own routes beside these.
    expect(operations).toEqual(expect.arrayContaining([
      'GET /institutions/cards',
      'GET /institutions/cards/{cardId}/activate',
      'GET /institutions/cards/{cardId}/deactivate',
      'GET /institutions/oauth/applications',
      'GET /institutions/transactions',
      'GET /sandbox/card-programs',
      'GET /sandbox/health',
      'GET /sandbox/pin-key',
      'POST /institutions/cards',
      'POST /institutions/oauth/create',
      'POST /institutions/{switch}/simulate',
      'POST /oauth/token',
      'POST /sandbox/card-programs',
      'POST /sandbox/institutions',
      'POST /sandbox/users',
      'POST /util/cards/import',
      'PUT /institutions/cards/pin/{cardId}/change',
      'PUT /institutions/cards/pin/{cardId}/reset',
      'PUT /institutions/cards/{cardId}/customer',
      'PUT /institutions/cards/{cardId}/renew',
      'PUT /institutions/oauth/{institutionId}',
      'PUT /institutions/users/{institutionUserId}/update',
      'PUT /sandbox/card-programs/{id}',
    ]));
    // Each authenticated operation names the one scope it requires (the table is src/sandbox/scopes.ts).
    expect(body.paths['/util/cards/import'].post.security).toEqual([{ apiKey: ['import:card'] }]);
    expect(body.paths['/institutions/cards'].get.security).toEqual([{ bearerAuth: ['read:card'] }]);
    expect(present(body.paths['/institutions/cards'].get.parameters).map((p) => p.name).sort()).toEqual(['cardId', 'limit', 'page', 'search', 'status']);
    expect(present(present(body.paths['/institutions/oauth/{institutionId}'].put.parameters)[0]).description).toMatch(/client id/);
    expect(Object.keys(present(present(body.paths['/oauth/token'].post.requestBody).content)).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
  });
});

describe('sandbox helpers', () => {
  test('GET /sandbox/pin-key: the PEM, its SPKI sha256 fingerprint, the algorithm and block format', async () => {
    const response = await call<PinKeyInfo>(sandbox, 'GET', '/sandbox/pin-key');
    expect(response.status).toBe(200);
    openapi.expectMatches('GET', '/sandbox/pin-key', response);
    const der = createPublicKey(response.body.publicKey).export({ type: 'spki', format: 'der' });
    expect(response.body).toEqual({
      publicKey: sandbox.pinPublicKey,
      fingerprint: createHash('sha256').update(der).digest('hex'),
      algorithm: 'RSA-OAEP-256',
      pinBlockFormat: 'ISO-9564-1',
    });
    expect(createPublicKey(response.body.publicKey).asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  test('GET /sandbox/health', async () => {
    const response = await call<SandboxHealth>(sandbox, 'GET', '/sandbox/health');
    expect(response.status).toBe(200);
    openapi.expectMatches('GET', '/sandbox/health', response);
    expect(response.body).toMatchObject({ status: 'ok', schemaVersion: 5, storage: 'memory' });
  });

  test('/sandbox/* refuses callers that are not on loopback', async () => {
    const host = new URL(sandbox.baseUrl).host;
    for (const url of ['/sandbox/health', '/sandbox/pin-key']) {
      const remote = await sandbox.server.inject({ method: 'GET', url, remoteAddress: '10.1.2.3', headers: { host } });
      expect(remote.statusCode).toBe(403);
      expect(remote.json()).toMatchObject({ statusCode: 403, error: 'FORBIDDEN' });
      const local = await sandbox.server.inject({ method: 'GET', url, remoteAddress: '::ffff:127.0.0.1', headers: { host } });
      expect(local.statusCode).toBe(200);
    }
    const create = await sandbox.server.inject({ method: 'POST', url: '/sandbox/institutions', remoteAddress: '192.168.1.9', payload: {}, headers: { host } });
    expect(create.statusCode).toBe(403);
    // The API itself is not loopback-only.
    const api = await sandbox.server.inject({ method: 'GET', url: '/institutions/cards', remoteAddress: '10.1.2.3', headers: { host, authorization: `Bearer ${sandbox.token}` } });
    expect(api.statusCode).toBe(200);
  });

  test('POST /sandbox/institutions makes an institution with working credentials and a program', async () => {
    const response = await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'Second Bank' } });
    expect(response.status).toBe(201);
    openapi.expectMatches('POST', '/sandbox/institutions', response);
    const created = response.body.data;
    expect(created.institutionId).not.toBe(sandbox.institutionId);
    const programs = await call<DataEnvelope<CardProgram[]>>(sandbox, 'GET', '/sandbox/card-programs', { token: created.token });
    expect(programs.body.data.map((p) => p.id)).toEqual([created.cardProgramId]);
    // A helper that changes state takes JSON, so that a web page cannot call it without a preflight.
    const bodyless = await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions');
    expect(bodyless.status).toBe(415);
    expect(bodyless.body).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringMatching(/JSON body/) });
    expect((await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: {} })).status).toBe(201);
    const extra = await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: { name: 'X', admin: true } });
    expect(extra.status).toBe(400);
    expect(fieldErrorsOf(extra)).toEqual([{ field: 'admin', message: 'is not an allowed field' }]);
  });

  test('card programs: list, create with limits and webhook, update merges, other institutions get 404', async () => {
    const list = await call<DataEnvelope<CardProgram[]>>(sandbox, 'GET', '/sandbox/card-programs', { token: sandbox.token });
    expect(list.status).toBe(200);
    openapi.expectMatches('GET', '/sandbox/card-programs', list);
    const seeded = present(list.body.data.find((p) => p.id === sandbox.cardProgramId), 'the seeded program');
    expect(seeded.channels).toEqual({
      pos: { enabled: true, dailyLimit: { count: expect.any(Number), amount: expect.any(Number) } },
      atm: { enabled: true, dailyLimit: { count: expect.any(Number), amount: expect.any(Number) } },
      web: { enabled: true, dailyLimit: { count: expect.any(Number), amount: expect.any(Number) } },
    });
    expect(seeded.webHookConfig).toEqual({ type: expect.any(String), header: expect.any(String), url: expect.any(String), secret: expect.any(String) });

    const created = await call<DataEnvelope<CardProgram>>(sandbox, 'POST', '/sandbox/card-programs', {
      token: sandbox.token,
      body: { name: 'ATM only', panPrefix: '627123', panLength: 19, maxExpiry: 12, channels: { pos: { enabled: false, dailyLimit: { count: 0, amount: 0 } } }, webHookConfig: { url: 'http://127.0.0.1:9/h' } },
    });
    expect(created.status).toBe(201);
    openapi.expectMatches('POST', '/sandbox/card-programs', created);
    const program = created.body.data;
    expect(program).toMatchObject({ name: 'ATM only', panPrefix: '627123', panLength: 19, panStart: '6271230000000000000', panEnd: '6271239999999999999', maxExpiry: 12 });
    expect(program.channels.pos.enabled).toBe(false);
    expect(program.channels.atm.enabled).toBe(true);
    expect(program.webHookConfig.url).toBe('http://127.0.0.1:9/h');
    expect(program.webHookConfig.secret).toEqual(expect.any(String));

    const updated = await call<DataEnvelope<CardProgram>>(sandbox, 'PUT', `/sandbox/card-programs/${program.id}`, {
      token: sandbox.token, body: { channels: { atm: { enabled: true, dailyLimit: { count: 2, amount: 1000 } } }, webHookConfig: { secret: 's3cret' } },
    });
    expect(updated.status).toBe(200);
    openapi.expectMatches('PUT', '/sandbox/card-programs/{id}', updated);
    expect(updated.body.data.channels.atm.dailyLimit).toEqual({ count: 2, amount: 1000 });
    expect(updated.body.data.channels.pos.enabled).toBe(false);
    expect(updated.body.data.webHookConfig).toMatchObject({ url: 'http://127.0.0.1:9/h', secret: 's3cret' });

    const bad = await call<DataEnvelope<CardProgram>>(sandbox, 'PUT', `/sandbox/card-programs/${program.id}`, { token: sandbox.token, body: { maxExpiry: 'long' } });
    expect(bad.status).toBe(400);
    expect(fieldErrorsOf(bad)).toContainEqual({ field: 'maxExpiry', message: 'must be an integer' });
    const badCreate = await call<DataEnvelope<CardProgram>>(sandbox, 'POST', '/sandbox/card-programs', { token: sandbox.token, body: { panPrefix: '12' } });
    expect(badCreate.status).toBe(400);
    expect(fieldErrorsOf(badCreate).map((e: { field: string }) => e.field).sort()).toEqual(['name', 'panPrefix']);

    const other = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox, 'POST', '/sandbox/institutions', { body: {} })).body.data;
    const foreign = await call<DataEnvelope<CardProgram>>(sandbox, 'PUT', `/sandbox/card-programs/${program.id}`, { token: other.token, body: { name: 'mine' } });
    expect(foreign.status).toBe(404);
    const unknown = await call<DataEnvelope<CardProgram>>(sandbox, 'PUT', '/sandbox/card-programs/nope', { token: sandbox.token, body: { name: 'x' } });
    expect(unknown.status).toBe(404);
    expect((await call<DataEnvelope<CardProgram[]>>(sandbox, 'GET', '/sandbox/card-programs')).status).toBe(401);
  });
});

describe('the test helpers check responses against /openapi.json', () => {
  test('paths resolve to their templates, literal segments first', () => {
    expect(openapi.templateFor('GET', '/institutions/oauth/applications')).toBe('/institutions/oauth/applications');
    expect(openapi.templateFor('PUT', '/institutions/oauth/abc')).toBe('/institutions/oauth/{institutionId}');
    expect(openapi.templateFor('PUT', '/institutions/cards/pin/abc/change')).toBe('/institutions/cards/pin/{cardId}/change');
    expect(openapi.templateFor('GET', '/nowhere')).toBeUndefined();
  });

  test('a body that does not match its documented schema fails the check', () => {
    const bogus = { status: 200, headers: {}, text: '', body: { statusCode: 200, message: 'x', data: [{ id: 1 }], pagination: { page: 1 } } };
    expect(() => openapi.expectMatchesIfDocumented('GET', '/institutions/cards', bogus)).toThrow();
    const bogusError = { status: 404, headers: {}, text: '', body: { statusCode: 404, message: 'x' } };
    expect(() => openapi.expectMatchesIfDocumented('GET', '/institutions/cards', bogusError)).toThrow();
  });
});
