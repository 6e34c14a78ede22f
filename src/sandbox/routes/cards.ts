// /institutions/cards: create, list, renew, PIN change and reset, customer update, activate,
// deactivate. Everything is scoped to the caller's institution; the rules are the card service's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  Card, CardIdParams, ChangePinBody, CreateCardBody, Envelope, ListCardsQuery, ListEnvelope, RenewCardBody, ResetPinBody,
  UpdateCustomerBody,
} from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import { describeTransitions, MAX_PIN_ATTEMPTS } from '../cards.js';
import type { SandboxDeps } from '../deps.js';
import { cardService } from '../services/cards.js';
import { envelope, listEnvelope, pagination, paging } from './common.js';

const tags = ['cards'];
const CardEnvelope = Envelope(Card);

export const cardRoutes: FastifyPluginAsyncTypebox<SandboxDeps> = async (app, deps) => {
  const cards = cardService(deps);
  const auth = requireBearer(deps);

  app.post('/institutions/cards', {
    onRequest: auth,
    schema: {
      summary: 'Create Card', tags, auth: 'bearer',
      description: 'Issues a card from a card program. The PAN comes from the program range unless the program allows a caller-supplied `pan`. '
        + '`defaultPIN` is an Encrypted PIN block (see GET /sandbox/pin-key). A repeated `referenceCode` is a 409.',
      body: CreateCardBody,
      response: { 201: CardEnvelope },
    },
  }, async (request, reply) => {
    const card = await cards.create(principalOf(request).institutionId, request.body);
    return reply.code(201).send(envelope('Card created successfully', card));
  });

  app.get('/institutions/cards', {
    onRequest: auth,
    schema: {
      summary: 'Get Cards', tags, auth: 'bearer',
      description: 'Cards of the institution, newest first (createdAt, then id), with `cardProgram` expanded. '
        + '`search` matches id, referenceCode, embossing name, last four, status, account number and customer names, email and phone; '
        + '`status` keeps the cards in that status.',
      querystring: ListCardsQuery,
      response: { 200: ListEnvelope(Card) },
    },
  }, async (request) => {
    const { page, limit, offset } = paging(request.query);
    const { search, cardId, status } = request.query;
    const { cards: data, total } = cards.list({ institutionId: principalOf(request).institutionId, search, cardId, status, limit, offset });
    return listEnvelope(deps.dialect, 'Cards retrieved successfully', data, pagination(page, limit, total));
  });

  app.put('/institutions/cards/:cardId/renew', {
    onRequest: auth,
    schema: {
      summary: 'Renew Card', tags, auth: 'bearer',
      description: '`expiration` (YYYYMM) must be a future month within the program\'s maxExpiry months. The card gets a new seqNumber. '
        + 'With `If-Match: "<__v>"` (the card\'s version as read) only that version is renewed: a card changed since is a 409 CONFLICT '
        + '(details.version: the current one), and nothing is written. ' + describeTransitions('renew'),
      params: CardIdParams, body: RenewCardBody, response: { 200: CardEnvelope },
    },
  }, async (request) => {
    const card = cards.renew(principalOf(request).institutionId, request.params.cardId, request.body, request.headers['if-match']);
    return envelope(`Card renewal (${request.body.renewReason}) processed: a replacement card was processed, valid through ${card.expiryMonth}/${card.expiryYear}`, card);
  });

  app.put('/institutions/cards/pin/:cardId/change', {
    onRequest: auth,
    schema: {
      summary: 'Change Card PIN', tags, auth: 'bearer',
      description: `A wrong oldPIN increments pinAttempts and answers 422 PIN_MISMATCH (details.attemptsLeft); after ${MAX_PIN_ATTEMPTS} wrong attempts the PIN is locked (423 PIN_LOCKED) until a reset.`,
      params: CardIdParams, body: ChangePinBody, response: { 200: CardEnvelope },
    },
  }, async (request) => envelope('Card PIN changed successfully',
    await cards.changePin(principalOf(request).institutionId, request.params.cardId, request.body)));

  app.put('/institutions/cards/pin/:cardId/reset', {
    onRequest: auth,
    schema: {
      summary: 'Reset Card PIN', tags, auth: 'bearer',
      description: 'Sets a new PIN without the old one, zeroes pinAttempts and unlocks the PIN.',
      params: CardIdParams, body: ResetPinBody, response: { 200: CardEnvelope },
    },
  }, async (request) => envelope('Card PIN reset successfully',
    await cards.resetPin(principalOf(request).institutionId, request.params.cardId, request.body)));

  app.put('/institutions/cards/:cardId/customer', {
    onRequest: auth,
    schema: {
      summary: 'Update Card Customer', tags, auth: 'bearer',
      description: 'Replaces the customer. With `If-Match: "<__v>"` (the card\'s version as read) the change applies only to that version: '
        + 'a card changed since is a 409 CONFLICT (details.version: the current one), and nothing is written.',
      params: CardIdParams, body: UpdateCustomerBody, response: { 200: CardEnvelope },
    },
  }, async (request) => envelope('Card customer updated successfully',
    cards.updateCustomer(principalOf(request).institutionId, request.params.cardId, request.body, request.headers['if-match'])));

  for (const action of ['activate', 'deactivate'] as const) {
    app.get(`/institutions/cards/:cardId/${action}`, {
      onRequest: auth,
      schema: {
        summary: action === 'activate' ? 'Activate Card' : 'Deactivate Card', tags, auth: 'bearer',
        description: `GET although it changes state (as the API does). ${describeTransitions(action)}`,
        params: CardIdParams, response: { 200: CardEnvelope },
      },
    }, async (request) => envelope(action === 'activate' ? 'Card activated successfully' : 'Card deactivated successfully',
      cards.changeStatus(principalOf(request).institutionId, request.params.cardId, action)));
  }
};
