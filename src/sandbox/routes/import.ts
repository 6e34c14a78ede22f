// POST /util/cards/import (x-api-key): an existing card becomes an ordinary card of the API
// key's institution. realId is unique per institution; the clear defaultPIN is only hashed.
import type { FastifyInstance } from 'fastify';
import { Card, Envelope, ImportCardBody } from '../../api/schemas.js';
import { principalOf, requireApiKey } from '../auth.js';
import { buildCard, customerFromImport, endOfMonth } from '../cards.js';
import type { SandboxDeps } from '../deps.js';
import { ApiError, conflict, forbidden, invalidField } from '../errors.js';
import { panFromBin } from '../pan.js';
import { hashPin } from '../pin.js';
import { isUniqueViolation } from '../store/db.js';
import { envelope } from './common.js';

export async function importRoutes(app: FastifyInstance, deps: SandboxDeps): Promise<void> {
  const { store, clock } = deps;
  app.post<{ Body: ImportCardBody }>('/util/cards/import', {
    onRequest: requireApiKey(deps),
    schema: {
      summary: 'Import Card', tags: ['import'], auth: 'apiKey',
      description: 'Takes x-api-key, not a bearer token. `institutionId` must be the API key\'s institution (else 403); a repeated `realId` is a 409. '
        + 'The card is issued on the institution\'s first card program with a PAN under `card.bin`; the answer is the Card.',
      body: ImportCardBody,
      response: { 201: Envelope(Card) },
    },
  }, async (request, reply) => {
    const { institutionId } = principalOf(request);
    const body = request.body;
    if (body.institutionId !== institutionId) throw forbidden('institutionId is not the institution of this API key');
    if (store.cards.findByRealId(institutionId, body.realId)) throw conflict(`a card with realId "${body.realId}" was already imported`, 'realId');
    const year = Number(body.card.expiration.slice(0, 4));
    const month = Number(body.card.expiration.slice(4, 6));
    const expiryDate = endOfMonth(year, month);
    if (body.endDate < body.startDate) throw invalidField('endDate', 'must not be before startDate');
    const pinHash = await hashPin(body.card.defaultPIN);
    const now = clock.now();

    const card = store.transaction(() => {
      if (store.cards.findByRealId(institutionId, body.realId)) throw conflict(`a card with realId "${body.realId}" was already imported`, 'realId');
      const program = store.cardPrograms.listByInstitution(institutionId)[0];
      if (!program) throw new ApiError(400, 'VALIDATION_ERROR', 'the institution has no card program to import into');
      const pan = panFromBin(body.card.bin, (candidate) => store.cards.panExists(candidate));
      const built = buildCard({
        institutionId,
        program,
        pan,
        referenceCode: `import:${body.realId}`,
        pinEnabled: true,
        account: { currency: '566', bankCode: program.bankCode, type: 'default', number: '' },
        customer: customerFromImport(body),
        embossingName: body.card.embossingName,
        expiryDate,
        status: body.active ? (expiryDate.getTime() < now.getTime() ? 'expired' : 'active') : 'inactive',
        seqNumber: program.seqNumber,
        enroll2FA: false,
        printCard: false,
        now,
      });
      const card: Card = { ...built, serviceCode: body.card.serviceCode || built.serviceCode };
      try {
        store.cards.insert({ card, pan, pinHash, realId: body.realId });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict(`a card with realId "${body.realId}" was already imported`, 'realId');
        throw error;
      }
      return card;
    });
    return reply.code(201).send(envelope('Card imported successfully', card));
  });
}
