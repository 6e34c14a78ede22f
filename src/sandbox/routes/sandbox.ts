// Sandbox-only helpers under /sandbox (loopback callers only unless bound elsewhere): the PIN
// key, new institutions, card programs, health.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import {
  CardProgram, CardProgramInput, Envelope, IdParams, PinKeyInfo, SandboxHealth, SandboxInstitutionCredentials,
  SandboxInstitutionInput, UpdateCardProgramInput,
} from '../../api/schemas.js';
import { principalOf, requireBearer, requireLoopback } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { invalidField, notFound } from '../errors.js';
import { createInstitution, defaultCardProgram, programRange } from '../tenancy.js';
import { schemaVersion } from '../store/db.js';
import { VERSION } from '../../version.js';
import { envelope } from './common.js';

const tags = ['sandbox'];

export async function sandboxRoutes(app: FastifyInstance, deps: SandboxDeps): Promise<void> {
  const { store, clock } = deps;
  const loopback = requireLoopback(deps);
  const bearer = requireBearer(deps);
  const startedAt = Date.now();

  app.get('/sandbox/health', {
    onRequest: loopback,
    schema: { summary: 'Sandbox health', tags, auth: 'none', response: { 200: SandboxHealth } },
  }, async () => ({
    status: 'ok' as const,
    version: VERSION,
    schemaVersion: schemaVersion(store.db),
    storage: store.db.memory ? 'memory' as const : 'file' as const,
    uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
  }));

  app.get('/sandbox/pin-key', {
    onRequest: loopback,
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

  app.post<{ Body: { name?: string } }>('/sandbox/institutions', {
    onRequest: loopback,
    // An empty POST is fine: every field is optional.
    preValidation: async (request) => { request.body ??= {}; },
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
    onRequest: [loopback, bearer],
    schema: { summary: 'List card programs', tags, auth: 'bearer', response: { 200: Envelope(Type.Array(CardProgram)) } },
  }, async (request) => envelope('Card programs retrieved', store.cardPrograms.listByInstitution(principalOf(request).institutionId)));

  app.post<{ Body: CardProgramInput }>('/sandbox/card-programs', {
    onRequest: [loopback, bearer],
    schema: {
      summary: 'Create a card program', tags, auth: 'bearer',
      description: 'Defaults are those of the seeded program; `panPrefix` and `panLength` set the PAN range.',
      body: CardProgramInput, response: { 201: Envelope(CardProgram) },
    },
  }, async (request, reply) => {
    const { institutionId, userId } = principalOf(request);
    const now = clock.now();
    const base = defaultCardProgram({
      institutionId, createdBy: userId ?? institutionId, now, name: request.body.name,
      panPrefix: request.body.panPrefix, panLength: request.body.panLength,
    });
    const program = applyProgramChanges(base, request.body, now);
    store.transaction(() => store.cardPrograms.insert(program));
    return reply.code(201).send(envelope('Card program created', program));
  });

  app.put<{ Params: { id: string }; Body: UpdateCardProgramInput }>('/sandbox/card-programs/:id', {
    onRequest: [loopback, bearer],
    schema: {
      summary: 'Update a card program', tags, auth: 'bearer',
      description: 'Changes the given fields; `channels` and `webHookConfig` are merged into the current values.',
      params: IdParams, body: UpdateCardProgramInput, response: { 200: Envelope(CardProgram) },
    },
  }, async (request) => {
    const { institutionId } = principalOf(request);
    const program = store.transaction(() => {
      const current = store.cardPrograms.get(institutionId, request.params.id);
      if (!current) throw notFound(`card program ${request.params.id}`);
      const next = applyProgramChanges(current, request.body, clock.now());
      store.cardPrograms.update(next);
      return next;
    });
    return envelope('Card program updated', program);
  });
}

function applyProgramChanges(program: CardProgram, input: UpdateCardProgramInput, now: Date): CardProgram {
  const next: CardProgram = { ...program, updatedAt: now.toISOString() };
  if (input.name !== undefined) next.name = input.name;
  if (input.scheme !== undefined) next.scheme = input.scheme;
  if (input.maxExpiry !== undefined) next.maxExpiry = input.maxExpiry;
  if (input.allowRandomPan !== undefined) next.allowRandomPan = input.allowRandomPan;
  if (input.randomCardNumber !== undefined) next.randomCardNumber = input.randomCardNumber;
  if (input.renewable !== undefined) next.renewable = input.renewable;
  if (input.panPrefix !== undefined || input.panLength !== undefined) {
    const prefix = input.panPrefix ?? program.panPrefix;
    const length = input.panLength ?? program.panLength;
    if (prefix.length >= length - 1) throw invalidField('panPrefix', `leaves no digits for card numbers of length ${length}`);
    Object.assign(next, programRange(prefix, length));
    if (prefix !== program.panPrefix || length !== program.panLength) next.panSequenceCounter = 0;
  }
  if (input.channels) {
    next.channels = { ...program.channels };
    for (const channel of ['pos', 'atm', 'web'] as const) {
      const change = input.channels[channel];
      if (change) next.channels[channel] = { enabled: change.enabled, dailyLimit: { ...change.dailyLimit } };
    }
  }
  if (input.webHookConfig) next.webHookConfig = { ...program.webHookConfig, ...input.webHookConfig };
  return next;
}
