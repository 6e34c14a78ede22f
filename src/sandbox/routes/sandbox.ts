// Sandbox-only helpers under /sandbox (who may call them: ../ingress.ts): the PIN
// key, new institutions, card programs, health.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  CardProgram, CardProgramInput, Envelope, IdParams, PinKeyInfo, SandboxHealth, SandboxInstitutionCredentials,
  SandboxInstitutionInput, UpdateCardProgramInput,
} from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { cardProgramService } from '../services/card-programs.js';
import { createInstitution } from '../tenancy.js';
import { schemaVersion, writeFailure } from '../store/db.js';
import { VERSION } from '../../version.js';
import { envelope } from './common.js';

const tags = ['sandbox'];

export const sandboxRoutes: FastifyPluginAsyncTypebox<SandboxDeps> = async (app, deps) => {
  const { store, clock } = deps;
  const programs = cardProgramService(deps);
  const bearer = requireBearer(deps);
  const startedAt = Date.now();

  app.get('/sandbox/health', {
    schema: {
      summary: 'Sandbox health', tags, auth: 'none',
      description: 'ok, or 503 degraded with the reason once a write to the database has failed (full disk, read-only, I/O error), until one succeeds again.',
      response: { 200: SandboxHealth, 503: SandboxHealth },
    },
  }, async (_request, reply) => {
    const failure = writeFailure(store.db);
    const health = {
      status: failure ? 'degraded' as const : 'ok' as const,
      ...(failure ? { reason: `the database cannot be written: ${failure.message} (${failure.code})` } : {}),
      version: VERSION,
      schemaVersion: schemaVersion(store.db),
      storage: store.db.memory ? 'memory' as const : 'file' as const,
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
    };
    return reply.code(failure ? 503 : 200).send(health);
  });

  app.get('/sandbox/pin-key', {
    schema: {
      summary: 'PIN public key', tags, auth: 'none',
      description: 'Encrypt ISO 9564-1 format 1 PIN blocks with RSA-OAEP SHA-256 under this key; send the hex ciphertext and this fingerprint.',
      response: { 200: PinKeyInfo },
    },
  }, async () => ({
    publicKey: deps.pinKey.publicKeyPem,
    fingerprint: deps.pinKey.fingerprint,
    algorithm: 'RSA-OAEP-256' as const,
    pinBlockFormat: 'ISO-9564-1' as const,
  }));

  app.post('/sandbox/institutions', {
    schema: {
      summary: 'Create a sandbox institution', tags, auth: 'none',
      description: 'A new institution with a user, a bearer token, an API key and a default card program. The token and key are shown only here.',
      body: SandboxInstitutionInput,
      response: { 201: Envelope(SandboxInstitutionCredentials) },
    },
  }, async (request, reply) => {
    const created = createInstitution(store, clock.now(), { name: request.body.name });
    return reply.code(201).send(envelope('Institution created', created));
  });

  app.get('/sandbox/card-programs', {
    onRequest: bearer,
    schema: { summary: 'List card programs', tags, auth: 'bearer', response: { 200: Envelope(Type.Array(CardProgram)) } },
  }, async (request) => envelope('Card programs retrieved', programs.list(principalOf(request).institutionId)));

  app.post('/sandbox/card-programs', {
    onRequest: bearer,
    schema: {
      summary: 'Create a card program', tags, auth: 'bearer',
      description: 'Defaults are those of the seeded program, the PAN range that of the institution\'s first program; `panPrefix` and `panLength` set another. '
        + 'A range belongs to one institution: one that overlaps another institution\'s program is a 409.',
      body: CardProgramInput, response: { 201: Envelope(CardProgram) },
    },
  }, async (request, reply) => reply.code(201).send(envelope('Card program created', programs.create(principalOf(request), request.body))));

  app.put('/sandbox/card-programs/:id', {
    onRequest: bearer,
    schema: {
      summary: 'Update a card program', tags, auth: 'bearer',
      description: 'Changes the given fields; the nested objects (`channels`, a channel\'s `dailyLimit`, `webHookConfig`, `standIn`) are merged member by member into the current values. '
        + '`panPrefix` and `panLength` change only while the program has issued no card, and not onto another institution\'s range (409).',
      params: IdParams, body: UpdateCardProgramInput, response: { 200: Envelope(CardProgram) },
    },
  }, async (request) => envelope('Card program updated', programs.update(principalOf(request).institutionId, request.params.id, request.body)));
};
