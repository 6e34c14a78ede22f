// POST /util/cards/import (x-api-key): an existing card becomes an ordinary card of the API
// key's institution (the rules: services/import.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Card, Envelope, ImportCardBody } from '../../api/schemas.js';
import { principalOf, requireApiKey } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { importService } from '../services/import.js';
import { envelope } from './common.js';

export const importRoutes: FastifyPluginAsyncTypebox<SandboxDeps> = async (app, deps) => {
  const imports = importService(deps);
  app.post('/util/cards/import', {
    onRequest: requireApiKey(deps),
    schema: {
      summary: 'Import Card', tags: ['import'], auth: 'apiKey',
      description: 'Takes x-api-key, not a bearer token. `institutionId` must be the API key\'s institution (else 403); a repeated `realId` is a 409. '
        + 'The card is issued on the institution\'s first card program whose range meets `card.bin` (none: a 400), with a PAN under that BIN; the answer is the Card.',
      body: ImportCardBody,
      response: { 201: Envelope(Card) },
    },
  }, async (request, reply) => {
    const card = await imports.importCard(principalOf(request).institutionId, request.body);
    return reply.code(201).send(envelope('Card imported successfully', card));
  });
};
